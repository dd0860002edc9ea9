"""lint's range plan: the quick path (three git processes) decides what the careful path decides,
and hands over whenever it cannot be sure. Every case is a real repository."""

from __future__ import annotations

import pytest

from lintrepo import add_driver_history, kernel_repo, work_branch
from reviewtool.sources.b4prep import B4_MARKER
from reviewtool.sources.gitconfig import GitConfig
from reviewtool.sources.rangeplan import plan_range, quick_plan


@pytest.fixture
def repo(tmp_path):
    r = kernel_repo(tmp_path / "linux")
    work_branch(r, fixes_target=add_driver_history(r))
    return r


def same_plan(repo, revrange=None):
    quick = quick_plan(repo.path, revrange)
    assert quick is not None, f"{revrange}: the quick path handed over"
    assert quick.plan == plan_range(repo.path, revrange)
    listed = repo.git("rev-list", "--no-merges", quick.plan.rev_range).split()
    assert quick.commits == len(listed)
    return quick


def test_upstream_range_explicit_range_and_one_revision(repo):
    quick = same_plan(repo)
    assert quick.plan.base == repo.rev("main") and quick.plan.upstream == repo.rev("main")
    assert quick.commits == 3 and quick.merges == 0 and quick.plan.label == "@{upstream}..HEAD"
    assert same_plan(repo, "main..work").plan.label == "main..work"
    assert same_plan(repo, "HEAD~2").commits == 2
    assert same_plan(repo, "main..").plan.tip == repo.rev("HEAD")


def test_upstream_ahead_of_the_fork_point_gives_the_merge_base(repo):
    fork = repo.rev("main")
    repo.git("checkout", "-q", "main")
    repo.commit("net: core: later work on main\n", {"net/core/dev.c": "int dev2;\n"})
    repo.git("checkout", "-q", "work")
    quick = same_plan(repo)
    assert quick.plan.base == fork and quick.plan.upstream == repo.rev("main")


def test_branch_description_is_the_cover_only_for_the_branch_tip(repo):
    repo.git("config", "branch.work.description", "foo: three fixes\n\nThe body.\n")
    assert same_plan(repo).plan.cover.subject == "foo: three fixes"
    assert same_plan(repo, "main..HEAD~1").plan.cover is None


def test_a_merge_in_the_range_is_counted_apart(repo):
    repo.git("checkout", "-q", "-b", "side", "main")
    repo.commit("lib: side change\n", {"lib/other.c": "int other;\n"})
    repo.git("checkout", "-q", "work")
    repo.merge("side", "Merge branch 'side'")
    quick = same_plan(repo)  # one boundary, main's tip: the merge base
    assert quick.merges == 1 and quick.commits == 4


def test_hands_over_what_only_the_careful_path_can_tell(repo):
    assert quick_plan(repo.path, "main...work") is None  # refused with its own error
    assert quick_plan(repo.path, "no-such-ref..work") is None  # worded by the careful path
    assert quick_plan(repo.path, "--all") is None
    repo.git("checkout", "-q", "--detach")
    assert quick_plan(repo.path, None) is None  # no upstream: the careful path says what to type
    repo.git("checkout", "-q", "work")
    repo.git("config", "branch.work.b4-prep-cover-strategy", "branch-description")
    assert quick_plan(repo.path, None) is None
    repo.git("config", "--unset", "branch.work.b4-prep-cover-strategy")
    repo.commit(f"foo: cover\n\n{B4_MARKER}\n{{}}\n", {})
    assert quick_plan(repo.path, None) is None  # a b4 cover commit moves base or tip


def test_config_reads_as_git_config_answers(repo):
    repo.git("config", "sendemail.to", "a@example.org")
    repo.git("config", "--add", "sendemail.to", "b@example.org")
    repo.git("config", "Branch.work.Description", "two\nlines")
    config = GitConfig.read(repo.path)
    assert [v for _, v in config.matching(r"^sendemail\.to$")] == ["a@example.org", "b@example.org"]
    assert config.last("SendEmail.To") == "b@example.org"
    assert config.last("branch.work.description") == "two\nlines"
    assert config.last("branch.Work.description") is None  # a branch name keeps its case


def test_context_reads_started_early_answer_as_late_ones_and_are_finished(repo):
    """lint starts the context's repository reads (tags, the object reader) while format-patch
    runs; a stage that takes them answers as one that reads late, and what no stage takes is
    finished, leaving no git process behind."""
    from reviewtool.context.calendar import load_calendar
    from reviewtool.review import prefetch_context

    repo.tag("v6.1-rc1")
    facts = quick_plan(repo.path, None).facts
    prefetch_context(repo.path, facts)
    assert set(facts.started) == {"calendar-tags", "cat-file"}
    early = load_calendar(repo.path, facts.take("calendar-tags"))
    assert early == load_calendar(repo.path) and "v6.1-rc1" in " ".join(early[1])  # the tag was read
    catfile = facts.started["cat-file"]
    facts.close()
    assert facts.started == {} and catfile._proc is None


def test_a_branch_without_shared_history_is_bad_input_with_its_reason(cli, repo):
    """An orphan branch tracking main: no merge base, so no series to send against main. The
    careful path says so (exit 2), where format-patch used to fail with its own words."""
    repo.git("checkout", "-q", "--orphan", "fresh")
    repo.git("rm", "-q", "-rf", ".")
    repo.commit("foo: start over\n\nSigned-off-by: Jane Dev <jane@example.org>\n", {"new.c": "int n;\n"})
    repo.git("branch", "-q", "--set-upstream-to=main")
    assert quick_plan(repo.path, None) is None  # a root commit in the range: the careful path decides
    res = cli("lint", "--repo", str(repo.path))
    assert res.code == 2 and "shares no history with" in res.err and "Traceback" not in res.err
