"""A profile read from a file (`reviewtool profile learn`'s output): --profile FILE for check,
triage and lint, the repository's default naming a file, several projects in one file, and the
[evidence] table `reviewtool rules` shows."""

from __future__ import annotations

from gitrepo import GitRepo
from lintrepo import add_driver_history, kernel_repo, work_branch
from mailfactory import Mail, patch_body, series_mails, thread, write

from reviewtool.context.profiles.file import option_digest, read_profile_file

ONE = """\
name = "lab"
description = "learned from lab@example.org"
lists = ["lab@example.org"]

[[trees]]
name = "lab"
kind = "fixes"
pair = "lab-next"

[[trees]]
name = "lab-next"
kind = "development"
pair = "lab"

[rules]
disable = ["signed-off-by-missing", "signed-off-by-author"]

[evidence]
"rules.disable.signed-off-by-missing" = "2 of 40 applied patches carry a Signed-off-by"
"""

TWO = """\
profile = "kern"

[profiles.kern]
lists = ["linux-lab@example.org"]
[[profiles.kern.trees]]
name = "kern-next"
kind = "development"

[profiles.userspace]
select_by_files = false
[[profiles.userspace.trees]]
name = "Tool"
kind = "development"
[profiles.userspace.rules]
disable = ["signed-off-by-missing", "signed-off-by-author"]
"""

NO_SOB = patch_body(trailers="")

def _mbox(tmp_path, subject="[PATCH] foo: fix bar", name="one.mbox"):
    return write(tmp_path, thread(Mail(subject, NO_SOB, to="lab@example.org")), name)

def test_profile_option_takes_a_file(tmp_path, cli):
    prof = tmp_path / "lab.toml"
    prof.write_text(ONE)
    mbox = _mbox(tmp_path)
    by_name = cli("check", str(mbox), "--format", "json")
    assert "signed-off-by-missing" in by_name.rules() and by_name.code == 1
    res = cli("check", str(mbox), "--format", "json", "--profile", str(prof))
    assert res.code == 0, res.err
    assert res.json["series"]["profile"] == "lab"
    assert res.json["series"]["profile_reason"] == f"chosen with --profile {prof.resolve()}"
    assert "signed-off-by-missing" not in res.rules()

def test_a_bad_profile_file_is_a_one_line_error(tmp_path, cli):
    mbox = _mbox(tmp_path)
    for text, words in (("name = \n", "Invalid value"), ('[[trees]]\nname = "x"\nkind = "stable"\n', "fixes or development")):
        bad = tmp_path / "bad.toml"
        bad.write_text(text)
        res = cli("check", str(mbox), "--profile", str(bad))
        assert res.code == 2 and words in res.err and "Traceback" not in res.err
    res = cli("check", str(mbox), "--profile", str(tmp_path / "missing.toml"))
    assert res.code == 2 and "cannot read the profile file" in res.err

def test_several_projects_in_one_file(tmp_path, cli):
    prof = tmp_path / "two.toml"
    prof.write_text(TWO)
    tool = write(tmp_path, thread(Mail("[PATCH Tool] client: fix a leak", NO_SOB, to="linux-lab@example.org")), "t.mbox")
    res = cli("check", str(tool), "--format", "json", "--profile", str(prof))
    assert res.json["series"]["profile"] == "userspace" and res.json["series"]["profile_reason"] == "subject tag [Tool]"
    assert "signed-off-by-missing" not in res.rules()
    kern = write(tmp_path, thread(Mail("[PATCH] foo: fix a leak", NO_SOB, to="someone@example.org")), "k.mbox")
    res = cli("check", str(kern), "--format", "json", "--profile", str(prof))
    assert res.json["series"]["profile"] == "kern"
    assert res.json["series"]["profile_reason"] == f"repository default (the default of {prof.resolve()})"
    assert "signed-off-by-missing" in res.rules()

