"""cc-missing for `check`: the recipients a posted patch actually had (To/Cc/From) against what
MAINTAINERS and Fixes blame ask for, with netdev CI's severities."""

from __future__ import annotations

import pytest

from lintrepo import add_driver_history, kernel_repo, work_branch


@pytest.fixture
def posted(tmp_path):
    repo = kernel_repo(tmp_path / "linux")
    target = add_driver_history(repo)
    work_branch(repo, fixes_target=target)

    def post(name: str, *args: str):
        out = tmp_path / name
        repo.git("format-patch", "-q", "-o", str(out), *args, "main..work~2")  # the Fixes-tagged driver fix
        return out
    return repo, target, post


def cc_hits(check_json, path, repo):
    res = check_json(path, "--repo", str(repo.path))
    return [f for f in res.json["findings"] if f["rule"] == "cc-missing"]


def test_nothing_copied_is_an_error_naming_each_missing_address(check_json, posted):
    repo, target, post = posted
    (hit,) = cc_hits(check_json, post("bare", "--to", "netdev@vger.kernel.org"), repo)
    assert hit["patch"] == 1 and hit["severity"] == "error"
    evidence = "\n".join(hit["evidence"])
    assert f"Fred Original <fred@example.net> — author of {target[:12]} (\"foo: add the driver\")" in evidence
    assert "Foo Owner <foo.owner@example.com> — supporter: FOO ETHERNET DRIVER (drivers/net/ethernet/foo/" in evidence
    assert "netdev@vger.kernel.org —" not in evidence  # it was copied
    assert "--cc='Fred Original <fred@example.net>'" in hit["advice"]


def test_only_a_reviewer_missing_is_a_warning_and_mailmap_counts(check_json, posted):
    repo, _, post = posted
    everyone = ["Foo Owner <foo.owner@example.com>", "davem@example.org", "kuba@example.org",
                "fred@example.net", "foo-dev@lists.example.com", "netdev@vger.kernel.org"]
    args = [a for who in everyone for a in ("--cc", who)]
    (hit,) = cc_hits(check_json, post("almost", *args), repo)
    assert hit["severity"] == "warning"
    assert [e.split(" —")[0] for e in hit["evidence"]] == ["Old Name <new.address@example.com>",
                                                            "Rita Reviewer <rita@example.org>"]
    # The reviewer copied at the old address .mailmap maps from is reached.
    done = post("all", *args, "--cc", "old.address@example.com", "--cc", "rita@example.org")
    assert cc_hits(check_json, done, repo) == []


def test_without_a_repository_it_is_not_checked(check_json, posted, tmp_path, monkeypatch):
    _, _, post = posted
    out = post("norepo")
    monkeypatch.chdir(tmp_path)  # not a repository: no MAINTAINERS to read
    res = check_json(out)
    assert any(n.startswith("cc-missing:") for n in res.json["summary"]["not_checked"])
