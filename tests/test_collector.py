"""collector.paused and settle: the collector is off only inside, and back as it was after."""

import gc

import pytest

from reviewtool.collector import paused, settle


def test_paused_block_and_function_restore_the_collector():
    assert gc.isenabled()
    with paused():
        assert not gc.isenabled()
    assert gc.isenabled()

    @paused()
    def inside() -> bool:
        return gc.isenabled()

    assert inside() is False
    assert gc.isenabled()


def test_paused_restores_after_an_exception_and_keeps_a_disabled_collector_disabled():
    with pytest.raises(ValueError):
        with paused():
            raise ValueError("x")
    assert gc.isenabled()
    gc.disable()
    try:
        with paused():
            pass
        assert not gc.isenabled()  # it was off before: paused does not turn it on
    finally:
        gc.enable()


def test_settle_takes_what_exists_out_of_the_collectors_reach():
    gc.unfreeze()
    try:
        kept = [[i] for i in range(1000)]
        settle()
        assert gc.get_freeze_count() >= len(kept)
        assert gc.isenabled()
    finally:
        gc.unfreeze()


def test_a_triage_run_gives_back_what_it_settled(cli, tmp_path, monkeypatch):
    from pathlib import Path

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    gc.unfreeze()
    example = Path(__file__).resolve().parents[1] / "fixtures" / "examples" / "net-foo-3-patches.mbox"
    res = cli("triage", str(example), "-f", "json", "--no-progress")
    assert res.code in (0, 1), res.err
    assert gc.get_freeze_count() == 0  # a test runner, or any process that goes on, collects again
