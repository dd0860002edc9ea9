"""The triage result store: a run reuses exactly the reviews whose mails, options and repository
are unchanged, writes the JSON a --no-store run writes, and never fails for its store.

Real archives (mailfactory, the status archive), real git repositories, a real SQLite file; which
series a run reviewed is read from the store's rows (each says the run that wrote it)."""

from __future__ import annotations

import os
import re
import sqlite3
import subprocess
import sys
from contextlib import closing
from datetime import timedelta
import json
from pathlib import Path

import pytest

from conftest import CORPUS, ROOT
from mailfactory import Mail, thread
from test_triage_status import NOW, RULES, T0, build_archive, cover_id, patch_id, reply

COUNTS_RE = re.compile(r"([\d,]+) series reused, ([\d,]+) reviewed")


def stored_run(cli, store: Path, *args, now: str = NOW):
    """(result, reused, reviewed) of a run with the store."""
    res = cli("triage", *map(str, args), "--format", "json", "--now", now, "--store", str(store), "--store-info")
    assert res.code in (0, 1), res.err
    m = COUNTS_RE.search(res.err)
    assert m, res.err
    return res, int(m.group(1).replace(",", "")), int(m.group(2).replace(",", ""))


def fresh(cli, *args, now: str = NOW, fmt: str = "json") -> str:
    res = cli("triage", *map(str, args), "--format", fmt, "--now", now, "--no-store")
    assert res.code in (0, 1), res.err
    return res.out


def reviewed_last(store: Path) -> list[str]:
    """The message-ids of the series the last run reviewed (and stored)."""
    with closing(sqlite3.connect(store)) as db:
        run = db.execute("SELECT value FROM meta WHERE name = 'runs'").fetchone()[0]
        return sorted(r[0] for r in db.execute("SELECT msgid FROM reviews WHERE run = ? AND key NOT LIKE 'grouping:%' "
                                               "AND key NOT LIKE 'pulled:%'",
                                               (int(run),)))


def triaged(report) -> int:
    return report["totals"]["series"] + report["totals"]["skipped"]


def edit_mail(path: Path, subject: str, old: str, new: str) -> None:
    """Replace `old` by `new` in the one mail whose subject is `subject`."""
    text = path.read_text()
    head = text.index(f"Subject: {subject}\n")
    end = text.find("From mboxrd@z", head)
    end = len(text) if end < 0 else end
    assert old in text[head:end]
    path.write_text(text[:head] + text[head:end].replace(old, new, 1) + text[end:])


@pytest.fixture
def archive(tmp_path):
    return build_archive(tmp_path)


def test_a_warm_run_reuses_every_review_and_writes_the_same_json(tmp_path, cli, archive):
    store = tmp_path / "store.sqlite"
    cold, reused, reviewed = stored_run(cli, store, archive, *RULES)
    assert (reused, reviewed) == (0, triaged(cold.json)) and reviewed == 7
    warm, reused, reviewed = stored_run(cli, store, archive, *RULES)
    assert (reused, reviewed) == (7, 0)
    assert warm.out == cold.out == fresh(cli, archive, *RULES)
    assert warm.code == cold.code == 1  # the exit code comes from the reused reviews too
    assert "1 read from where the last run stopped, 0 read whole" in warm.err


def test_a_byte_changed_in_one_patch_reviews_that_series_only(tmp_path, cli, archive):
    store = tmp_path / "store.sqlite"
    stored_run(cli, store, archive, *RULES)
    edit_mail(archive, "[PATCH net-next 1/2] quiet: change 1", "bar(dev, 0)", "bar(dev, 1)")  # same length
    res, reused, reviewed = stored_run(cli, store, archive, *RULES)
    assert (reused, reviewed) == (6, 1)
    assert reviewed_last(store) == [cover_id("quiet.example")]
    assert "0 read from where the last run stopped, 1 read whole" in res.err  # changed in the middle
    assert res.out == fresh(cli, archive, *RULES)


