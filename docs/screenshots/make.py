#!/usr/bin/env python3
"""Make docs/screenshots/triage.png: the HTML triage report of a bundled archive, in headless Chromium.

    python3 docs/screenshots/make.py                 # rewrites docs/screenshots/triage.png
    python3 docs/screenshots/make.py --out /tmp/t.png --html /tmp/t.html

The archive is the netfilter-devel corpus in fixtures/ (35 real threads) and the bundled example
series, triaged as of a fixed `--now` (so the ages, and the picture, do not change from run to
run) with `--stale-days 5000` (so the corpus's old threads keep the status they had rather than
all being stale). The rows are sorted newest first, and the newest ready series is expanded to
its reasons, findings and patches. Nothing touches the network: the report is a self-contained file,
Chromium runs with its background networking off and a fresh profile, and chromedriver listens
on loopback. Needs the test extra (selenium) and Debian's chromium and chromium-driver, as the
test suite does (tests/run.sh installs them).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
INPUTS = ("fixtures/corpus/mbox/netfilter-devel", "fixtures/examples/net-foo-3-patches.mbox")  # from ROOT
NOW = "2026-11-09T12:00:00Z"  # a week after the example was posted
SIZE = (1200, 800)
CHROMIUM_FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync", "--no-first-run", "--hide-scrollbars")


def build_report(html: Path, scratch: Path) -> None:
    """`reviewtool triage` of the inputs as one HTML page, with no user config or cache. Run in the
    checkout so the page names the inputs by their paths in it (triage reads no repository unless
    given --repo)."""
    env = {**os.environ, "XDG_CACHE_HOME": str(scratch / "cache"), "XDG_CONFIG_HOME": str(scratch / "config"),
           "XDG_DATA_HOME": str(scratch / "data"), "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}
    cmd = [sys.executable, "-m", "reviewtool", "triage", *INPUTS, "--format", "html", "--output", str(html),
           "--now", NOW, "--stale-days", "5000", "--no-progress"]
    res = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True)
    if res.returncode not in (0, 1):  # 1: some series has error-level findings, as this archive does
        raise SystemExit(f"make.py: reviewtool triage failed ({res.returncode}): {res.stderr.strip()}")


def screenshot(html: Path, png: Path, scratch: Path) -> None:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By

    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    driver_path = shutil.which("chromedriver")
    if not (chromium and driver_path):
        raise SystemExit("make.py: needs chromium and chromedriver (Debian: chromium, chromium-driver)")
    opts = webdriver.ChromeOptions()
    opts.binary_location = chromium
    for arg in CHROMIUM_FLAGS + (f"--user-data-dir={scratch / 'profile'}", f"--window-size={SIZE[0]},{SIZE[1]}"):
        opts.add_argument(arg)
    driver = webdriver.Chrome(service=Service(driver_path), options=opts)
    try:
        # The viewport, not the window, is what the PNG holds: make it exactly SIZE.
        driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                               {"width": SIZE[0], "height": SIZE[1], "deviceScaleFactor": 1, "mobile": False})
        driver.get(html.as_uri())
        driver.execute_script("document.body.style.zoom = '0.8'")  # more rows in the picture
        driver.find_element(By.CSS_SELECTOR, 'th[data-key="age"] button').click()  # newest first
        ready = driver.find_element(By.CSS_SELECTOR, '#triage > tbody.series[data-status="ready"]')
        ready.find_element(By.CSS_SELECTOR, "button.toggle").click()  # the newest ready series: short
        png.parent.mkdir(parents=True, exist_ok=True)
        if not driver.save_screenshot(str(png)):
            raise SystemExit(f"make.py: Chromium could not write {png}")
    finally:
        driver.quit()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=Path(__file__).with_name("triage.png"), help="the PNG to write")
    ap.add_argument("--html", type=Path, help="also keep the HTML report here")
    args = ap.parse_args(argv)
    scratch = Path(tempfile.mkdtemp(prefix="reviewtool-screenshot-"))
    try:
        html = args.html or scratch / "triage.html"
        build_report(html.resolve(), scratch)
        screenshot(html.resolve(), args.out.resolve(), scratch)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    print(args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
