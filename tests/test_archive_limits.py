"""No ceiling on an archive's size (issue 29): limits bound one mail, one thread, one series and the
memory of a run (the mails it indexes), never an archive file; a limit that trips says what it left
out, on stderr and in the output, in every command that reads archives (triage, check, profile
learn). Archives are made of the project's own mails and kept small: the limits are set low."""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT
from mailfactory import Mail, hunk_diff, patch_body, series_mails, thread, write
from test_triage_status import NOW, RULES


def _text(seed: str, lines: int) -> str:
    """Lines of prose that compress as mail does (a few times, not a thousand)."""
    return "".join(f"The bar path forgets flag {hashlib.sha256(f'{seed}/{j}'.encode()).hexdigest()[:24]} "
                   "on the way out.\n" for j in range(lines))


def _archive(tmp_path: Path, n: int = 40, name: str = "list.mbox") -> Path:
    """`n` three-patch series with a cover letter (4n mails), each its own change, over 2 MB."""
    def long(k: int) -> str:
        return patch_body(message="Fix the bar path.\n\n" + _text(f"{name}{k}", 300),
                          diff=hunk_diff(f"drivers/net/foo{k}.c", ["int a;"], [f"int a{k};"]))
    parts = [thread(*series_mails(3, subjects={i: f"foo: change {i} of {k}" for i in (1, 2, 3)},
                                  bodies={i: long(k) for i in (1, 2, 3)}), domain=f"s{k}.example") for k in range(n)]
    return write(tmp_path, "\n".join(parts), name)


def _triage(cli, path: Path, *extra: str):
    res = cli("triage", path, *RULES, "--format", "json", "--now", NOW, "--no-store", *extra)
    assert res.code in (0, 1), res.err
    return res


def _series(res) -> set[int]:
    """The numbers of the series reported (each series' mails come from s<N>.example)."""
    return {int(s["msgid"].rsplit("@s", 1)[1].split(".")[0]) for s in res.json["series"]}


def test_the_old_input_limit_caps_no_archive(tmp_path, cli, monkeypatch):
    """REVIEWTOOL_MAX_INPUT_MB, the 256 MB ceiling that stopped triage and learn half-way through a
    four-year archive, is gone: set to 1 MB, a 2.5 MB archive is still read whole, by every command."""
    archive = _archive(tmp_path)
    assert archive.stat().st_size > 2 << 20
    whole = _triage(cli, archive)
    monkeypatch.setenv("REVIEWTOOL_MAX_INPUT_MB", "1")
    res = _triage(cli, archive)
    assert res.json["totals"]["series"] == whole.json["totals"]["series"] == 40
    assert "REVIEWTOOL" not in res.err and not res.json["notes"]
    gz = tmp_path / "list.mbox.gz"
    gz.write_bytes(gzip.compress(archive.read_bytes()))
    assert _triage(cli, gz).json["totals"]["series"] == 40
    big = write(tmp_path, archive.read_text() + "\n" + _archive(tmp_path, 40, "b.mbox").read_text().replace(
        "@s", "@t"), "big.mbox")  # over 4 MB: check narrows it by its headers, whatever its size
    last = "20261102100000.1000-0-jane@t39.example"  # the cover letter of the file's last series
    res = cli("check", big, "--msgid", last, "--format", "json")
    assert res.code in (0, 1) and not res.err and res.json["series"]["msgid"] == last


def test_a_run_keeps_the_newest_mails_and_says_how_many_it_left_out(tmp_path, cli, monkeypatch):
    archive = _archive(tmp_path)
    whole = _triage(cli, archive)
    monkeypatch.setenv("REVIEWTOOL_MAX_ARCHIVE_MAILS", "60")  # 15 of the 40 series' 160 mails
    res = _triage(cli, archive)
    assert res.json["totals"]["series"] == 15
    assert _series(whole) == set(range(40)) and _series(res) == set(range(25, 40))
    said = [n for n in res.json["notes"] if "REVIEWTOOL_MAX_ARCHIVE_MAILS" in n]
    assert said == ["the archives hold 160 mails, over the limit of 60 a run (REVIEWTOOL_MAX_ARCHIVE_MAILS): "
                    "the 100 read first (the oldest) were left out"]
    assert [line for line in res.err.splitlines() if "REVIEWTOOL" in line] == [f"reviewtool: {said[0]}"]
    text = cli("triage", archive, *RULES, "--now", NOW, "--no-store")
    assert said[0] in " ".join(text.out.split())  # the text report says it too