def test_a_new_reply_reviews_the_series_it_answers_only(tmp_path, cli, archive):
    store = tmp_path / "store.sqlite"
    before, _, _ = stored_run(cli, store, archive, *RULES)
    ack = reply("Re: [PATCH net-next 1/2] quiet: change 1", "Acked-by: Mae Maintainer <mae@kernel.org>\n",
                patch_id("quiet.example", 1), who="Mae Maintainer <mae@kernel.org>", msgid="ack@mae.example",
                when=T0 + timedelta(hours=5))
    with open(archive, "a") as fh:
        fh.write("\n" + thread(ack, domain="mae.example"))
    res, reused, reviewed = stored_run(cli, store, archive, *RULES)
    assert (reused, reviewed) == (6, 1)
    assert reviewed_last(store) == [cover_id("quiet.example")]
    assert "1 read from where the last run stopped" in res.err
    assert res.out == fresh(cli, archive, *RULES) != before.out
    quiet = next(s for s in res.json["series"] if s["msgid"] == cover_id("quiet.example"))
    assert "Mae Maintainer <mae@kernel.org>" in quiet["reviewers"]


def test_a_new_revision_reviews_its_series_and_lists_the_old_one_as_superseded(tmp_path, cli, archive):
    from test_triage_status import series

    store = tmp_path / "store.sqlite"
    stored_run(cli, store, archive, *RULES)
    with open(archive, "a") as fh:
        fh.write("\n" + thread(*series("quiet", version=2), domain="quiet2.example", start=T0 + timedelta(days=1)))
    res, reused, reviewed = stored_run(cli, store, archive, *RULES)
    assert (reused, reviewed) == (6, 1)
    assert reviewed_last(store) == [cover_id("quiet2.example")]
    assert res.out == fresh(cli, archive, *RULES)
    assert any(s["status"] == "superseded" and s["msgid"] == cover_id("quiet.example") for s in res.json["series"])


def test_a_changed_option_reviews_again_and_report_time_options_do_not(tmp_path, cli, archive):
    store = tmp_path / "store.sqlite"
    stored_run(cli, store, archive, *RULES)
    _, reused, reviewed = stored_run(cli, store, archive, "--select", "series")
    assert (reused, reviewed) == (0, 7)
    later = "2026-12-30T00:00:00Z"  # everything not ready is stale by then: computed, not stored
    for args, now in [((*RULES, "--stale-days", "2"), NOW), ((*RULES, "--sort", "age"), NOW), (RULES, later),
                      ((*RULES, "--status", "stale"), later)]:
        res, reused, reviewed = stored_run(cli, store, archive, *args, now=now)
        assert (reused, reviewed) == (7, 0), args
        assert res.out == fresh(cli, archive, *args, now=now), args
    assert {s["status"] for s in res.json["series"]} == {"stale"}


@pytest.mark.parametrize("fmt", ["text", "markdown", "html", "patchwork"])
def test_every_format_is_the_same_from_the_store(tmp_path, cli, archive, fmt):
    store = tmp_path / "store.sqlite"
    args = ("triage", archive, *RULES, "--now", NOW, "--format", fmt, "--store", store)
    first, second = cli(*args), cli(*args)
    assert first.out == second.out == fresh(cli, archive, *RULES, fmt=fmt)


def _applies_repo(tmp_path):
    from gitrepo import GitRepo
    from test_triage_status import DEV_C, series

    repo = GitRepo(tmp_path / "repo")
    base = repo.commit("net: add dev.c", {"net/core/dev.c": DEV_C})
    repo.update_ref("refs/remotes/net-next/main", base)
    mails = series("applies", 1, cover=False)
    review = reply("Re: " + mails[0].subject, "Reviewed-by: Rita Reviewer <rita@example.org>\n",
                   cover_id("applies.example"), msgid="rv@rita.example")
    box = tmp_path / "applies.mbox"
    box.write_text(thread(*mails, domain="applies.example", start=T0) + "\n" + thread(review, domain="r")
                   + "\n" + thread(*series("other", 1, cover=False), domain="other.example", start=T0))
    return repo, box


def test_a_moved_tree_ref_reviews_again_what_was_read_with_that_repository(tmp_path, cli):
    repo, box = _applies_repo(tmp_path)
    store = tmp_path / "store.sqlite"
    rules = ("--select", "series", "--select", "signoff", "--select", "base")
    with_repo = (box, "--repo", repo.path, "--tree", "net-next=refs/remotes/net-next/main", *rules)
    stored_run(cli, store, box, *rules)  # the same archive without --repo: other keys
    first, _, reviewed = stored_run(cli, store, *with_repo)
    assert reviewed == 2 and first.json["counts"]["ready"] == 1
    _, reused, reviewed = stored_run(cli, store, *with_repo)
    assert (reused, reviewed) == (2, 0)
    moved = repo.commit("net: rework bar", repo.edit("net/core/dev.c", "bar(dev)", "baz(dev)"))
    repo.update_ref("refs/remotes/net-next/main", moved)  # the tree moved: the series no longer applies
    res, reused, reviewed = stored_run(cli, store, *with_repo)
    assert (reused, reviewed) == (0, 2)
    assert res.out == fresh(cli, *with_repo) and res.json["counts"]["ready"] == 0
    assert reviewed_last(store) == sorted([patch_id("applies.example", 0), patch_id("other.example", 0)])
    _, reused, reviewed = stored_run(cli, store, box, *rules)  # without --repo nothing moved
    assert (reused, reviewed) == (2, 0)


