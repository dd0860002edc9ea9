"""`reviewtool profile learn` on archives of our own (tests/listarchive.py): what a list's
maintainers applied and sent back teaches its trees and conventions, and nothing it cannot back."""

from __future__ import annotations

import gzip
import tomllib
from datetime import timedelta

import pytest
from listarchive import LIST, START, Posting, archive_of, lab_list
from mailfactory import Mail, hunk_diff, patch_body, thread, write

from reviewtool.context.profiles.file import read_profile_file


def learn(cli, tmp_path, postings, *extra, name="list.mbox", pulls=()):
    mbox = archive_of(postings, tmp_path / name, pulls)
    out = tmp_path / (name + ".toml")
    res = cli("profile", "learn", str(mbox), "-o", str(out), "--jobs", "1", *extra)
    assert res.code == 0, res.err
    text = out.read_text()
    return tomllib.loads(text), text, out


def test_trees_kinds_sub_trees_and_their_evidence(tmp_path, cli):
    # A tree another list's bot says it pulled the lab tree into is another list's, and a plain
    # "Applied" from someone who sends no proving form is not counted.
    postings = lab_list() + [Posting("lab: drv0: tidy", tree="other.git", reply="plain"),
                             Posting("up: core: export x", path="net/core/x.c", tree="up/net.git", reply="korg")]
    pulls = [("lab-2026-03-10", "git://git.kernel.example/pub/scm/linux/kernel/git/lab/lab.git", "up/net.git")]
    data, text, out = learn(cli, tmp_path, postings, pulls=pulls)
    trees = {t["name"]: t for t in data["trees"]}
    assert set(trees) == {"lab-next", "lab"}
    assert (trees["lab-next"]["kind"], trees["lab-next"]["pair"], trees["lab-next"]["git"]) == (
        "development", "lab", "lab-next.git")
    assert (trees["lab"]["kind"], trees["lab"]["pair"]) == ("fixes", "lab-next")
    assert "24 applied postings" in trees["lab-next"]["source"] and "mae@kernel.example" in trees["lab-next"]["source"]
    sub = data["subtrees"][0]
    assert (sub["name"], sub["feeds"], sub["git"], sub["paths"]) == ("drv-next", "lab-next", "drv.git",
                                                                      ["drivers/lab/drv/"])
    assert data["lists"] == [LIST] and data["paths"] == ["drivers/lab/"]
    assert data["replies"]["appliers"] == ["mae@kernel.example"]
    assert "other" not in text.split("[evidence]")[0].replace("another", "")
    assert "left out net: it pulls lab (another list's tree; 1 applied posting there not learned from)" in (
        " ".join(text.split()))
    assert "net/core/" not in data["paths"]
    assert "Not counted: 1 plain 'Applied' replies from someone@example.org" in " ".join(text.split())
    # Every setting says what it rests on, in a comment above it and in [evidence].
    assert "# 24 applied postings (2026-03) whose replies name 'lab-next.git'" in text
    assert data["evidence"]["signoffs"].startswith("100% of 38 applied patches carry a Signed-off-by")
    assert data["evidence"]["lists"] == f"{LIST}: in 100% of 38 applied postings"
    # No posting names a tree: the maintainers pick it.
    assert data["untagged"]["tree"] == "lab-next"
    # It loads like a shipped profile and names its trees as the replies do.
    prof = read_profile_file(out).profiles[0]
    assert prof.tree_named("drv-next branch of drv.git")[0].name == "lab-next"
    assert prof.tree("lab").kind == "fixes" and "signed-off-by-missing" not in prof.disabled


def test_a_list_without_sign_offs_learns_no_sign_off_rule(tmp_path, cli):
    data, text, out = learn(cli, tmp_path, lab_list(signed=False))
    assert {"signed-off-by-missing", "signed-off-by-author", "signed-off-by-sender-last"} <= set(data["rules"]["disable"])
    assert data["evidence"]["rules.disable.signed-off-by-missing"].startswith("0% of 38 applied patches carry")
    mbox = write(tmp_path, thread(Mail("[PATCH] lab: drv1: fix x", patch_body(
        trailers="", diff=hunk_diff("drivers/lab/drv1/main.c", ["a"], ["b"])), to=LIST)), "new.mbox")
    res = cli("check", str(mbox), "--format", "json", "--profile", str(out))
    assert not [r for r in res.rules() if r.startswith("signed-off-by")] and res.code == 0
    # Near miss: a list that signs keeps every sign-off rule.
    signed, _, _ = learn(cli, tmp_path, lab_list(), name="signed.mbox")
    assert not [r for r in signed["rules"]["disable"] if r.startswith("signed-off-by")]


