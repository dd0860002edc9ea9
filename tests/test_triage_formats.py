"""Every triage output (text, markdown, json, html, patchwork), sort orders, filters, --jobs,
progress and bad input."""

from __future__ import annotations

import gzip
import json

from conftest import CORPUS
from mailfactory import Mail, patch_body, series_mails, thread, write
from test_triage_status import NOW, RULES, build_archive

NF = CORPUS / "netfilter-devel"


def run(cli, archive, *args, code=(0, 1)):
    res = cli("triage", archive, "--now", NOW, *RULES, *args)
    assert res.code in code, res.err
    return res


def hostile_archive(tmp_path):
    mails = series_mails(1, cover=False, subjects={1: "foo: <script>document.title='pwned'</script> & [bold]x[/bold]"})
    return write(tmp_path, thread(*mails, domain="evil.example"), "evil.mbox")


def test_json_report_shape(tmp_path, cli):
    data = run(cli, build_archive(tmp_path), "--format", "json").json
    assert data["kind"] == "triage" and data["now"] == "2026-11-05T12:00:00+00:00" and data["stale_days"] == 14
    assert set(data["totals"]) == {"messages", "series", "superseded", "skipped", "orphan_replies", "other_threads",
                                   "not_series"}
    item = next(i for i in data["series"] if i["status"] == "ready")
    for key in ("id", "msgid", "url", "subject", "full_subject", "revision", "tree", "author", "date", "age_days",
                "last_activity", "idle_days", "status", "reasons", "findings", "counts", "patches", "superseded"):
        assert key in item, key
    assert item["url"] == f"https://lore.kernel.org/all/{item['msgid']}/"


def test_text_table_lists_every_series_with_its_next_step(tmp_path, cli):
    out = run(cli, build_archive(tmp_path)).out
    assert "STATUS" in out and "SUBJECT" in out
    for status in ("ready", "needs-review", "needs-revision", "incomplete", "stale", "superseded"):
        assert f"\n{status}" in out, status
    assert "→ apply it" in out and "changes requested on patch 2 by Mae Maintainer" in out


def test_text_to_a_file_is_plain_and_escapes_markup(tmp_path, cli):
    target = tmp_path / "report.txt"
    run(cli, hostile_archive(tmp_path), "--output", target)
    text = target.read_text()
    assert "[bold]x[/bold]" in text and "\x1b[" not in text


def test_markdown_links_threads_and_escapes_html(tmp_path, cli):
    out = run(cli, hostile_archive(tmp_path), "--format", "markdown").out
    assert "&lt;script&gt;" in out and "<script>" not in out
    out = run(cli, build_archive(tmp_path), "--format", "markdown").out
    assert out.startswith("# Triage of 7 series")
    assert "](<https://lore.kernel.org/all/20261102100000.1000-0-jane@ready.example/>)" in out
    assert "- **Next:** apply it" in out


def test_html_says_what_was_not_checked_once(tmp_path, cli):
    """Every series of an archive triaged without --repo misses the same checks: one line for
    the page, not one per series."""
    res = cli("triage", build_archive(tmp_path), "--now", NOW, "--format", "html")
    out = res.out
    assert out.count("Not checked") == 1 and "Not checked in any series: " in out
    assert "already-applied" in out.split("Not checked in any series: ", 1)[1].split("</p>", 1)[0]


def test_html_is_self_contained_and_escapes_mail_text(tmp_path, cli):
    out = run(cli, hostile_archive(tmp_path), "--format", "html").out
    assert out.lstrip().startswith("<!doctype html>")
    assert "&lt;script&gt;document.title=" in out and "<script>document.title" not in out
    assert 'src="http' not in out and 'href="http' not in out.split("<body>")[0]  # no external assets


