"""Release calendar: merge-window state from the shipped table and from a repository's tags."""

from datetime import datetime, timezone

from gitrepo import GitRepo
from mailfactory import series_mails, thread, write

from reviewtool.context.calendar import load_calendar, merge_boundaries, shipped_table, tag_boundaries


def at(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=timezone.utc)


def state(text: str, repo=None):
    calendar, notes = load_calendar(repo)
    return calendar.state_at(at(text))


def test_table_covers_every_release_from_4_19():
    table = shipped_table()
    versions = {str(b.version) for b in table if b.kind == "release"}
    assert {"4.19", "5.0", "6.1", "7.2"} <= versions
    assert "7.3" not in versions  # the row exists but its dates are unknown


def test_closed_between_release_and_rc1_open_after():
    # 6.19 window: v6.18 (2025-11-30) to v6.19-rc1 (2025-12-14).
    s = state("2025-12-05T12:00")
    assert s.status == "closed" and s.window_version == "6.19"
    assert (s.opened_by.tag, s.closes_at.tag) == ("v6.18", "v6.19-rc1")
    assert state("2025-12-20T12:00").status == "open"
    assert state("2025-11-20T12:00").status == "open"
    # 4.20 -> 5.0: the window across a major version bump.
    assert state("2018-12-30T12:00").status == "closed"


def test_boundary_days_are_uncertain():
    assert state("2025-11-30T01:00").status == "uncertain"  # the v6.18 tag day
    assert state("2025-12-14T23:00").status == "uncertain"  # the v6.19-rc1 tag day
    # 6.7-rc1 is marked '?' (2023-11-13?): uncertain a day either side, open after.
    assert state("2023-11-12T12:00").status == "uncertain"
    assert state("2023-11-14T12:00").status == "uncertain"
    assert state("2023-11-15T12:00").status == "open"


def test_unknown_after_the_last_known_release_and_before_the_first():
    s = state("2026-08-20T12:00")  # after v7.2 (2026-08-16); 7.3-rc1 is not in the table
    assert s.status == "unknown" and "v7.2" in s.why
    assert state("2030-01-01T00:00").status == "unknown"
    assert state("2018-01-01T00:00").status == "unknown"


def _kernel_tags(tmp_path, tags: dict[str, str]) -> GitRepo:
    r = GitRepo(tmp_path / "linux")
    for name, when in tags.items():
        env = {"GIT_COMMITTER_DATE": when, "GIT_AUTHOR_DATE": when}
        r.git("commit", "-q", "--allow-empty", "-m", name, env=env)
        r.git("tag", "-a", "-m", name, name, env=env)
    return r


def test_repository_tags_extend_the_calendar(tmp_path):
    r = _kernel_tags(tmp_path, {"v7.2": "2026-08-16T20:01:00+00:00", "v7.3-rc1": "2026-08-30T21:30:00+00:00"})
    s = state("2026-08-20T12:00", r.path)
    assert s.status == "closed" and s.window_version == "7.3" and s.closes_at.source == "tag"
    # Tags are timestamps: the boundary day is no longer uncertain.
    assert state("2026-08-30T20:00", r.path).status == "closed"
    assert state("2026-08-30T22:00", r.path).status == "open"
    # v7.3 is not tagged yet: open for the weeks of -rcN that always follow an -rc1, then unknown.
    assert state("2026-09-05T00:00", r.path).status == "open"
    assert state("2026-11-01T00:00", r.path).status == "unknown"


def test_tags_that_disagree_with_the_table_are_ignored(tmp_path):
    r = _kernel_tags(tmp_path, {"v7.2": "2020-01-01T00:00:00+00:00", "v7.3-rc1": "2020-01-14T00:00:00+00:00"})
    calendar, notes = load_calendar(r.path)
    assert calendar.source == "shipped table"
    assert any("v7.2" in n and "disagrees" in n for n in notes)
    other = _kernel_tags(tmp_path / "other", {"v1.2": "2020-01-01T00:00:00+00:00"})
    calendar, notes = load_calendar(other.path)
    assert calendar.source == "shipped table" and any("do not overlap" in n for n in notes)


def test_merge_keeps_rc1_dontuse_tag():
    tags = tag_boundaries(["v5.12-rc1-dontuse 2021-03-01T00:00:00+00:00", "v5.12 2021-04-25T22:00:00+00:00"])
    assert [(b.tag, b.source) for b in tags] == [("v5.12-rc1", "tag"), ("v5.12", "tag")]
    merged, why = merge_boundaries(shipped_table(), tags)
    assert why is None and any(b.source == "tag" for b in merged)


def _net_next_series(tmp_path, date: datetime, tree: str = "net-next", rfc: bool = False):
    mails = series_mails(2, tree=("RFC " if rfc else "") + tree, cover=True)
    return write(tmp_path, thread(*mails, start=date), f"{tree}-{date:%Y%m%d}.mbox")