def test_v2_applied_without_a_changelog_makes_changelog_missing_a_note(tmp_path, cli):
    data, _, out = learn(cli, tmp_path, lab_list(version=2, changelog=False))
    assert data["rules"]["severity"]["changelog-missing"] == "info"
    assert data["evidence"]["rules.severity.changelog-missing"].startswith("fired on 38 of 38 applied postings")
    # Near misses: v2 postings with a log, and a list that sends v2 without a log back.
    logged, _, _ = learn(cli, tmp_path, lab_list(version=2), name="logged.mbox")
    assert "changelog-missing" not in logged["rules"]["severity"]
    strict = lab_list(6, 0, 0, version=2, changelog=False) + [
        Posting(f"lab: drv1: rework {i}", version=2, changelog=False, tree=None, reply="changes",
                reason="Please add a changelog: what changed since v1?") for i in range(10)
    ] + lab_list(20, 0, 0)
    sent_back, text, _ = learn(cli, tmp_path, strict, name="strict.mbox")
    assert sent_back["rules"]["severity"]["changelog-missing"] == "warning"
    assert sent_back["evidence"]["rules.severity.changelog-missing"].startswith(
        "fired on 6 of 26 applied postings (23%); on 10 of 10 sent back, naming it: the maintainers ask for it")
    assert "changelog: 10 (changelog-missing fired on 10)" in text


def test_too_few_applied_postings_learn_nothing_they_cannot_back(tmp_path, cli):
    data, text, out = learn(cli, tmp_path, lab_list(3, 1, 0, signed=False, version=2, changelog=False))
    assert data["rules"]["disable"] == [] and data["rules"].get("severity", {}) == {}
    assert "untagged" not in data and "required_prefixes" not in data
    assert data["settings"]["max_patches"] == 15  # the generic default, said so
    flat = " ".join(text.split())
    assert "4 applied postings were reviewed, fewer than 20" in flat
    assert "where untagged patches go: 4 applied postings, fewer than 20" in flat
    assert "# not learned: the generic default" in text
    # The trees the replies name are facts, not shares: they are kept, with their counts.
    assert {t["name"] for t in data["trees"]} == {"lab-next", "lab"}
    assert read_profile_file(out).profiles[0].name == "lab"
    # and stderr says so, not only the file's header (a profile of four postings is mostly the generic one)
    res = cli("profile", "learn", str(tmp_path / "list.mbox"), "-o", str(out), "--jobs", "1")
    assert "learned from 4 applied postings (fewer than 20)" in " ".join(res.err.split())
    # An archive without any applied posting learns no tree: the generic rules, and why.
    none, text, out = learn(cli, tmp_path, [Posting(f"lab: fix {i}", tree=None) for i in range(5)], name="none.mbox")
    assert "trees" not in none and "tree-mismatch" in none["rules"]["disable"]
    assert "no maintainer's reply says a posting was applied" in text
    assert read_profile_file(out).profiles[0].trees == ()