def _corrupt_truncated(path: Path) -> None:
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])


def _corrupt_garbage(path: Path) -> None:
    path.write_bytes(b"this is not a database\n" * 300)


def _newer_version(path: Path) -> None:
    with closing(sqlite3.connect(path)) as db:
        db.execute("PRAGMA user_version = 99")


def _other_program(path: Path) -> None:
    path.unlink()
    with closing(sqlite3.connect(path)) as db:
        db.execute("CREATE TABLE contacts (name TEXT)")
        db.commit()


@pytest.mark.parametrize("damage, says", [(_corrupt_truncated, "malformed"), (_corrupt_garbage, "not a database"),
                                          (_newer_version, "newer reviewtool"), (_other_program, "another program")])
def test_a_broken_store_is_said_in_one_line_and_the_run_goes_on(tmp_path, cli, archive, damage, says):
    store = tmp_path / "store.sqlite"
    for _ in range(2):  # a second run leaves reviews in the store's pages, not only in its WAL
        stored_run(cli, store, archive, *RULES)
    damage(store)
    before = store.read_bytes()
    res = cli("triage", archive, *RULES, "--format", "json", "--now", NOW, "--store", store)
    assert res.code == 1 and res.out == fresh(cli, archive, *RULES)
    (line,) = res.err.splitlines()
    assert line.startswith(f"reviewtool: result store {store}: ") and says in line and "without it" in line
    assert store.read_bytes() == before  # a store we cannot read is left as it is


def test_a_store_path_that_cannot_be_made_is_said_and_the_run_goes_on(tmp_path, cli, archive):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    res = cli("triage", archive, *RULES, "--format", "json", "--now", NOW, "--store", blocker / "s.sqlite")
    assert res.code == 1 and res.out == fresh(cli, archive, *RULES)
    assert len(res.err.splitlines()) == 1 and "result store" in res.err


HOLD_LOCK = """
import sqlite3, sys
db = sqlite3.connect(sys.argv[1], isolation_level=None)
db.execute("PRAGMA locking_mode = EXCLUSIVE")
db.execute("BEGIN EXCLUSIVE")
print("locked", flush=True)
sys.stdin.read()
"""