def test_net_next_closed_from_the_shipped_table(tmp_path, check_json):
    inside = check_json(_net_next_series(tmp_path, at("2026-02-10T09:00")))  # 7.0 window
    hit = next(f for f in inside.json["findings"] if f["rule"] == "net-next-closed")
    assert hit["severity"] == "error" and hit["patch"] is None
    assert "net-next was closed" in hit["message"] and "v6.19 (2026-02-08)" in hit["message"]
    assert "v7.0-rc1 (2026-02-22)" in hit["message"] and "[PATCH net-next] after v7.0-rc1" in hit["advice"]
    assert inside.json["verdict"]["status"] == "needs-revision"
    assert inside.json["verdict"]["decided_by"] == "net-next-closed"
    after = check_json(_net_next_series(tmp_path, at("2026-03-02T09:00")))
    assert "net-next-closed" not in after.rules()


def test_rfc_and_fix_trees_are_exempt(tmp_path, check_json):
    rfc = check_json(_net_next_series(tmp_path, at("2026-02-10T09:00"), rfc=True))
    assert "net-next-closed" not in rfc.rules()
    fixes = check_json(_net_next_series(tmp_path, at("2026-02-10T09:00"), tree="net"))
    assert "net-next-closed" not in fixes.rules()


def test_closed_policy_is_profile_data(tmp_path, check_json):
    # bpf-next follows the merge window; iproute2-next does not close.
    assert "net-next-closed" in check_json(_net_next_series(tmp_path, at("2026-02-10T09:00"), "bpf-next")).rules()
    assert "net-next-closed" not in check_json(
        _net_next_series(tmp_path, at("2026-02-10T09:00"), "iproute2-next")).rules()


def test_unknown_state_is_a_note_not_a_finding(tmp_path, check_json, cli):
    mbox = _net_next_series(tmp_path, at("2026-08-20T09:00"))
    res = check_json(mbox)
    assert "net-next-closed" not in res.rules()
    assert any("net-next-closed" in n and "unknown" in n for n in res.json["summary"]["notes"])
    # With the repository's mainline tags the answer becomes known.
    r = _kernel_tags(tmp_path, {"v7.2": "2026-08-16T20:01:00+00:00", "v7.3-rc1": "2026-08-30T21:30:00+00:00"})
    with_repo = cli("check", str(mbox), "--format", "json", "--repo", str(r.path))
    assert with_repo.code == 1, with_repo.err
    hit = next(f for f in with_repo.json["findings"] if f["rule"] == "net-next-closed")
    assert "v7.3-rc1" in hit["message"]


def test_a_projects_own_v6_1_tag_is_no_note_on_every_run(tmp_path, cli):
    """lint in a repository whose v6.1 is its own release (not mainline's): the table decides,
    silently, as it does without a repository."""
    from lintrepo import add_driver_history, kernel_repo, work_branch

    repo = kernel_repo(tmp_path / "proj")
    repo.git("tag", "v6.1")
    work_branch(repo, fixes_target=add_driver_history(repo))
    for _ in range(2):
        res = cli("lint", "--repo", str(repo.path), "--format", "json")
        assert not [n for n in res.json["summary"]["notes"] if n.startswith("calendar:")]


QUEUE_CLOSES = """\
name = "lab"
lists = ["netdev@vger.kernel.org"]

[[trees]]
name = "net-next"
kind = "development"
closed_in_merge_window = true

[[subtrees]]
name = "lab-next"
feeds = "net-next"
closed_in_merge_window = true

[[subtrees]]
name = "lab-queue"
feeds = "net-next"
"""


def test_a_queue_feeding_net_next_collects_in_the_window(tmp_path, check_json, cli):
    # [PATCH iwl-next] goes to the Intel maintainers' queue: they keep collecting while net-next
    # is closed and send it on afterwards; the same patch for net-next itself is refused.
    queue = check_json(_net_next_series(tmp_path, at("2026-02-10T09:00"), "iwl-next"))
    assert "net-next-closed" not in queue.rules()
    assert not any("net-next-closed" in n for n in queue.json["summary"]["notes"])
    assert "net-next-closed" in check_json(_net_next_series(tmp_path, at("2026-02-10T09:00"), "net-next")).rules()
    # Whether a queue closes with the tree it feeds is profile data.
    prof = tmp_path / "lab.toml"
    prof.write_text(QUEUE_CLOSES)
    closing = cli("check", str(_net_next_series(tmp_path, at("2026-02-10T09:00"), "lab-next")),
                  "--format", "json", "--profile", str(prof))
    assert "net-next-closed" in {f["rule"] for f in closing.json["findings"]}
    open_queue = cli("check", str(_net_next_series(tmp_path, at("2026-02-10T09:00"), "lab-queue")),
                     "--format", "json", "--profile", str(prof))
    assert "net-next-closed" not in {f["rule"] for f in open_queue.json["findings"]}