def test_a_required_prefix_from_the_month_it_took_hold(tmp_path, cli):
    old = [Posting(f"drv{i % 4}: rework {i}", path=f"drivers/lab/drv{i % 4}/a.c", when=START + timedelta(days=i))
           for i in range(20)]
    new = [Posting(f"lab: drv{i % 4}: rework {i}", path=f"drivers/lab/drv{i % 4}/a.c",
                   when=START + timedelta(days=31 + i)) for i in range(20)]
    data, text, out = learn(cli, tmp_path, old + new)
    rp = data["required_prefixes"][0]
    assert rp["prefix"] == "lab:" and str(rp["since"]) == "2026-04-01" and "noted_since" not in rp
    assert "2026-03: 0/20 posted" in " ".join(text.split())
    late = write(tmp_path, thread(Mail("[PATCH] drv2: fix y", patch_body(diff=hunk_diff(
        "drivers/lab/drv2/a.c", ["a"], ["b"])), to=LIST, date=START + timedelta(days=60))), "late.mbox")
    res = cli("check", str(late), "--format", "json", "--profile", str(out))
    hit = next(f for f in res.json["findings"] if f["rule"] == "subject-format" and "'lab:'" in f["message"])
    # the advice quotes a short reason; the month-by-month evidence stays in the file and `rules --profile`
    assert "(source: 100% of 20 applied patches since 2026-04 start with 'lab:' as posted" in hit["advice"]
    assert "month by month" not in hit["advice"] and len(hit["advice"]) < 300
    assert "month by month" in rp["source"] or "month by month" in data["evidence"]["required_prefixes.lab:"]
    assert "month by month" in cli("rules", "--profile", str(out)).out
    # The maintainers added it when applying before posters wrote it: a note from then.
    added = [Posting(f"drv{i % 4}: rework {i}", path=f"drivers/lab/drv{i % 4}/a.c", when=START + timedelta(days=i),
                     committed=f"lab: drv{i % 4}: rework {i}") for i in range(20)]
    data, _, _ = learn(cli, tmp_path, added + new, name="added.mbox")
    assert str(data["required_prefixes"][0]["noted_since"]) == "2026-03-01"
    # Near miss: one driver's own prefix is not the list's.
    one = [Posting(f"drv1: rework {i}", path="drivers/lab/drv1/a.c", when=START + timedelta(days=i)) for i in range(30)]
    data, text, _ = learn(cli, tmp_path, one, name="one.mbox")
    assert "required_prefixes" not in data and "'drv1:' leads most subjects but names one area" in " ".join(text.split())


def test_a_development_tree_that_queues_merge_window_postings_stays_open(tmp_path, cli):
    window = START + timedelta(days=43)  # 2026-04-14: v7.0 was released on 2026-04-12, -rc1 comes 2026-04-26
    postings = lab_list() + [Posting(f"lab: drv1: add z {i}", when=window + timedelta(days=i)) for i in range(4)]
    data, _, out = learn(cli, tmp_path, postings)
    nxt = next(t for t in data["trees"] if t["name"] == "lab-next")
    assert nxt["closed_in_merge_window"] is False
    assert data["evidence"]["trees.lab-next.closed_in_merge_window"].startswith("4 of 34 applied postings were posted "
                                                                                  "in the merge window (of v7.1)")


def test_two_projects_on_one_list(tmp_path, cli):
    # The kernel's trees sign off; the user-space project beside them does not, and tags its postings.
    kernel = [
        Posting(f"Lab: drv{i % 4}: fix {i}", tree="lab/lab-next.git", reply="korg", when=START + timedelta(days=i))
        for i in range(24)]
    tools = [Posting(f"client: fix the prompt {i}", path=f"client/main{i % 3}.c", files=[f"src/shared/util{i % 2}.c"],
                     tag="LabTool", signed=False, tree="lab/labtool.git", reply="korg", when=START + timedelta(days=i))
             for i in range(24)]
    data, text, out = learn(cli, tmp_path, kernel + tools)
    profs = data["profiles"]
    assert data["profile"] == "lab" and set(profs) == {"lab", "labtool"}
    assert [t["name"] for t in profs["labtool"]["trees"]] == ["LabTool"]
    assert profs["labtool"]["select_by_files"] is False
    assert "signed-off-by-missing" in profs["labtool"]["rules"]["disable"]
    assert "signed-off-by-missing" not in profs["lab"]["rules"]["disable"]
    no_sob = patch_body(trailers="", diff=hunk_diff("client/main.c", ["a"], ["b"]))
    tool = write(tmp_path, thread(Mail("[PATCH LabTool] client: fix", no_sob, to=LIST)), "t.mbox")
    res = cli("check", str(tool), "--format", "json", "--profile", str(out))
    assert res.json["series"]["profile"] == "labtool" and res.code == 0
    kern = write(tmp_path, thread(Mail("[PATCH] Lab: drv1: fix", patch_body(trailers="", diff=hunk_diff(
        "drivers/lab/drv1/main.c", ["a"], ["b"])), to=LIST)), "k.mbox")
    res = cli("check", str(kern), "--format", "json", "--profile", str(out))
    assert res.json["series"]["profile"] == "lab" and "signed-off-by-missing" in res.rules()


