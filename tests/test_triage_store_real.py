"""The result store on whole real stretches of a list (../shared/corpus/lists/): cold, warm,
appended and with one mail changed, each run gives the JSON a run without the store gives.

The generated archives of test_triage_store.py hold the shapes we thought of; a real half year
of linux-wireless holds the ones we did not (a v3 that kept v1's cover letter and v2's first
patch grouped differently with the store until the grouping stopped depending on hash order).
Every run is its own process with its own string-hash seed, as separate runs are.

Slow (three full reviews of the June-November stretch, about two minutes on two cores), and part
of the default suite: CI has ../shared beside the checkout. Without it the tests are skipped,
saying so.
"""

from __future__ import annotations

import gzip
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT

LISTS = ROOT.parent / "shared" / "corpus" / "lists"
STRETCHES = sorted(LISTS.glob("*.mbox.gz")) if LISTS.is_dir() else []
NOW = {"linux-wireless-2022-06_2022-11": "2022-12-01T00:00:00Z", "linux-wireless-2024-03": "2024-04-01T00:00:00Z"}
SEPARATOR = b"\nFrom mboxrd@z "

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(not STRETCHES, reason=f"{LISTS} is absent: the real list stretches live in "
                                                       "../shared beside the checkout (CI has it)")]


def _triage(path: Path, seed: int, *args: str) -> tuple[bytes, str]:
    env = {**os.environ, "PYTHONHASHSEED": str(seed)}
    stem = path.name.split(".mbox")[0]
    proc = subprocess.run([sys.executable, "-m", "reviewtool", "triage", str(path), "--format", "json",
                           "--jobs", "2", "--now", NOW.get(stem, "2026-01-01T00:00:00Z"), *args],
                          capture_output=True, env=env)
    assert proc.returncode in (0, 1), proc.stderr.decode()
    return proc.stdout, proc.stderr.decode()


def _mails(data: bytes) -> list[bytes]:
    """The mboxrd's mails, each with its `From ` line (public-inbox quotes body `From ` lines)."""
    assert data.startswith(SEPARATOR[1:])
    parts = data.split(SEPARATOR)
    mails = [parts[0]] + [SEPARATOR[1:] + p for p in parts[1:]]
    mails = [m + b"\n" for m in mails[:-1]] + mails[-1:]
    assert b"".join(mails) == data
    return mails


def _changed(mails: list[bytes]):
    """Patches from the middle of the stretch, each given a Reviewed-by (its series' review
    changes), one at a time: (the mails with that one changed, its index). A list's own prefix
    (`[Intel-wired-lan] [PATCH ...]`) may stand before the patch's."""
    for i in range(len(mails) // 2, len(mails)):
        head, _, body = mails[i].partition(b"\n\n")
        subject = next((line for line in head.split(b"\n") if line.startswith(b"Subject: ")), b"")
        if b"[PATCH" in subject and not subject[9:].lower().startswith(b"re:") and b"\nSigned-off-by: " in body:
            body = body.replace(b"\nSigned-off-by: ", b"\nReviewed-by: Rita Reviewer <rita@example.org>"
                                                      b"\nSigned-off-by: ", 1)
            yield mails[:i] + [head + b"\n\n" + body] + mails[i + 1:], i


@pytest.mark.parametrize("stretch", STRETCHES, ids=lambda p: p.name.split(".mbox")[0])
def test_store_gives_the_no_store_json_on_a_real_stretch(tmp_path, stretch):
    # One path throughout (the report names its input): the gzip as given, then the plain mbox
    # of its first nine tenths, grown to the whole, then with one mail changed.
    path = tmp_path / stretch.name.removesuffix(".gz")
    store = tmp_path / "store.sqlite"
    path.write_bytes(stretch.read_bytes())
    whole, _ = _triage(path, 0, "--no-store")

    cold, err = _triage(path, 3, "--store", str(store), "--store-info")
    assert cold == whole, "cold store run differs from --no-store"
    assert " 0 series reused" in err
    warm, err = _triage(path, 5, "--store", str(store), "--store-info")
    assert warm == whole, "warm store run differs from --no-store"
    assert " 0 reviewed" in err or " 1 reviewed" in err  # a skipped series naming its file is not kept

    mails = _mails(gzip.decompress(stretch.read_bytes()))
    cut = len(mails) * 9 // 10
    path.write_bytes(b"".join(mails[:cut]))
    _triage(path, 7, "--store", str(store))
    with open(path, "ab") as fh:
        fh.write(b"".join(mails[cut:]))
    grown, err = _triage(path, 11, "--store", str(store), "--store-info")
    assert grown == whole, "store run after mails were appended differs from --no-store"
    assert "1 read from where the last run stopped" in err

    # a changed patch of a series that the report shows (not stable review kept out of the queue, not
    # a superseded revision): the first of a few that changes the JSON
    for tries, (changed, at) in enumerate(_changed(mails)):
        path.write_bytes(b"".join(changed))
        expected, _ = _triage(path, 13, "--no-store")
        if expected != whole or tries == 4:
            break
    assert expected != whole, f"changing mail {at} changed nothing: the test would prove nothing"
    got, err = _triage(path, 17, "--store", str(store), "--store-info")
    assert got == expected, f"store run after mail {at} changed differs from --no-store"
    assert "1 read whole" in err
