"""The fixes-audit benchmark's repository generator and baseline at a small size: fixes-audit
and the per-tag NIPA-style baseline (rev-parse, log -1, merge-base --is-ancestor) must give the
same answers on a fast-import history with merges, an unmerged branch and planted bad tags."""

from __future__ import annotations

import importlib.util
import shutil

from conftest import ROOT


def _bench():
    spec = importlib.util.spec_from_file_location("bench_fixes_audit", ROOT / "benchmarks" / "bench_fixes_audit.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_audit_matches_the_per_tag_baseline(tmp_path, monkeypatch):
    bench = _bench()
    repo = tmp_path / "repo"
    repo.mkdir()
    planted = bench.generate(repo, 2500, 12, seed=3)
    assert planted["tags"] >= 150 and planted["unknown"] and planted["unmerged"] and planted["wrong_subject"]
    if not shutil.which("reviewtool"):
        monkeypatch.setattr(bench.shutil, "which", lambda name: None)
    mine, data = bench.ours(repo)
    theirs = bench.baseline(repo)
    assert mine == theirs
    rules = {v[2] for v in mine}
    assert rules == set(bench.RULES)
    assert data["audit"]["fixes_tags"] == planted["tags"]
    # merges are in the history (the topic branches), so ancestry is not just linear order
    merges = bench.git(repo, "rev-list", "--merges", "--count", "HEAD").strip()
    assert int(merges) >= 2


def test_sliced_scan_finds_the_same_commits(tmp_path, monkeypatch):
    """The per-core slices of a long range (forced small here) give what one git log gives."""
    from pathlib import Path

    from reviewtool.model.fixes import GREP_ERE as FIXES_GREP, GREP_PCRE as FIXES_GREP_PERL
    from reviewtool.context.history import scan
    from reviewtool.context.history.repository import History

    bench = _bench()
    repo = tmp_path / "repo"
    repo.mkdir()
    bench.generate(repo, 1200, 10, seed=5)
    monkeypatch.setattr(scan, "MIN_SLICE", 100)
    monkeypatch.setattr(scan.os, "cpu_count", lambda: 4)
    hist = History.open(Path(repo))
    try:
        sliced = scan.grep_commits(hist, "HEAD", FIXES_GREP, FIXES_GREP_PERL)
        single = hist.commits("HEAD", grep=FIXES_GREP)
        assert len(sliced) >= 100
        assert sorted(c.sha for c in sliced) == sorted(c.sha for c in single)
        assert {c.sha: c.message for c in sliced} == {c.sha: c.message for c in single}
    finally:
        hist.close()