def test_inputs_as_triage_reads_them_and_bad_input(tmp_path, cli):
    mbox = archive_of(lab_list(), tmp_path / "a.mbox")
    gz = tmp_path / "a.mbox.gz"
    gz.write_bytes(gzip.compress(mbox.read_bytes()))
    plain = cli("profile", "learn", str(mbox), "--jobs", "1")
    zipped = cli("profile", "learn", str(gz), "--jobs", "2")
    assert plain.code == zipped.code == 0
    assert tomllib.loads(plain.out) == tomllib.loads(zipped.out)  # the same profile (only the header names the file)
    maildir = tmp_path / "md"
    for d in ("cur", "new", "tmp"):
        (maildir / d).mkdir(parents=True)
    for i, chunk in enumerate(mbox.read_text().split("From mboxrd@z Thu Jan  1 00:00:00 1970\n")[1:]):
        (maildir / "cur" / f"{i:04d}.mail:2,S").write_text(chunk)
    assert tomllib.loads(cli("profile", "learn", str(maildir), "--jobs", "1").out)["trees"] == tomllib.loads(
        plain.out)["trees"]
    res = cli("profile", "learn", str(tmp_path / "missing.mbox"))
    assert res.code == 2 and "no such file" in res.err and "Traceback" not in res.err
    (tmp_path / "empty.mbox").write_text("")
    assert cli("profile", "learn", str(tmp_path / "empty.mbox")).code == 2


@pytest.mark.parametrize("flag", ["--progress", "--no-progress"])
def test_progress_goes_to_stderr_only(tmp_path, cli, flag):
    mbox = archive_of(lab_list(), tmp_path / "a.mbox")
    res = cli("profile", "learn", str(mbox), "--jobs", "1", flag)
    assert res.code == 0 and tomllib.loads(res.out)["name"] == "lab"
    assert ("reviewing" in res.err) == (flag == "--progress")


def test_a_public_inbox_as_a_directory_and_through_a_search(tmp_path, cli):
    from pi_server import PublicInboxServer, missing_tools

    if missing_tools():
        pytest.skip(f"public-inbox is not installed (missing {', '.join(missing_tools())}); tests/run.sh installs it")
    mbox = archive_of(lab_list(), tmp_path / "lab.mbox")
    server = PublicInboxServer(tmp_path / "pi", {"lab": [mbox]}).build()
    expected = tomllib.loads(cli("profile", "learn", str(mbox), "--jobs", "1").out)
    from_dir = cli("profile", "learn", str(tmp_path / "pi" / "lab"), "--jobs", "1")
    assert from_dir.code == 0, from_dir.err
    assert tomllib.loads(from_dir.out) == expected  # every message, in the order the inbox took them
    server.start()
    try:
        found = cli("profile", "learn", "--query", "s:lab", "--lore-url", server.midmask, "--jobs", "1")
    finally:
        server.stop()
    assert found.code == 0, found.err
    assert {t["name"] for t in tomllib.loads(found.out)["trees"]} == {"lab-next", "lab"}
    assert "search 's:lab'" in found.out.split("\n", 2)[0] + found.out.split("\n", 2)[1]
    assert cli("profile", "learn").code == 2


def test_how_many_applied_postings_make_a_finding_a_note(tmp_path, cli):
    def bare(i, **kw):
        return Posting(f"Rework the queue {i}", when=START + timedelta(days=i, hours=2), **kw)

    once, text, _ = learn(cli, tmp_path, lab_list() + [bare(1)], name="once.mbox")
    assert "subject-format" not in once["rules"]["severity"]
    assert "subject-format stays a warning: fired on 1 of 39 applied postings" in " ".join(text.split())
    twice, _, _ = learn(cli, tmp_path, lab_list() + [bare(1), bare(2)], name="twice.mbox")
    assert twice["rules"]["severity"]["subject-format"] == "info"
    # Sent back twice for it, naming it: the two it was taken with do not outweigh them.
    back = [bare(i, tree=None, reply="changes", reason="Please add a subject prefix.") for i in (3, 4)]
    contested, _, _ = learn(cli, tmp_path, lab_list() + [bare(1), bare(2)] + back, name="contested.mbox")
    assert "subject-format" not in contested["rules"]["severity"]
    # An error needs five applied postings: three without a sign-off keep signed-off-by-missing an error.
    unsigned = [Posting(f"lab: drv1: fix {i}", signed=False, when=START + timedelta(days=i, hours=3)) for i in range(3)]
    errors, text, _ = learn(cli, tmp_path, lab_list() + unsigned, name="errors.mbox")
    assert "signed-off-by-missing" not in errors["rules"]["severity"]
    assert "signed-off-by-missing stays an error: fired on 3 of 41 applied postings" in " ".join(text.split())