def test_the_repository_default_may_name_a_file(tmp_path, cli):
    repo = GitRepo(tmp_path / "repo")
    (repo.path / "learned").mkdir()
    (repo.path / "learned" / "lab.toml").write_text(ONE)
    mbox = _mbox(tmp_path)
    repo.git("config", "reviewtool.profile", "learned/lab.toml")
    res = cli("check", str(mbox), "--format", "json", "--repo", str(repo.path))
    assert res.json["series"]["profile"] == "lab"
    assert res.json["series"]["profile_reason"] == ("repository default (git config reviewtool.profile: "
                                                    "learned/lab.toml)")
    repo.git("config", "--unset", "reviewtool.profile")
    (repo.path / ".reviewtool.toml").write_text('profile = "learned/lab.toml"\n')
    res = cli("check", str(mbox), "--format", "json", "--repo", str(repo.path))
    assert res.json["series"]["profile_reason"] == "repository default (.reviewtool.toml profile: learned/lab.toml)"
    # The file's trees are read before a shipped profile's: `[PATCH lab-next]` is its, so is the list.
    (repo.path / ".reviewtool.toml").write_text('profile = "learned/lab.toml"\n')
    tagged = write(tmp_path, thread(Mail("[PATCH lab-next] foo: add x", NO_SOB, to="x@example.org")), "n.mbox")
    assert cli("check", str(tagged), "--format", "json", "--repo", str(repo.path)).json["series"][
        "profile_reason"] == "subject tag [lab-next]"

def test_triage_and_lint_take_a_profile_file(tmp_path, cli):
    prof = tmp_path / "lab.toml"
    prof.write_text(ONE)
    # A reply whose patch is not in the archive is read under the file's profile too.
    orphan = Mail("Re: [PATCH lab] foo: fix baz", "> x\n\nNACK.\n", sender="Mae <mae@example.org>",
                  in_reply_to="not-in-the-archive@example.org", msgid="orphan@example.org")
    archive = write(tmp_path, thread(*series_mails(2, tree="lab", cover=True, bodies={1: NO_SOB, 2: NO_SOB}))
                    + "\n" + thread(orphan), "archive.mbox")
    plain = cli("triage", str(archive), "--format", "json", "--no-store", "--now", "2026-11-03T00:00:00Z")
    assert plain.json["series"][0]["counts"]["errors"] > 0
    res = cli("triage", str(archive), "--format", "json", "--no-store", "--now", "2026-11-03T00:00:00Z",
              "--profile", str(prof))
    assert res.code == 0, res.err
    assert res.json["series"][0]["profile"] == "lab" and res.json["series"][0]["counts"]["errors"] == 0
    assert res.json["orphans"]
    repo = kernel_repo(tmp_path / "linux")
    work_branch(repo, fixes_target=add_driver_history(repo))
    lint = cli("lint", "--repo", str(repo.path), "--format", "json", "--profile", str(prof))
    assert lint.json["series"]["profile"] == "lab" and "signed-off-by-missing" not in lint.rules()

def test_a_changed_file_is_a_changed_review_key(tmp_path):
    prof = tmp_path / "lab.toml"
    prof.write_text(ONE)
    before = option_digest(str(prof))
    prof.write_text(ONE.replace('"signed-off-by-author"', '"signed-off-by-sender-last"'))
    assert option_digest(str(prof)) != before and option_digest("netdev") == "netdev"
    assert read_profile_file(prof).profiles[0].disabled == ("signed-off-by-missing", "signed-off-by-sender-last")

def test_rules_shows_where_a_profile_file_s_settings_came_from(tmp_path, cli):
    prof = tmp_path / "lab.toml"
    prof.write_text(ONE)
    text = cli("rules", "--profile", str(prof)).out
    assert "  lab  learned from lab@example.org" in text
    assert "rules.disable.signed-off-by-missing: 2 of 40 applied patches carry a Signed-off-by" in text
    data = cli("rules", "--format", "json", "--profile", str(prof)).json
    lab = next(p for p in data["profiles"] if p["name"] == "lab")
    assert lab["evidence"]["rules.disable.signed-off-by-missing"].startswith("2 of 40")
    rule = next(r for r in data["rules"] if r["name"] == "signed-off-by-missing")
    assert rule["profiles"]["lab"] == "off"
    # Shipped profiles show the sources their trees name.
    assert "ath-next (feeds wireless-next): MAINTAINERS" in cli("rules", "--profile", "wireless").out
    assert "settings with their sources: reviewtool rules --profile wireless" in cli("rules").out
