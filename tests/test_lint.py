"""`reviewtool lint` end to end on real repositories: upstream ranges, b4 prep branches (made by the
real b4), branch descriptions, directories of patches; and the repository is never modified."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from gitrepo import snapshot
from lintrepo import add_driver_history, kernel_repo, work_branch


@pytest.fixture
def lint_repo(tmp_path):
    repo = kernel_repo(tmp_path / "linux")
    target = add_driver_history(repo)
    shas = work_branch(repo, fixes_target=target)
    return repo, target, shas


def lint_json(cli, repo, *args):
    res = cli("lint", "--repo", str(repo.path), "--format", "json", *args)
    assert res.code in (0, 1), res.err
    return res


def test_default_range_is_upstream_to_head_and_repository_untouched(cli, lint_repo):
    repo, target, shas = lint_repo
    before = snapshot(repo.path)
    res = lint_json(cli, repo)
    assert snapshot(repo.path) == before
    data = res.json
    assert data["lint"]["range"] == "@{upstream}..HEAD"
    assert data["lint"]["commits"] == [shas["fix"], shas["core"], shas["lib"]]
    assert data["lint"]["base"] == repo.rev("main") == data["series"]["base_commit"]
    assert [p["subject"] for p in data["patches"]][0] == "[PATCH 1/3] foo: fix the error path of foo_open"
    # The commit without a sign-off fails the lint (exit 1) and the finding names that commit.
    sob = next(f for f in data["findings"] if f["rule"] == "signed-off-by-missing")
    assert res.code == 1 and sob["patch"] == 2 and sob["commit"] == shas["core"]
    # The commits are in HEAD by construction: that is not "already applied".
    assert "already-applied" not in res.rules()
    assert any("no cover letter text" in n for n in data["summary"]["notes"])


def test_cc_missing_lists_maintainers_lists_and_blamed_author_as_arguments(cli, lint_repo):
    repo, target, _ = lint_repo
    hit = next(f for f in lint_json(cli, repo).json["findings"] if f["rule"] == "cc-missing")
    assert hit["patch"] is None and hit["message"].startswith("recipients not configured yet")
    evidence = "\n".join(hit["evidence"])
    assert "Fred Original <fred@example.net> — author of " + target[:12] in evidence
    assert "Old Name <new.address@example.com> — reviewer: FOO ETHERNET DRIVER" in evidence  # .mailmap applied
    assert "foo-private" not in evidence and "torvalds" not in evidence and "linux-kernel@" not in evidence
    assert "(patches 1, 3)" in evidence  # FOO: the driver fix and, by keyword, the lib patch
    assert "--to='Foo Owner <foo.owner@example.com>'" in hit["advice"]
    assert "--cc='Fred Original <fred@example.net>'" in hit["advice"] and "--cc=netdev@vger.kernel.org" in hit["advice"]


def test_configured_recipients_satisfy_cc_missing(cli, lint_repo):
    repo, _, _ = lint_repo
    needed = ["Foo Owner <foo.owner@example.com>", "Dave Net <davem@example.org>", "kuba@example.org"]
    repo.git("config", "sendemail.cc", "new.address@example.com, rita@example.org, fred@example.net")
    args = [a for n in needed for a in ("--to", n)]
    args += ["--cc", "netdev@vger.kernel.org", "--cc", "foo-dev@lists.example.com", "--cc", "bar@lists.example.org"]
    res = lint_json(cli, repo, *args)
    assert "cc-missing" not in res.rules()
    assert "Foo Owner <foo.owner@example.com>" in res.json["lint"]["to"]
    assert "rita@example.org" in res.json["lint"]["cc"]
    # Half of it configured: the blamed author and a maintainer missing is an error, as netdev's CI says.
    partial = lint_json(cli, repo, "--to", "netdev@vger.kernel.org")
    hit = next(f for f in partial.json["findings"] if f["rule"] == "cc-missing")
    assert hit["severity"] == "error" and hit["message"].startswith("recipients configured")


def test_recipients_chosen_by_a_command_are_not_second_guessed(cli, lint_repo):
    repo, _, _ = lint_repo
    repo.git("config", "sendemail.ccCmd", "scripts/get_maintainer.pl --norolestats")
    assert "cc-missing" not in lint_json(cli, repo).rules()


def test_explicit_ranges_prefix_and_revision(cli, lint_repo):
    repo, _, shas = lint_repo
    res = lint_json(cli, repo, "main..work", "--prefix", "net-next", "-v", "3")
    assert res.json["lint"]["range"] == "main..work"
    assert res.json["patches"][0]["subject"].startswith("[PATCH net-next v3 1/3]")
    assert res.json["series"]["profile"] == "netdev" and res.json["series"]["revision"] == 3
    single = lint_json(cli, repo, "HEAD~1")  # as format-patch reads it: HEAD~1..HEAD
    assert single.json["lint"]["commits"] == [shas["lib"]]
    assert single.json["patches"][0]["subject"] == "[PATCH] lib: bar: document"


def test_no_upstream_is_bad_input_with_the_command_to_use(cli, lint_repo):
    repo, _, _ = lint_repo
    repo.git("checkout", "-q", "-b", "lonely")
    res = cli("lint", "--repo", str(repo.path))
    assert res.code == 2 and "has no upstream" in res.err and "origin/main..HEAD" in res.err
    assert "Traceback" not in res.err and len(res.err.strip().splitlines()) == 1
    assert cli("lint", "--repo", str(repo.path), "main..nosuchbranch").code == 2
    empty = cli("lint", "--repo", str(repo.path), "HEAD..HEAD")
    assert empty.code == 2 and "no commits" in empty.err


def test_branch_description_is_the_cover_letter(cli, lint_repo):
    repo, _, _ = lint_repo
    repo.git("config", "branch.work.description", "foo: fix error paths\n\nThree small fixes for foo and friends.\n")
    data = lint_json(cli, repo).json
    assert data["cover"]["subject"] == "[PATCH 0/3] foo: fix error paths"
    assert data["lint"]["cover_letter"] == "branch.work.description"
    assert "cover-letter-missing" not in [f["rule"] for f in data["findings"]]


def test_directory_of_format_patch_files(cli, lint_repo, tmp_path):
    repo, _, _ = lint_repo
    out = tmp_path / "outgoing"
    repo.git("format-patch", "-q", "--cover-letter", "-o", str(out), "main..work")
    res = cli("lint", "--repo", str(repo.path), "--format", "json", str(out))
    assert res.code == 1, res.err
    assert res.json["series"]["received"] == [1, 2, 3] and "lint" not in res.json
    assert "signed-off-by-missing" in res.rules()


def test_default_repository_is_the_current_directory(cli, lint_repo, monkeypatch):
    repo, _, _ = lint_repo
    monkeypatch.chdir(repo.path / "drivers")
    res = cli("lint", "--format", "json")
    assert res.code == 1 and res.json["lint"]["range"] == "@{upstream}..HEAD"


# --- b4 prep branches, made by the real b4 -------------------------------------------------------

def b4_env(tmp_path: Path) -> dict[str, str]:
    home = tmp_path / "b4home"
    for d in ("cache", "data", "config"):
        (home / d).mkdir(parents=True, exist_ok=True)
    gitconfig = home / "gitconfig"
    gitconfig.write_text("[b4]\n\tmidmask = http://127.0.0.1:9/all/%s\n")
    return {**os.environ, "HOME": str(home), "XDG_CACHE_HOME": str(home / "cache"),
            "XDG_DATA_HOME": str(home / "data"), "XDG_CONFIG_HOME": str(home / "config"),
            "GIT_CONFIG_GLOBAL": str(gitconfig), "GIT_CONFIG_NOSYSTEM": "1"}


def run_b4(env, cwd, *args):
    res = subprocess.run([shutil.which("b4"), "--offline-mode", *args], cwd=cwd, env=env, capture_output=True,
                         text=True, timeout=120)
    assert res.returncode == 0, res.stderr
    return res


@pytest.mark.skipif(shutil.which("b4") is None, reason="the b4 command is not installed")
def test_b4_prep_branch_cover_commit_prefixes_and_to_cc(cli, tmp_path):
    repo = kernel_repo(tmp_path / "linux")
    repo.git("config", "user.name", "Jane Dev")
    repo.git("config", "user.email", "jane@example.org")
    env = b4_env(tmp_path)
    run_b4(env, repo.path, "prep", "-n", "foo-fixes", "-f", "main")
    run_b4(env, repo.path, "prep", "--set-prefixes", "net")
    cover_sha = repo.rev("HEAD")
    message = repo.git("log", "-1", "--format=%B", raw=True)
    tracking = message[message.index("--- b4-submit-tracking ---"):]
    repo.git("commit", "-q", "--amend", "--allow-empty", "-F", "-",
             input="foo: fix the error paths\n\n# a note to myself\nThe foo driver leaks on errors.\n\n"
                   "To: Foo Owner <foo.owner@example.com>\nCc: netdev@vger.kernel.org\n\n" + tracking)
    cover_sha = repo.rev("HEAD")
    work_shas = [repo.commit("foo: one\n\nOne.\n\nSigned-off-by: Jane Dev <jane@example.org>\n",
                             {"drivers/net/ethernet/foo/foo_main.c": "int one;\n"}, author=("Jane Dev", "jane@example.org")),
                 repo.commit("foo: two\n\nTwo.\n\nSigned-off-by: Jane Dev <jane@example.org>\n",
                             {"drivers/net/ethernet/foo/foo_main.c": "int two;\n"}, author=("Jane Dev", "jane@example.org"))]
    before = snapshot(repo.path)
    res = lint_json(cli, repo)
    assert snapshot(repo.path) == before
    data = res.json
    assert data["lint"]["range"] == "b4 prep branch b4/foo-fixes"
    assert data["lint"]["commits"] == work_shas and cover_sha not in data["lint"]["commits"]
    assert data["lint"]["base"] == repo.rev("main") == data["series"]["base_commit"]
    assert data["cover"]["subject"] == "[PATCH net 0/2] foo: fix the error paths"
    assert data["series"]["change_id"].endswith("foo-fixes-" + data["series"]["change_id"].rsplit("-", 1)[1])
    assert data["lint"]["to"] == ["Foo Owner <foo.owner@example.com>"] and data["lint"]["cc"] == ["netdev@vger.kernel.org"]
    cc = next(f for f in data["findings"] if f["rule"] == "cc-missing")
    assert "foo.owner@example.com" not in cc["advice"] and "kuba@example.org" in cc["advice"]
    # Asked for by name from another branch, the prep branch is found the same way.
    repo.git("checkout", "-q", "main")
    again = lint_json(cli, repo, "b4/foo-fixes")
    assert again.json["lint"]["commits"] == work_shas


# --- --suggest and --checkpatch ----------------------------------------------------------------

def test_suggest_prints_corrected_trailers_and_changes_nothing(cli, lint_repo):
    repo, target, shas = lint_repo
    repo.commit("foo: fix the reset\n\nReset the queue.\n\nReported-by: Rob Reporter <rob@example.org>\n"
                f"Fixes: {target[:8]} (\"foo: the driver\")\nSigned-off-by: Jane Dev <jane@example.org>\n"
                "Closes: https://bugzilla.example.org/show_bug.cgi?id=1\n",
                {"drivers/net/ethernet/foo/foo_main.c": "int reset;\n"}, author=("Jane Dev", "jane@example.org"))
    before = snapshot(repo.path)
    res = cli("lint", "--repo", str(repo.path), "--suggest")
    assert snapshot(repo.path) == before
    out = res.out
    assert res.code == 1  # the review's verdict still decides the exit code
    assert f"+Fixes: {target[:12]} (\"foo: add the driver\")" in out and f"-Fixes: {target[:8]}" in out
    assert "+Signed-off-by: Jane Dev <jane@example.org>" in out  # for the commit that lacked it
    new = [l[1:] for l in out.splitlines() if l[:1] in " +" and not l.startswith("+++")]  # the message after
    rep = new.index("Reported-by: Rob Reporter <rob@example.org>")
    assert new[rep + 1] == "Closes: https://bugzilla.example.org/show_bug.cgi?id=1"
    assert "-Closes: https://bugzilla.example.org/show_bug.cgi?id=1" in out  # moved up, not duplicated
    assert f"commit {shas['core']}" in out and "Nothing was changed" in out
    data = lint_json(cli, repo, "--suggest").json["suggestions"]
    assert {f["commit"] for f in data["fixes"]} >= {shas["core"]}


def test_checkpatch_absent_is_not_checked_and_present_is_folded_in(cli, lint_repo):
    repo, _, _ = lint_repo
    absent = lint_json(cli, repo, "--checkpatch").json["summary"]["not_checked"]
    assert any(n.startswith("checkpatch:") and "no scripts/checkpatch.pl" in n for n in absent)
    script = repo.path / "scripts" / "checkpatch.pl"
    # A stand-in with checkpatch's --terse --show-types output shape: one finding per patch.
    script.write_text("#!/usr/bin/perl\nmy $n = 0; while (<STDIN>) { $n++; if (/^Subject: (.*)/) { $s = $1; $l = $n } }\n"
                      "print \"-:$l: WARNING:EMAIL_SUBJECT: A patch subject line should describe the change\\n\";\n"
                      "print \"-:1: ERROR:MISSING_SIGN_OFF: Missing Signed-off-by: line(s)\\n\" if $s =~ /count drops/;\n"
                      "exit 1;\n")
    data = lint_json(cli, repo, "--checkpatch").json
    cp = [f for f in data["findings"] if f["rule"].startswith("checkpatch:")]
    assert {f["patch"] for f in cp if f["rule"] == "checkpatch:EMAIL_SUBJECT"} == {1, 2, 3}
    err = next(f for f in cp if f["rule"] == "checkpatch:MISSING_SIGN_OFF")
    assert err["severity"] == "error" and err["patch"] == 2 and err["commit"] == data["lint"]["commits"][1]
    assert any(e.startswith("Subject: [PATCH 2/3]") for e in next(
        f for f in cp if f["patch"] == 2 and f["rule"] == "checkpatch:EMAIL_SUBJECT")["evidence"])


def test_the_profile_follows_where_maintainers_routes_the_files(cli, tmp_path):
    """No --to, no b4 prep recipients, and files no profile claims: the profile is the one of
    the list MAINTAINERS names for them (b4 prep --auto-to-cc sends there), as `check` will
    choose it for the mail once sent."""
    from gitrepo import GitRepo

    repo = GitRepo(tmp_path / "proj")
    repo.commit("init", {"MAINTAINERS": "FOO MISC\nM:\tFoo Owner <foo@example.org>\nL:\tnetdev@vger.kernel.org\n"
                                        "S:\tMaintained\nF:\tmisc/foo/\n", "misc/foo/a.c": "int a;\n"})
    repo.git("checkout", "-q", "-b", "work", "main")
    repo.git("branch", "--set-upstream-to=main")
    repo.commit("foo: widen a\n\nWiden a.\n\nSigned-off-by: Jane Dev <jane@example.org>\n",
                {"misc/foo/a.c": "long a;\n"}, author=("Jane Dev", "jane@example.org"))
    data = lint_json(cli, repo).json
    assert data["series"]["profile"] == "netdev"
    assert data["series"]["profile_reason"].startswith("MAINTAINERS lists netdev@vger.kernel.org")
    sent = lint_json(cli, repo, "--to", "linux-wireless@vger.kernel.org").json  # what is configured comes first
    assert sent["series"]["profile"] == "wireless" and sent["series"]["profile_reason"].startswith("sent to")