def test_a_tree_whose_postings_name_the_release_in_progress_takes_fixes(tmp_path, cli):
    # 2026-03: v7.0 is in its release candidates (data/kernel-releases.tsv), so [PATCH 7.0] is a fix for it.
    hot = [Posting(f"lab: drv1: fix a crash {i}", tree="lab-hot.git", tag="7.0", when=START + timedelta(days=i))
           for i in range(3)]
    data, _, _ = learn(cli, tmp_path, lab_list(24, 0, 0) + hot)
    tree = next(t for t in data["trees"] if t["name"] == "lab-hot")
    assert tree["kind"] == "fixes" and "of its postings 3 named the release in progress" in tree["source"]
    # Near miss: the same tree without release tags has nothing that says fixes.
    plain = [Posting(f"lab: drv1: fix a crash {i}", tree="lab-hot.git", when=START + timedelta(days=i)) for i in range(3)]
    data, text, _ = learn(cli, tmp_path, lab_list(24, 0, 0) + plain, name="plain.mbox")
    assert "lab-hot" not in {t["name"] for t in data.get("trees", ())} or next(
        t for t in data["trees"] if t["name"] == "lab-hot")["kind"] == "development"


def test_queues_the_posters_name_become_sub_trees(tmp_path, cli):
    """intel-wired-lan's way: postings tagged [q-next] and [q-lab] that no reply on the list
    answers (the queue's maintainer reposts them upstream) are queues feeding lab-next (its name
    says new work) and lab (named after it). A frequent tag whose kind cannot be told, and a rare
    one, are left out."""
    extra = [Posting(f"lab: q: add the knob {i}", path=f"drivers/lab/q/knob{i}.c", tree=None, tag="q-next",
                     when=START + timedelta(days=i, hours=2)) for i in range(12)]
    extra += [Posting(f"lab: q: fix the leak {i}", path=f"drivers/lab/q/leak{i}.c", tree=None, tag="q-lab",
                      when=START + timedelta(days=i, hours=3)) for i in range(10)]
    extra += [Posting(f"lab: misc: note {i}", path=f"drivers/lab/misc/n{i}.c", tree=None, tag="misc",
                      when=START + timedelta(days=i, hours=4)) for i in range(10)]
    extra += [Posting(f"lab: r: note {i}", path=f"drivers/lab/r/n{i}.c", tree=None, tag="r-next",
                      when=START + timedelta(days=i, hours=6)) for i in range(3)]
    data, text, out = learn(cli, tmp_path, lab_list() + extra)
    subs = {s["name"]: s for s in data["subtrees"]}
    assert (subs["q-next"]["feeds"], subs["q-next"]["paths"]) == ("lab-next", ["drivers/lab/q/"])
    assert subs["q-lab"]["feeds"] == "lab" and "ends in lab's" in subs["q-lab"]["source"]
    assert "misc" not in subs and "r-next" not in subs
    assert "the tag [misc] (10 postings): its kind cannot be told" in " ".join(text.split())
    prof = read_profile_file(out).profiles[0]
    assert prof.read_tree(["q-next"]).spec.name == "lab-next" and prof.read_tree(["q-lab"]).spec.name == "lab"


def test_the_lists_do_not_depend_on_the_order_reviews_finish():
    """Two lists on every applied posting: the same order (and so the same profile name) whatever
    order the parallel reviews came back in."""
    from reviewtool.learn.facts import Facts
    from reviewtool.learn.habits import learn_lists
    from reviewtool.learn.learned_profile import LearnedProfile

    a = Facts(1, recipients=("netdev@vger.kernel.org", "intel-wired-lan@lists.osuosl.org"))
    b = Facts(2, recipients=("intel-wired-lan@lists.osuosl.org", "netdev@vger.kernel.org", "x@example.org"))
    orders = []
    for facts in ([a, b], [b, a]):
        lp = LearnedProfile(name="p")
        learn_lists(lp, facts, frozenset())
        orders.append(lp.lists)
    assert orders[0] == orders[1] == ["intel-wired-lan@lists.osuosl.org", "netdev@vger.kernel.org"]