def test_patchwork_payloads_per_patch(tmp_path, cli):
    data = run(cli, build_archive(tmp_path), "--format", "patchwork", "--report-url",
               "https://ci.example.org/triage.html").json
    checks = {(c["series_msgid"], c["patch"]): c for c in data["checks"]}
    assert all(set(c["check"]) == {"state", "target_url", "context", "description"} for c in data["checks"])
    ready = [c for (s, _), c in checks.items() if s.endswith("@ready.example")]
    assert [c["check"]["state"] for c in ready] == ["success", "success"]
    assert ready[0]["check"]["target_url"].startswith("https://ci.example.org/triage.html#s-")
    nosob = next(c for (s, _), c in checks.items() if s.endswith("@nosob.example"))
    assert nosob["check"]["state"] == "fail" and "signed-off-by-missing" in nosob["check"]["description"]
    # a series-level error (incomplete) is copied onto every patch, as patchwork has no series checks
    partial = [c for (s, _), c in checks.items() if s.endswith("@partial.example")]
    assert [c["patch"] for c in partial] == [1, 3] and {c["check"]["state"] for c in partial} == {"fail"}
    # superseded revisions get no check
    assert not any(s.endswith("@v1.example") for s, _ in checks)
    assert all(c["check"]["context"] == "reviewtool" and len(c["check"]["description"]) <= 255
               for c in data["checks"])


def test_patchwork_warning_state(tmp_path, cli):
    mails = series_mails(3, cover=False, tree="net-next")  # three patches, no cover letter: a warning
    data = run(cli, write(tmp_path, thread(*mails)), "--format", "patchwork").json
    assert {c["check"]["state"] for c in data["checks"]} == {"warning"}
    assert "cover-letter-missing" in data["checks"][0]["check"]["description"]


def test_jobs_give_the_same_report(tmp_path, cli):
    archive = build_archive(tmp_path)
    one = run(cli, archive, "--format", "json").json
    two = run(cli, archive, "--format", "json", "--jobs", "2").json
    assert one == two


def test_sort_orders_and_status_filter(tmp_path, cli):
    archive = build_archive(tmp_path)
    by_status = run(cli, archive, "--format", "json").json["series"]
    assert by_status[0]["status"] == "ready" and by_status[-1]["status"] == "superseded"
    by_age = run(cli, archive, "--format", "json", "--sort", "age").json["series"]
    ages = [i["age_days"] for i in by_age]
    assert ages == sorted(ages, reverse=True)
    by_tree = run(cli, archive, "--format", "json", "--sort", "tree").json["series"]
    trees = [i["tree"] for i in by_tree]
    assert trees == sorted(trees)
    only = run(cli, archive, "--format", "json", "--status", "ready", "--status", "stale").json
    assert {i["status"] for i in only["series"]} == {"ready", "stale"}
    assert only["counts"]["needs-review"] == 2  # the counts still cover the whole archive


def test_exit_code_follows_error_findings(tmp_path, cli):
    clean = write(tmp_path, thread(*series_mails(2, tree="net-next")), "clean.mbox")
    assert run(cli, clean).code == 0
    unsigned = write(tmp_path, thread(*series_mails(1, cover=False, bodies={1: patch_body(trailers="")})), "u.mbox")
    assert run(cli, unsigned).code == 1


def test_bad_input_is_one_line_exit_2(tmp_path, cli):
    empty = tmp_path / "empty.mbox"
    empty.write_text("")
    cases = [
        (tmp_path / "missing.mbox",),
        (empty,),
        (NF / "nf-vrf-conntrack-dflt-qdisc.mbox", "--now", "yesterday"),
        (NF / "nf-vrf-conntrack-dflt-qdisc.mbox", "--status", "merged"),
        (NF / "nf-vrf-conntrack-dflt-qdisc.mbox", "--tree", "net"),
    ]
    for args in cases:
        res = cli("triage", *args)
        assert res.code == 2 and res.err.count("\n") == 1 and "Traceback" not in res.err, (args, res.err)
    res = cli("triage")
    assert res.code == 2 and "nothing to triage" in res.err


def test_non_mail_files_in_a_directory_are_skipped(tmp_path, cli):
    (tmp_path / "README").write_text("these are the threads of last week\n")
    (tmp_path / "a.mbox").write_bytes((NF / "nf-vrf-conntrack-dflt-qdisc.mbox").read_bytes())
    data = run(cli, tmp_path, "--format", "json").json
    assert data["totals"]["series"] == 1
    assert data["notes"] == [f"skipped a file that is not mail: {tmp_path / 'README'}: not a mail file (it does "
                             "not start with mail headers or an mbox `From ` line)"]


