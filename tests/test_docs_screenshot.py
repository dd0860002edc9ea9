"""docs/screenshots/make.py still makes the picture of docs/triage.md: the triage HTML report of
the bundled archive, in headless Chromium, as a 1200x800 PNG (no network: see the script)."""

from __future__ import annotations

import re
import shutil
import struct
import subprocess
import sys
import zlib

import pytest

from conftest import ROOT

SCRIPT = ROOT / "docs" / "screenshots" / "make.py"

pytestmark = pytest.mark.skipif(
    not ((shutil.which("chromium") or shutil.which("chromium-browser")) and shutil.which("chromedriver")),
    reason="chromium and chromium-driver are not installed (tests/run.sh installs them)")


def png_pixels(data: bytes) -> tuple[int, int, bytes]:
    """(width, height, the decompressed scanlines) of a PNG, without an imaging library."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, size = 8, b"", None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        chunk = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            size = struct.unpack(">II", chunk[:8])
        elif kind == b"IDAT":
            idat += chunk
        pos += 12 + length
    assert size is not None
    return size[0], size[1], zlib.decompress(idat)


def test_script_makes_the_triage_screenshot(tmp_path):
    pytest.importorskip("selenium")
    png, html = tmp_path / "triage.png", tmp_path / "triage.html"
    res = subprocess.run([sys.executable, str(SCRIPT), "--out", str(png), "--html", str(html)],
                         cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr
    page = html.read_text(encoding="utf-8")
    assert re.search(r"<title>reviewtool triage: [2-9][0-9] series</title>", page)  # the corpus's threads
    assert "mlx-foo: fix queue teardown" in page  # and the bundled example
    width, height, pixels = png_pixels(png.read_bytes())
    assert (width, height) == (1200, 800)
    assert len(set(pixels)) > 50  # a rendered page, not a blank or single-colour image
    committed = png_pixels((ROOT / "docs" / "screenshots" / "triage.png").read_bytes())
    assert committed[:2] == (1200, 800)  # the picture docs/triage.md shows is the script's size


def test_docs_triage_page_shows_the_screenshot():
    page = (ROOT / "docs" / "triage.md").read_text(encoding="utf-8")
    assert "](screenshots/triage.png)" in page and "docs/screenshots/make.py" in page