def test_appliers_named_by_maintainers_who_send_postings_back_are_learned_and_a_stranger_is_not(tmp_path, cli):
    """A queue's maintainer may apply without a word on the list but answer "This doesn't apply":
    one the shipped profiles name (their MAINTAINERS data) is learned as an applier from that; a
    stranger's same reply makes nobody one."""
    postings = lab_list() + [
        Posting("lab: drv2: tidy the probe", path="drivers/lab/drv2/main.c", tree=None, reply="changes",
                replier="Kalle Valo <kvalo@kernel.org>"),
        Posting("lab: drv3: tidy the remove", path="drivers/lab/drv3/main.c", tree=None, reply="changes",
                replier="Mallory <mallory@evil.example>")]
    data, text, _ = learn(cli, tmp_path, postings)
    appliers = data["replies"]["appliers"]
    assert "kvalo@kernel.org" in appliers and "mallory@evil.example" not in appliers
    assert "named by MAINTAINERS" in " ".join(text.split())


def test_the_list_is_the_address_everyone_posts_to_and_never_one_who_applies():
    """A maintainer's address in the To: of every pull request is no list: one who applies is left
    out; of two addresses on every posting, the one more people post to comes first."""
    from reviewtool.learn.facts import Facts
    from reviewtool.learn.habits import learn_lists
    from reviewtool.learn.learned_profile import LearnedProfile

    facts = [Facts(1, recipients=("davem@davemloft.example", "alpha@lists.example", "zeta-devel@lists.example")),
             Facts(2, recipients=("davem@davemloft.example", "alpha@lists.example", "zeta-devel@lists.example")),
             Facts(3, recipients=("zeta-devel@lists.example",))]
    posters = {1: "pablo@example.org", 2: "pablo@example.org", 3: "jane@example.org"}
    lp = LearnedProfile(name="p", appliers=["davem@davemloft.example"])
    learn_lists(lp, facts, frozenset(), posters)
    assert lp.lists == ["zeta-devel@lists.example", "alpha@lists.example"]
    # the archive's own list (the List-Id its mails carry) comes first, whoever posts to it
    lp = LearnedProfile(name="p", appliers=["davem@davemloft.example"])
    learn_lists(lp, facts, frozenset(), posters, own="alpha@lists.example")
    assert lp.lists == ["alpha@lists.example", "zeta-devel@lists.example"]


def test_the_archives_own_list_is_the_list_id_most_of_its_mails_carry():
    from types import SimpleNamespace

    from reviewtool.learn.archive import own_list
    from reviewtool.sources.index import _list_id

    assert _list_id("Netfilter development <netfilter-devel.vger.kernel.org>") == "netfilter-devel.vger.kernel.org"
    assert _list_id("no brackets here") is None and _list_id("") is None
    heads = [SimpleNamespace(list_id="netfilter-devel.vger.kernel.org")] * 3 + [SimpleNamespace(list_id=None)]
    assert own_list(heads) == "netfilter-devel@vger.kernel.org"
    # near miss: a List-Id on fewer than half of the mails names no list of the archive
    assert own_list(heads[:1] + [SimpleNamespace(list_id=None)] * 3) is None


def test_a_directory_counts_by_series_not_by_revisions(tmp_path, cli):
    # One driver patch reposted six times that also touches the hwrng core, applied nowhere on this
    # list (linux-wireless 2022 learned drivers/char/hw_random/ from 12 revisions of one patch)
    rng = [Posting("lab: drv1: let the rng sleep be interrupted", version=v, files=["drivers/char/hw_random/core.c"],
                   tree=None, when=START + timedelta(days=2 * v)) for v in range(1, 7)]
    data, text, out = learn(cli, tmp_path, lab_list() + rng)
    assert "drivers/char/hw_random/" not in data["paths"] and data["paths"] == ["drivers/lab/"]
    # near miss: five different series there, applied without a reply, make it the list's
    own = [Posting(f"lab: rng{i}: tidy the read path", path=f"drivers/char/hw_random/lab{i}.c", tree=None,
                   when=START + timedelta(days=i, hours=3)) for i in range(5)]
    data, text, out = learn(cli, tmp_path, lab_list() + own, name="own.mbox")
    assert "drivers/char/hw_random/" in data["paths"]
    assert "at least 5 series of the" in " ".join(text.split())