def test_check_says_what_the_limit_left_out_of_a_large_archive(tmp_path, cli, monkeypatch):
    archive = _archive(tmp_path, 70)  # over 4 MB: narrowed by its headers
    assert archive.stat().st_size > 4 << 20
    monkeypatch.setenv("REVIEWTOOL_MAX_ARCHIVE_MAILS", "100")
    res = cli("check", archive, "--format", "json")
    assert res.code in (0, 1)
    line = ("the archives hold 280 mails, over the limit of 100 a run (REVIEWTOOL_MAX_ARCHIVE_MAILS): "
            "the 180 read first (the oldest) were left out")
    assert res.err == f"reviewtool: {line}\n"
    assert line in res.json["summary"]["notes"]
    gone = cli("check", archive, "--msgid", "20261102100000.1000-0-jane@s0.example")
    assert gone.code == 2 and "is not in the input" in gone.err


def test_a_gzip_expands_no_further_than_its_bound_and_says_so(tmp_path, cli, monkeypatch):
    archive = _archive(tmp_path)
    gz = tmp_path / "list.mbox.gz"
    gz.write_bytes(gzip.compress(archive.read_bytes()))
    monkeypatch.setenv("REVIEWTOOL_MAX_GZIP_RATIO", "2")  # a megabyte at least: about 17 of the 40
    res = _triage(cli, gz)
    assert 0 < res.json["totals"]["series"] < 40
    said = [n for n in res.json["notes"] if "REVIEWTOOL_MAX_GZIP_RATIO" in n]
    assert said == [f"{gz} decompresses to more than 2 times its size (REVIEWTOOL_MAX_GZIP_RATIO): only the mails "
                    "in its first 1 MB were read"]
    assert sum("REVIEWTOOL_MAX_GZIP_RATIO" in line for line in res.err.splitlines()) == 1
    stored = cli("triage", gz, *RULES, "--format", "json", "--now", NOW, "--store", tmp_path / "s.sqlite")
    again = cli("triage", gz, *RULES, "--format", "json", "--now", NOW, "--store", tmp_path / "s.sqlite")
    assert stored.out == again.out == res.out  # said on every run: a cut gzip is never kept as whole
    assert "REVIEWTOOL_MAX_GZIP_RATIO" in again.err


def test_profile_learn_says_what_a_limit_left_out(tmp_path, cli, monkeypatch):
    archive = _archive(tmp_path)
    monkeypatch.setenv("REVIEWTOOL_MAX_ARCHIVE_MAILS", "60")
    res = cli("profile", "learn", archive)
    assert res.code == 0, res.err
    line = ("the archives hold 160 mails, over the limit of 60 a run (REVIEWTOOL_MAX_ARCHIVE_MAILS): the 100 read "
            "first (the oldest) were left out")
    assert f"reviewtool: {line}" in res.err.splitlines()
    assert f"Left out: {line}." in " ".join(l.lstrip("# ") for l in res.out.splitlines() if l.startswith("#"))
    assert "from list.mbox: 60 messages" in res.out


# The peak of this process's own memory (VmHWM: kept per address space, not the test's).
_PEAK = """
import sys
from reviewtool.cli import main
code = main(sys.argv[1:])
peak = [l.split()[1] for l in open("/proc/self/status") if l.startswith("VmHWM:")][0]
print(code, int(peak) // 1024, file=sys.stderr)
"""


def _peak(args: list[str]) -> tuple[int, int]:
    proc = subprocess.run([sys.executable, "-c", _PEAK, *map(str, args)], capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    code, peak = proc.stderr.split()[-2:]
    return int(code), int(peak)


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="measures memory through /proc (Linux)")
def test_memory_does_not_grow_with_the_archive_bytes(tmp_path):
    """The same 40 series, alone (2.6 MB) and among 40 threads of a 1 MB log each: the archive is
    indexed from the file, its pages let go as the scan passes (sources/bodies.py), so the run's
    peak memory does not follow the 40 MB more."""
    small = _archive(tmp_path, 40, "small.mbox")
    logs = [thread(Mail(f"kernel log of boot {k}", _text(f"log{k}", 16000)), domain=f"log{k}.example")
            for k in range(40)]
    big = write(tmp_path, small.read_text() + "\n" + "\n".join(logs), "big.mbox")
    assert big.stat().st_size - small.stat().st_size > 40 << 20
    runs = {}
    for p in (small, big):
        code, peak = _peak(["triage", p, *RULES, "--format", "json", "--now", NOW, "--no-store", "--jobs", "1",
                            "-o", tmp_path / f"{p.stem}.json"])
        assert code in (0, 1)
        runs[p.stem] = peak
    assert runs["big"] - runs["small"] < 10, runs  # MB, against 40 MB more archive
    reports = [json.loads((tmp_path / f"{p.stem}.json").read_text())["totals"] for p in (small, big)]
    assert [r["series"] for r in reports] == [40, 40] and reports[1]["other_threads"] == 40
