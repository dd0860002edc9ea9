"""The HTML triage page in a real headless Chromium (Debian `chromium` + `chromium-driver`, driven
by Selenium): it opens from a file:// URL, filters by status and tree, sorts by column, expands a
row to its findings, and shows a subject holding `<script>` as text without running it."""

from __future__ import annotations

import shutil
import tempfile

import pytest

from mailfactory import series_mails, thread, write
from test_triage_status import NOW, RULES, build_archive

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
DRIVER = shutil.which("chromedriver")
HOSTILE = "foo: <script>document.title='pwned'</script> & <b>bold</b>"

pytestmark = pytest.mark.skipif(not (CHROMIUM and DRIVER),
                                reason="chromium and chromium-driver are not installed (tests/run.sh installs them)")


@pytest.fixture(scope="module")
def browser():
    webdriver = pytest.importorskip("selenium.webdriver")
    from selenium.webdriver.chrome.service import Service

    profile = tempfile.mkdtemp(prefix="reviewtool-chromium-")
    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    for arg in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                "--disable-component-update", "--disable-sync", "--no-first-run", f"--user-data-dir={profile}"):
        opts.add_argument(arg)
    driver = webdriver.Chrome(service=Service(DRIVER), options=opts)
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


@pytest.fixture
def page(tmp_path, cli, browser):
    archive = build_archive(tmp_path)
    hostile = series_mails(1, cover=False, tree="net", subjects={1: HOSTILE})
    with open(archive, "a", encoding="utf-8") as fh:
        fh.write("\n" + thread(*hostile, domain="evil.example"))
    target = tmp_path / "triage.html"
    res = cli("triage", archive, "--format", "html", "--output", target, "--now", NOW, *RULES)
    assert res.code in (0, 1), res.err
    browser.get(target.as_uri())
    return browser


def visible_statuses(driver):
    from selenium.webdriver.common.by import By

    return [b.get_attribute("data-status") for b in driver.find_elements(By.CSS_SELECTOR, "#triage > tbody.series")
            if b.is_displayed()]


def test_opens_with_every_series(page):
    from selenium.webdriver.common.by import By

    assert page.title == "reviewtool triage: 8 series"
    assert len(visible_statuses(page)) == 9  # 8 triaged + 1 superseded revision
    assert page.find_element(By.ID, "shown").text == "9 of 9 shown"


def test_filters_by_status_and_tree(page):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    Select(page.find_element(By.ID, "f-status")).select_by_value("needs-revision")
    assert visible_statuses(page) == ["needs-revision"]
    Select(page.find_element(By.ID, "f-status")).select_by_value("changes-requested")
    assert visible_statuses(page) == ["changes-requested"]  # the pw-bot: cr series
    Select(page.find_element(By.ID, "f-status")).select_by_value("needs-revision")
    Select(page.find_element(By.ID, "f-tree")).select_by_value("net")
    assert visible_statuses(page) == []  # the net series (the <script> one) needs review
    Select(page.find_element(By.ID, "f-status")).select_by_value("")
    assert visible_statuses(page) == ["needs-review"]
    assert page.find_element(By.ID, "shown").text == "1 of 9 shown"
    Select(page.find_element(By.ID, "f-tree")).select_by_value("")
    assert len(visible_statuses(page)) == 9


def test_sorts_by_column(page):
    from selenium.webdriver.common.by import By

    def column(key):
        return [b.get_attribute(f"data-{key}") for b in page.find_elements(By.CSS_SELECTOR, "#triage > tbody.series")]

    header = page.find_element(By.CSS_SELECTOR, 'th[data-key="age"] button')
    header.click()
    ages = [int(a) for a in column("age")]
    assert ages == sorted(ages)
    header.click()
    assert [int(a) for a in column("age")] == sorted(ages, reverse=True)
    assert page.find_element(By.CSS_SELECTOR, 'th[data-key="age"]').get_attribute("aria-sort") == "descending"
    page.find_element(By.CSS_SELECTOR, 'th[data-key="subject"] button').click()
    subjects = column("subject")
    assert subjects == sorted(subjects)
    page.find_element(By.CSS_SELECTOR, 'th[data-key="status"] button').click()
    from reviewtool.triage.status import STATUSES

    order = list(STATUSES)
    statuses = column("status")
    assert statuses == sorted(statuses, key=order.index)


def test_row_expands_to_its_findings_and_links(page):
    from selenium.webdriver.common.by import By

    body = next(b for b in page.find_elements(By.CSS_SELECTOR, "#triage > tbody.series")
                if "nosob" in b.get_attribute("data-subject"))
    details = body.find_element(By.CSS_SELECTOR, "tr.details")
    assert not details.is_displayed()
    body.find_element(By.CSS_SELECTOR, "button.toggle").click()
    assert details.is_displayed()
    assert "signed-off-by-missing" in details.text and "Next:" in details.text
    assert "git commit -s --amend" in details.text  # the tree verdict's next step
    link = body.find_element(By.CSS_SELECTOR, "td.subject a").get_attribute("href")
    assert link == "https://lore.kernel.org/all/20261102100000.1000-0-jane@nosob.example/"
    body.find_element(By.CSS_SELECTOR, "button.toggle").click()
    assert not details.is_displayed()


def test_script_in_a_subject_is_text(page):
    from selenium.webdriver.common.by import By

    assert page.title == "reviewtool triage: 8 series"  # the subject's script did not run
    cells = [a.text for a in page.find_elements(By.CSS_SELECTOR, "td.subject a")]
    assert any("<script>document.title='pwned'</script> & <b>bold</b>" in c for c in cells)
    assert not page.find_elements(By.CSS_SELECTOR, "td.subject b")
