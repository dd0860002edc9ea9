"""Repositories with SHA-256 object ids (`git init --object-format=sha256`, the default git is
moving to): lint and check --repo answer as they do for SHA-1, each check held to the same
series on a SHA-1 twin of the repository."""

from __future__ import annotations

import pytest

from lintrepo import add_driver_history, kernel_repo, work_branch
from reviewtool.commands.lint import lint_review
from reviewtool.context.history.repository import History
from reviewtool.review import ReviewOptions
from reviewtool.sources.gitrange import RangeRequest


@pytest.fixture(scope="module")
def repos(tmp_path_factory):
    out = {}
    for fmt in ("sha1", "sha256"):
        repo = kernel_repo(tmp_path_factory.mktemp(fmt) / "linux", object_format=fmt)
        target = add_driver_history(repo)
        repo.tag("v6.1", target)
        shas = work_branch(repo, fixes_target=target)
        out[fmt] = (repo, target, shas)
    return out


def _findings(review):
    return sorted((f.rule, f.patch, f.severity.value) for f in review.findings)


def test_lint_of_a_sha256_branch_finds_what_it_finds_on_sha1(repos):
    (old, _, _), (new, target, shas) = repos["sha1"], repos["sha256"]
    assert len(target) == 64
    review, mails = lint_review(new.path, RangeRequest(), ReviewOptions(repo=new.path))
    assert mails.commits == (shas["fix"], shas["core"], shas["lib"]) and len(mails.base) == 64
    assert review.series.base_commit == mails.base  # format-patch's base-commit line, 64 digits
    twin, _ = lint_review(old.path, RangeRequest(), ReviewOptions(repo=old.path))
    assert _findings(review) == _findings(twin)
    assert "fixes-introduced-in" in {f.rule for f in review.findings}  # the 12-digit Fixes id resolved
    assert not {n.rule for n in review.not_checked} - {n.rule for n in twin.not_checked}


def test_history_walks_and_patch_ids_on_sha256(repos):
    repo, target, shas = repos["sha256"]
    hist = History.open(repo.path)
    try:
        assert hist.object_format == "sha256"
        assert hist.resolve([target[:12]])[target[:12]].sha == target
        assert hist.contains("main", [target, shas["fix"]]) == {target: True, shas["fix"]: False}
        assert hist.first_tags([target]) == {target: "v6.1"}
        diff = repo.git("show", "--format=", shas["core"], raw=True)
        pid = hist.patch_ids_of([diff])[0]  # the same change as a mail's diff and as a commit
        assert pid and len(pid) == 64 and hist.patch_ids(f"{shas['fix']}..{shas['core']}") == {pid: shas["core"]}
    finally:
        hist.close()
