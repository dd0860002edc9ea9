"""History checks on real repositories built with git (tests/gitrepo.py): the History API, the
fixes-* rules, base-commit rules, applying, already-applied and subject prefixes."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from conftest import CORPUS
from gitrepo import GitRepo, kernel_like
from mailfactory import Mail, cover_body, hunk_diff, patch_body, thread, write
from reviewtool.context.history import repository as history_module
from reviewtool.context.history.repository import History

HISTORY_RULES = {"fixes-target-unknown", "fixes-target-ambiguous", "fixes-subject-mismatch",
                 "fixes-target-not-ancestor", "fixes-introduced-in", "base-commit-unknown", "base-commit-trees",
                 "does-not-apply", "already-applied", "subject-prefix-history"}
SOB = "Signed-off-by: Jane Developer <jane@example.org>"


@pytest.fixture(scope="module")
def k(tmp_path_factory):
    k = kernel_like(tmp_path_factory.mktemp("kernel") / "linux")
    r = k.repo
    # A fix made on net's head (applies there and on net-next, which merged net).
    k.c["fix"], k.diffs = r.patch_on(k.c["net_fix"], "foo: return ENXIO from open\n",
                                     {"drivers/net/foo/foo.c": ("\t\treturn -ENODEV;\n", "\t\treturn -ENXIO;\n")}), {}
    k.diffs["fix"] = k.c["fix"][1]
    k.c["fix"] = k.c["fix"][0]
    # A change to code that exists only in net-next (does not apply to net).
    sha, k.diffs["next_only"] = r.patch_on(k.c["next_more"], "foo: count opens\n",
                                           {"drivers/net/foo/foo.c": ("static int foo_stats;\n",
                                                                      "static int foo_stats;\nstatic int foo_opens;\n")})
    k.diffs["already"] = r.show_diff(k.c["net_fix"])
    return k


def mbox(tmp_path: Path, tree: str, patches: list[tuple[str, str]], base: str | None = None,
         name: str = "series.mbox") -> Path:
    n = len(patches)
    mails = [Mail(f"[PATCH {tree} 0/{n}] foo: fixes", cover_body(base=base))] if base else []
    for i, (subject, body) in enumerate(patches, 1):
        prefix = f"[PATCH {tree} {i}/{n}]" if base or n > 1 else f"[PATCH {tree}]"
        mails.append(Mail(f"{prefix} {subject}", body))
    return write(tmp_path, thread(*mails), name)


def fix_body(k, fixes: str, diff_key: str = "fix") -> str:
    return patch_body(message="Open returns the wrong error code.", trailers=f"{fixes}\n{SOB}",
                      diff=k.diffs[diff_key])


def hits(res, rule):
    return [f for f in res.json["findings"] if f["rule"] == rule]


# -- the API -----------------------------------------------------------------------------------------

def test_resolve_batches_found_unknown_ambiguous_and_blobs(k):
    prefix, pair = k.repo.ambiguous_prefix(4) if not hasattr(k, "amb") else k.amb
    k.amb = (prefix, pair)
    blob = k.repo.git("rev-parse", "HEAD:README")
    hist = History.open(k.path)
    try:
        queries = [k.c["foo_open"][:12], "deadbeef1234", prefix, blob[:12], k.c["dev_helper"], "not-hex"]
        calls = hist.runner.calls
        res = hist.resolve(queries)
        # one cat-file process (already started by open) plus one rev-parse for the ambiguous one
        assert hist.runner.calls - calls <= 1
        assert res[k.c["foo_open"][:12]].status == "found"
        assert res[k.c["foo_open"][:12]].subject == "foo: check the device in open"
        assert str(res[k.c["foo_open"][:12]].author) == "Bob Blamed <bob@example.org>"
        assert res["deadbeef1234"].status == "unknown"
        assert res[prefix].status == "ambiguous"
        assert sorted(c.sha for c in res[prefix].candidates) == pair
        assert res[blob[:12]].status == "not-a-commit" and res[blob[:12]].kind == "blob"
        assert res["not-hex"].status == "unknown"
        assert hist.author(k.c["foo_open"]).email == "bob@example.org"
    finally:
        hist.close()


def test_many_shas_take_a_fixed_number_of_processes(k):
    shas = k.repo.git("rev-list", "--all").split()
    hist = History.open(k.path)
    try:
        before = hist.runner.calls
        hist.resolve([s[:12] for s in shas])
        hist.contains("net/main", shas)
        hist.first_tags(shas)
        hist.trees_containing(shas)
        # resolve: 0 new (cat-file is running); contains: 1 walk; name-rev: 1; trees: 1 more walk (net-next)
        assert hist.runner.calls - before <= 4
    finally:
        hist.close()


def test_trees_tags_and_ancestry(k, monkeypatch):
    hist = History.open(k.path, trees=_netdev_trees())
    try:
        assert hist.tree("net").sha == k.c["net_fix"] and hist.tree("net").source == "profile"
        assert hist.tree("net-next").sha == k.c["next_more"]
        assert hist.contains("net", [k.c["foo_close"], k.c["next_feature"]]) == {
            k.c["foo_close"]: True, k.c["next_feature"]: False}
        assert hist.trees_containing([k.c["next_feature"], k.c["foo_open"], k.c["side"]]) == {
            k.c["next_feature"]: ("net-next",), k.c["foo_open"]: ("net", "net-next"), k.c["side"]: ()}
        tags = hist.first_tags([k.c["foo_open"], k.c["dev_flags"], k.c["init"], k.c["next_feature"]])
        assert tags == {k.c["foo_open"]: "v6.1-rc1", k.c["dev_flags"]: "v6.1", k.c["init"]: "v6.0",
                        k.c["next_feature"]: None}
        assert hist.count_between(k.c["dev_flags"], "net-next") == 5  # feature, doc, fix, merge, more
    finally:
        hist.close()
    # many commits go to name-rev on stdin instead of as arguments: same answers
    monkeypatch.setattr(history_module, "NAME_REV_ARGS_MAX", 0)
    hist = History.open(k.path)
    try:
        assert hist.first_tags([k.c["foo_open"], k.c["dev_flags"], k.c["next_feature"]]) == {
            k.c["foo_open"]: "v6.1-rc1", k.c["dev_flags"]: "v6.1", k.c["next_feature"]: None}
    finally:
        hist.close()


def test_prefetched_walks_and_facts_give_the_same_answers(k):
    """Walks started early (prefetch_*) and what lint already read (RepoFacts) change no answer:
    each is held to the plain query on the same repository."""
    from reviewtool.sources.gitconfig import LAYOUT_ARGS, GitConfig, RepoFacts

    shas = [k.c["foo_close"], k.c["next_feature"], k.c["foo_open"], k.c["side"], k.c["init"]]
    plain = History.open(k.path, trees=_netdev_trees())
    layout = tuple(plain.runner.run(["rev-parse", *LAYOUT_ARGS]).out.splitlines())
    early = History.open(k.path, trees=_netdev_trees(), facts=RepoFacts(GitConfig.read(k.path), layout))
    try:
        assert early.tree_refs == plain.tree_refs and early.git_dir == plain.git_dir
        assert (early.is_bare, early.is_shallow) == (plain.is_bare, plain.is_shallow)
        calls = early.runner.calls
        early.prefetch_contains("net", shas)
        early.prefetch_trees_containing(shas)
        early.prefetch_first_tags(shas)
        assert early.runner.calls > calls  # started now, read below
        started = early.runner.calls
        assert early.contains("net", shas) == plain.contains("net", shas)
        assert early.trees_containing(shas) == plain.trees_containing(shas)
        assert early.first_tags(shas) == plain.first_tags(shas)
        assert early.runner.calls == started  # every answer came from a started walk
    finally:
        plain.close()
        early.close()


def _netdev_trees():
    from reviewtool.context.profiles.load import load_profiles

    return load_profiles()["netdev"].trees


def test_tree_refs_from_config_and_option(k, tmp_path):
    clone = GitRepo(tmp_path / "clone", init=False)
    subprocess.run(["git", "clone", "-q", "--mirror", str(k.path), str(clone.path)], check=True)
    clone.git("update-ref", "refs/heads/fixes", k.c["net_fix"])
    clone.git("config", "reviewtool.tree.net", "refs/heads/fixes")
    hist = History.open(clone.path, trees=_netdev_trees(), overrides={"net-next": k.c["next_feature"]})
    try:
        assert (hist.tree("net").source, hist.tree("net").sha) == ("config", k.c["net_fix"])
        assert (hist.tree("net-next").source, hist.tree("net-next").sha) == ("option", k.c["next_feature"])
    finally:
        hist.close()


def test_reachable_pairs_match_merge_base(k):
    shas = sorted(set(k.c.values()))
    hist = History.open(k.path)
    try:
        pairs = [(t, c) for t in shas for c in shas]
        got = hist.reachable_pairs(pairs, within="--all")
        for t, c in pairs:
            rc = subprocess.run(["git", "-C", str(k.path), "merge-base", "--is-ancestor", t, c]).returncode
            assert got[(t, c)] == (rc == 0 and t != c), (t, c)
        # a range with a lower boundary: targets below it are answered too
        ranged = hist.reachable_pairs([(k.c["init"], k.c["next_more"]), (k.c["side"], k.c["next_more"])],
                                      within=f"v6.1..{k.c['next_more']}")
        assert list(ranged.values()) == [True, False]
    finally:
        hist.close()


# -- fixes-* rules through `reviewtool check` ----------------------------------------------------------

def test_fixes_rules_on_a_built_series(k, tmp_path, check_json):
    fixes = "\n".join([
        f'Fixes: {k.c["foo_open"][:12]} ("foo: check the device")',           # subject mismatch
        f'Fixes: {k.c["foo_close"][:12]} ("foo: drop the carrier...")',       # truncated: fine
        f'Fixes: {k.c["foo_close"][:12]} ("foo: drop ... on close")',         # middle cut: fine
        f'Fixes: {k.c["foo_close"][:12]} ("... carrier on close")',           # start cut: fine
        'Fixes: deadbeef1234 ("nothing at all")',                               # unknown
        f'Fixes: {k.c["next_feature"][:12]} ("foo: add statistics")',         # only in net-next
    ])
    res = check_json(mbox(tmp_path, "net", [("foo: return ENXIO from open", fix_body(k, fixes))]),
                     "--repo", str(k.path))
    mismatch = hits(res, "fixes-subject-mismatch")
    assert len(mismatch) == 1
    assert f'Fixes: {k.c["foo_open"][:12]} ("foo: check the device in open")' in mismatch[0]["advice"]
    assert 'is "foo: check the device in open"' in mismatch[0]["evidence"][1]
    unknown = hits(res, "fixes-target-unknown")
    assert [f["evidence"][0] for f in unknown] == ['Fixes: deadbeef1234 ("nothing at all")']
    not_anc = hits(res, "fixes-target-not-ancestor")
    assert len(not_anc) == 1 and k.c["next_feature"][:12] in not_anc[0]["message"]
    assert "net (net/main" in not_anc[0]["message"] and "only in net-next" in not_anc[0]["advice"]
    intro = {f["evidence"][0].split()[1]: f["message"] for f in hits(res, "fixes-introduced-in")}
    assert "first released in v6.1-rc1" in intro[k.c["foo_open"][:12]]
    assert "no release tag contains it yet; it is in net-next" in intro[k.c["next_feature"][:12]]
    assert res.code == 1
    assert not HISTORY_RULES & {n.split(":")[0] for n in res.json["summary"]["not_checked"]}


def test_ambiguous_target_suggests_the_matching_commit(k, tmp_path, check_json):
    if not hasattr(k, "amb"):
        k.amb = k.repo.ambiguous_prefix(4)
    prefix, pair = k.amb
    subject = k.repo.git("log", "-1", "--format=%s", pair[1])
    res = check_json(mbox(tmp_path, "net", [("foo: fix", fix_body(k, f'Fixes: {prefix} ("{subject}")'))]),
                     "--repo", str(k.path))
    amb = hits(res, "fixes-target-ambiguous")
    assert len(amb) == 1 and "2 commits start with it" in amb[0]["message"]
    assert f'`Fixes: {pair[1][:12]} ("{subject}")`' in amb[0]["advice"]
    assert {e.split()[1] for e in amb[0]["evidence"][1:]} == {pair[0][:12], pair[1][:12]}


def test_real_corpus_fixes_are_unknown_in_an_unrelated_repository(k, check_json):
    mail = CORPUS / "netfilter-devel/bpf-nf-hook-migration-v1-wrong-fixes.mbox"
    res = check_json(mail, "--repo", str(k.path))
    unknown = hits(res, "fixes-target-unknown")
    assert unknown and all(f["evidence"][0].lower().startswith("fixes:") for f in unknown)
    assert all(f["patch"] for f in unknown)


def test_without_a_repository_every_history_rule_is_not_checked(tmp_path, check_json, k):
    res = check_json(mbox(tmp_path, "net", [("foo: fix", fix_body(k, 'Fixes: deadbeef1234 ("x")'))]))
    skipped = {n.split(":")[0]: n for n in res.json["summary"]["not_checked"]}
    assert HISTORY_RULES <= set(skipped)
    assert "--repo" in skipped["fixes-target-unknown"]
    assert not HISTORY_RULES & set(res.rules())


def test_bad_repo_and_tree_options_exit_2(tmp_path, cli, k):
    box = mbox(tmp_path, "net", [("foo: fix", fix_body(k, 'Fixes: deadbeef1234 ("x")'))])
    res = cli("check", box, "--repo", tmp_path)
    assert res.code == 2 and "not a git repository" in res.err
    res = cli("check", box, "--repo", k.path, "--tree", "net")
    assert res.code == 2 and "NAME=REF" in res.err


def test_repo_defaults_to_the_current_directory(k, tmp_path, check_json, monkeypatch):
    box = mbox(tmp_path, "net", [("foo: fix", fix_body(k, 'Fixes: deadbeef1234 ("x")'))])
    monkeypatch.chdir(k.path)
    assert hits(check_json(box), "fixes-target-unknown")


# -- base-commit, applying, already applied --------------------------------------------------------------

def test_base_commit_known_trees_and_distance(k, tmp_path, check_json):
    box = mbox(tmp_path, "net", [("foo: return ENXIO from open", fix_body(k, SOB.replace("Signed", "Acked")))],
               base=k.c["dev_flags"])
    res = check_json(box, "--repo", str(k.path))
    info = hits(res, "base-commit-trees")
    assert len(info) == 1
    assert "net (2 commits behind its head)" in info[0]["message"]
    assert "net-next (5 commits behind its head)" in info[0]["message"]
    assert not hits(res, "base-commit-unknown") and not hits(res, "does-not-apply")


def test_base_commit_unknown_and_malformed(k, tmp_path, check_json):
    body = fix_body(k, SOB)
    res = check_json(mbox(tmp_path, "net", [("foo: fix", body)], base="0123456789abcdef0123456789abcdef01234567"),
                     "--repo", str(k.path))
    unknown = hits(res, "base-commit-unknown")
    assert len(unknown) == 1 and "base-commit: 0123456789abcdef0123456789abcdef01234567" in unknown[0]["evidence"]
    bad = check_json(mbox(tmp_path, "net", [("foo: fix", body)], base="net-next", name="bad.mbox"))
    mal = hits(bad, "base-commit-malformed")  # needs no repository
    assert len(mal) == 1 and "not hexadecimal" in mal[0]["message"]
    short = check_json(mbox(tmp_path, "net", [("foo: fix", body)], base=k.c["net_fix"][:12], name="s.mbox"))
    assert "12 hex digits, not 40" in hits(short, "base-commit-malformed")[0]["message"]


def test_does_not_apply_names_patch_file_and_bases(k, tmp_path, check_json):
    body = patch_body(message="Count opens.", trailers=SOB, diff=k.diffs["next_only"])
    res = check_json(mbox(tmp_path, "net", [("foo: return ENXIO from open", fix_body(k, SOB)),
                                            ("foo: count opens", body)], base=k.c["net_fix"]), "--repo", str(k.path))
    fail = hits(res, "does-not-apply")
    assert len(fail) == 1 and fail[0]["severity"] == "error" and fail[0]["patch"] == 2
    assert "drivers/net/foo/foo.c" in fail[0]["message"]
    assert fail[0]["evidence"][0].startswith(f"base-commit {k.c['net_fix'][:12]}: patch 2 fails on drivers/net/foo/foo.c")


def test_applies_on_the_tree_head_when_the_base_is_stale(k, tmp_path, check_json):
    body = patch_body(message="Count opens.", trailers=SOB, diff=k.diffs["next_only"])
    res = check_json(mbox(tmp_path, "net-next", [("foo: count opens", body)], base=k.c["net_fix"]),
                     "--repo", str(k.path))
    warn = hits(res, "does-not-apply")
    assert len(warn) == 1 and warn[0]["severity"] == "warning"
    assert "but applies on net-next (net-next/main" in warn[0]["message"]


def test_already_applied_by_patch_id(k, tmp_path, check_json):
    body = patch_body(message="Stop the queue.", trailers=SOB, diff=k.diffs["already"])
    res = check_json(mbox(tmp_path, "net", [("foo: stop the queue on close", body)]), "--repo", str(k.path))
    done = hits(res, "already-applied")
    assert len(done) == 1 and f"as {k.c['net_fix'][:12]} (the same patch-id)" in done[0]["message"]
    assert 'foo: fix the close path' in done[0]["evidence"][1]


def _prefixed_history(tmp_path, prefixes: list[str]):
    """A repository whose file drivers/net/bar/bar.c was changed once per prefix, and the body of
    a patch to it."""
    r = GitRepo(tmp_path / "repo")
    r.commit("Initial\n", {"drivers/net/bar/bar.c": "int a;\n"})
    for i, prefix in enumerate(prefixes):
        r.commit(f"{prefix}: change {i}\n", {"drivers/net/bar/bar.c": f"int a{i};\n"})
    _, diff = r.patch_on("HEAD", "x", {"drivers/net/bar/bar.c": (f"int a{len(prefixes) - 1};\n", "int b;\n")})
    return r, patch_body(message="Rename.", trailers=SOB, diff=diff)


def test_subject_prefix_history_suggests_the_common_prefix(tmp_path, check_json):
    r, wrong = _prefixed_history(tmp_path, ["bar"] * 6)
    res = check_json(mbox(tmp_path, "net-next", [("drivers: rename a5", wrong)]), "--repo", str(r.path))
    hit = hits(res, "subject-prefix-history")
    assert len(hit) == 1 and "uses 'bar:'" in hit[0]["message"] and "'bar:' x6" in hit[0]["evidence"][1]
    good = check_json(mbox(tmp_path, "net-next", [("bar: rename a5", wrong)], name="good.mbox"), "--repo", str(r.path))
    assert not hits(good, "subject-prefix-history")


def test_subject_prefix_history_is_silent_when_two_prefixes_share_the_lead(tmp_path, check_json):
    """Three 'bar:' and three 'baz:' commits on the file: either could be right, so no advice."""
    r, body = _prefixed_history(tmp_path, ["baz", "bar"] * 3)
    res = check_json(mbox(tmp_path, "net-next", [("drivers: rename a5", body)]), "--repo", str(r.path))
    assert not hits(res, "subject-prefix-history")


def test_unrelated_or_empty_repositories_are_not_used(k, tmp_path, check_json, monkeypatch):
    box = mbox(tmp_path, "net", [("foo: fix", fix_body(k, 'Fixes: deadbeef1234 ("x")'))])
    empty = GitRepo(tmp_path / "empty")
    res = check_json(box, "--repo", str(empty.path))
    assert not hits(res, "fixes-target-unknown")
    assert any("has no commits" in n for n in res.json["summary"]["not_checked"])
    other = GitRepo(tmp_path / "other")
    other.commit("Initial\n", {"src/main.py": "print()\n"})
    monkeypatch.chdir(other.path)  # the default --repo: an unrelated project
    res = check_json(box)
    assert not hits(res, "fixes-target-unknown")
    assert any("holds none of the commits or files" in n for n in res.json["summary"]["not_checked"])
    # named explicitly, the same repository is used (the user asked for it)
    assert hits(check_json(box, "--repo", str(other.path)), "fixes-target-unknown")


def _file_times(path: Path) -> dict[str, int]:
    return {str(p.relative_to(path)): p.lstat().st_mtime_ns for p in sorted(path.rglob("*"))}


@pytest.mark.parametrize("packed", [False, True], ids=["loose", "packed"])
def test_repo_is_left_as_it_was_down_to_file_times(tmp_path, cli, packed):
    """Applying a series writes blobs; git "freshens" (touches) a copy it already holds, in the
    repository itself or in one its alternates name. Patches whose results, and a three-way
    merge's preimages, are objects the user's repository has must leave its loose objects and
    packs with the times they had."""
    r = GitRepo(tmp_path / "repo")
    r.commit("foo: add\n", {"drivers/net/foo.c": "int a;\nint b;\n", "drivers/net/copy.c": "int a;\nint c;\n"})
    if packed:
        r.git("gc", "-q", "--prune=now")
    os.utime(r.path / ".git" / "objects", ns=(0, 1_000_000_000))  # old times: any touch shows
    for p in (r.path / ".git" / "objects").rglob("*"):
        os.utime(p, ns=(0, 1_000_000_000))
    fix = hunk_diff("drivers/net/foo.c", ["int b;"], ["int c;"], before="int a;", after="")
    fix = fix.replace("@@ -1,3 +1,3 @@\n int a;\n-int b;\n+int c;\n \n", "@@ -1,2 +1,2 @@\n int a;\n-int b;\n+int c;\n")
    stale = fix.replace(" int a;\n", " int z;\n")  # context that is not there: a three-way merge
    before = _file_times(r.path)
    for diff in (fix, stale):
        body = patch_body(message="Use c.", trailers=SOB, diff=diff)
        res = cli("check", mbox(tmp_path, "net", [("foo: use c", body)]), "--repo", str(r.path), "--format", "json")
        assert res.code in (0, 1), res.err
        assert _file_times(r.path) == before