def test_progress_bar_on_stderr_only_when_asked(tmp_path, cli):
    archive = build_archive(tmp_path)
    assert run(cli, archive, "--format", "json", "--no-progress").err == ""
    res = run(cli, archive, "--format", "json", "--progress")
    assert "triage" in res.err and json.loads(res.out)["totals"]["series"] == 7


def test_series_that_cannot_be_built_is_listed_not_fatal(tmp_path, cli):
    cover_only_pull = Mail("[GIT PULL] Networking for v6.20", "Hi Linus,\n\nThe following changes ...\n")
    good = series_mails(1, cover=False, tree="net-next")
    archive = write(tmp_path, thread(cover_only_pull, domain="pull.example") + "\n" + thread(*good, domain="g.example"))
    data = run(cli, archive, "--format", "json").json
    assert data["totals"]["series"] == 1
    assert [s["subject"] for s in data["skipped"]] == ["[GIT PULL] Networking for v6.20"]
    assert data["skipped"][0]["reason"].startswith(f"{archive}: ")
    # the header counts it, so that its numbers add up to --store-info's and the progress bar's
    for fmt in ("text", "markdown", "html"):
        out = run(cli, archive, "--format", fmt).out
        assert "Triage of 1 series and 1 that could not be reviewed" in out, fmt
    # a gzip archive is unpacked into a scratch file; messages still name the file given
    gz = tmp_path / "archive.mbox.gz"
    gz.write_bytes(gzip.compress(archive.read_bytes()))
    data = run(cli, gz, "--format", "json").json
    assert data["skipped"][0]["reason"].startswith(f"{gz}: ")


def test_only_tags_a_profile_knows_as_trees_are_trees(tmp_path, cli):
    """`[PATCH AUTOSEL 5.10 1/2]` names no tree: check keeps its tags apart, and triage's tree
    list (the filter of the HTML page) holds only real trees."""
    from mailfactory import series_mails, thread, write

    stable = series_mails(2, tree="AUTOSEL 5.10", cover=False)
    net = series_mails(2, tree="net", cover=False, subjects={1: "bar: fix one", 2: "bar: fix two"})
    path = write(tmp_path, thread(*stable) + "\n" + thread(*net, domain="other.example.org"))
    data = cli("check", str(path), "--format", "json", "--msgid",
               "20261102100000.1000-0-jane@example.org").json
    assert data["series"]["tree"] is None and data["series"]["tags"] == ["AUTOSEL", "5.10"]
    report = cli("triage", str(path), "--format", "json").json
    assert report["trees"] == ["net"]
    # AUTOSEL is stable review: kept out of the queue, counted by kind
    assert [s["tree"] for s in report["series"]] == ["net"]
    assert report["totals"]["not_series"] == {"stable-review": 1}


def test_a_series_the_maintainers_marked_superseded_is_still_counted_as_a_series(tmp_path, cli):
    """totals.series counts what the progress bar and the store count: the series triaged; a
    superseded status set by a maintainer's reply is one of them (an earlier revision is not)."""
    patch = series_mails(1, cover=False, tree="wireless-next", subjects={1: "wifi: foo: fix bar"})
    patch[0].to = "linux-wireless@vger.kernel.org"
    answer = Mail("Re: " + patch[0].subject, "> x\n\nPatch set to Superseded.\n\n-- \nhttps://patchwork.kernel.org/"
                  "project/linux-wireless/patch/x/\n", sender="Kalle Valo <kvalo@kernel.org>",
                  in_reply_to="20261102100000.1000-0-jane@s.example")
    data = run(cli, write(tmp_path, thread(*patch, answer, domain="s.example")), "--format", "json").json
    assert data["counts"]["superseded"] == 1 and data["totals"]["series"] == 1


def test_html_says_each_reason_a_check_was_skipped_once(tmp_path, cli):
    """Twelve checks need a repository: the page says "no repository given" once and names them."""
    archive = write(tmp_path, thread(*series_mails(2, tree="net"), domain="h.example"))
    out = tmp_path / "report.html"
    res = cli("triage", str(archive), "--now", NOW, "--no-store", "--format", "html", "-o", str(out))
    assert res.code in (0, 1), res.err
    html = out.read_text()
    assert html.count("no repository given (use --repo PATH, or run inside one)") == 1
    assert "does-not-apply, " in html or "does-not-apply<" in html  # the checks are named after it