def test_a_store_locked_past_the_timeout_is_said_and_the_run_goes_on(tmp_path, cli, archive, monkeypatch):
    store = tmp_path / "store.sqlite"
    stored_run(cli, store, archive, *RULES)
    holder = subprocess.Popen([sys.executable, "-c", HOLD_LOCK, str(store)], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "locked"
        monkeypatch.setenv("REVIEWTOOL_STORE_TIMEOUT", "0.2")
        res = cli("triage", archive, *RULES, "--format", "json", "--now", NOW, "--store", store)
    finally:
        holder.communicate("")
    assert res.code == 1 and res.out == fresh(cli, archive, *RULES)
    (line,) = res.err.splitlines()
    assert "locked" in line and "without it" in line


def test_two_runs_at_once_leave_the_store_consistent(tmp_path, cli, archive):
    store = tmp_path / "store.sqlite"
    args = [sys.executable, "-m", "reviewtool", "triage", str(archive), *RULES, "--format", "json", "--now", NOW,
            "--store", str(store), "--jobs", "2"]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    runs = [subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
            for _ in range(2)]
    outs = [r.communicate() for r in runs]
    expected = fresh(cli, archive, *RULES)
    for (out, err), r in zip(outs, runs):
        assert r.returncode == 1 and err == "" and out == expected
    res, reused, reviewed = stored_run(cli, store, archive, *RULES)
    assert (reused, reviewed) == (7, 0) and res.out == expected
    with closing(sqlite3.connect(store)) as db:
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"


def test_a_store_that_answers_every_series_forks_no_workers(tmp_path, cli, archive, monkeypatch):
    """With a store taken to hold most reviews, --jobs 2 forks its workers only when the plan
    leaves series to review: none for a warm run, once for a run with one series changed; the
    JSON is a --no-store run's either way."""
    from contextlib import contextmanager

    from reviewtool.commands import triage as command
    from reviewtool.triage import run

    forks = []
    real = run.worker_pool

    @contextmanager
    def counted(opts, *a, **k):
        with real(opts, *a, **k) as pool:
            forks.append(pool is not None)
            yield pool

    monkeypatch.setattr(run, "worker_pool", counted)
    monkeypatch.setattr(command, "_has_reviews", lambda path: True)
    store = tmp_path / "store.sqlite"
    cold, _, reviewed = stored_run(cli, store, archive, *RULES, "--jobs", "2")
    assert reviewed == 7 and forks == [True]
    warm, reused, reviewed = stored_run(cli, store, archive, *RULES, "--jobs", "2")
    assert (reused, reviewed) == (7, 0) and forks == [True]
    edit_mail(archive, "[PATCH net-next 1/2] quiet: change 1", "bar(dev, 0)", "bar(dev, 1)")
    changed, reused, reviewed = stored_run(cli, store, archive, *RULES, "--jobs", "2")
    assert (reused, reviewed) == (6, 1) and forks == [True, True]
    monkeypatch.setattr(command, "_has_reviews", lambda path: False)
    assert changed.out == fresh(cli, archive, *RULES, "--jobs", "2") and warm.out == cold.out
    assert forks == [True, True, True]  # --no-store: forked before indexing, as without reviews


def test_reviews_do_not_depend_on_the_clock(cli):
    """The store keeps reviews across days: only the statuses triage derives from --now may differ."""
    def timeless(out: str):
        series = [{k: v for k, v in s.items() if k not in ("age_days", "idle_days", "status", "was", "next_step", "reasons")}
                  for s in __import__("json").loads(out)["series"]]
        return sorted(series, key=lambda s: s["id"])

    for box in sorted((CORPUS / "netfilter-devel").glob("*.mbox"))[:12]:
        assert timeless(fresh(cli, box, now="2021-01-01")) == timeless(fresh(cli, box, now="2031-01-01")), box


def test_store_info_alone_describes_the_store(tmp_path, cli, archive):
    store = tmp_path / "store.sqlite"
    stored_run(cli, store, archive, *RULES)
    res = cli("triage", "--store-info", "--store", store)
    assert res.code == 0, res.err
    assert f"result store {store}: 7 reviews, 1 indexed archive files" in res.out
    assert "last run: 0 series reused, 7 reviewed" in res.out
    bad = cli("triage", archive, "--store", store, "--no-store")
    assert bad.code == 2 and "choose one" in bad.err


def test_store_info_of_a_broken_store_is_an_input_error(tmp_path, cli):
    store = tmp_path / "store.sqlite"
    store.write_bytes(b"not sqlite at all\n" * 100)
    res = cli("triage", "--store-info", "--store", store)
    assert res.code == 2 and len(res.err.splitlines()) == 1 and "not a database" in res.err


def test_a_series_that_cannot_be_built_is_kept_and_still_names_its_archive(tmp_path, cli):
    """Its reason names the archive it is in; the stored review does not, so the store keeps it
    (it was reviewed again on every warm run) and the same archive under another name says so."""
    from mailfactory import series_mails, write

    pull = Mail("[GIT PULL] Networking for v6.20", "Hi Linus,\n\nThe following changes ...\n")
    archive = write(tmp_path, thread(pull, domain="pull.example") + "\n" + thread(*series_mails(1, cover=False)))
    store = tmp_path / "store.db"
    first, _, reviewed = stored_run(cli, store, archive)
    again, reused, reviewed_again = stored_run(cli, store, archive)
    assert (reviewed, reused, reviewed_again) == (2, 2, 0)
    assert again.out == first.out == fresh(cli, archive)
    assert json.loads(again.out)["skipped"][0]["reason"] == f"{archive}: b4 found no usable patch series in the thread"
    moved = tmp_path / "moved.mbox"
    moved.write_bytes(archive.read_bytes())
    res, _, reviewed_moved = stored_run(cli, store, moved)
    assert reviewed_moved == 0 and json.loads(res.out)["skipped"][0]["reason"].startswith(f"{moved}: ")
