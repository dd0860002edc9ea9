"""`profile learn` on a list that carries several projects (netfilter-devel: the kernel's trees and
nftables, iptables, libmnl, ...; linux-bluetooth: the kernel's trees and BlueZ), on archives of our
own (tests/listarchive.py): each project its own profile, chosen by its subject tag, with its own
habits."""

from __future__ import annotations

import tomllib
from datetime import timedelta

from listarchive import LIST, START, Posting, archive_of, lab_list
from mailfactory import Mail, hunk_diff, patch_body, thread, write


def learn(cli, tmp_path, postings, name="list.mbox"):
    mbox = archive_of(postings, tmp_path / name)
    out = tmp_path / (name + ".toml")
    res = cli("profile", "learn", str(mbox), "-o", str(out), "--jobs", "1")
    assert res.code == 0, res.err
    text = out.read_text()
    return tomllib.loads(text), " ".join(text.replace("\n# ", " ").split()), out


def tool(tag, n, *, signed=True, first=True, path="src/", hours=2, **kw):
    """A user-space project's postings, tagged and answered with a plain "Applied, thanks"."""
    return [Posting(f"{tag}: fix the parser {i}", path=f"{path}parse{i % 3}.c", files=[f"tests/shell/t{i}.sh"],
                    tag=tag, tag_first=first, signed=signed, tree=None, reply="thanks",
                    when=START + timedelta(days=i, hours=hours), **kw) for i in range(n)]


def check(cli, tmp_path, out, subject, path, name, signed=False):
    body = patch_body(trailers="Signed-off-by: Jane Developer <jane@example.org>" if signed else "",
                      diff=hunk_diff(path, ["a"], ["b"]))
    return cli("check", str(write(tmp_path, thread(Mail(subject, body, to=LIST)), name)), "--format", "json",
               "--profile", str(out))


def test_a_project_no_reply_names_is_known_by_its_tag(tmp_path, cli):
    """netfilter-devel's way: the maintainers answer a [labctl PATCH] posting with a plain
    "Applied, thanks". The tag is a project of its own: one development tree, chosen by the tag,
    the rules of a fixes/development pair off, its habits (no sign-offs, the tag before PATCH) its
    own, the kernel's kept."""
    data, text, out = learn(cli, tmp_path, lab_list() + tool("labctl", 22, signed=False))
    profs = data["profiles"]
    assert data["profile"] == "lab" and set(profs) == {"lab", "labctl"}
    ctl = profs["labctl"]
    assert [(t["name"], t["kind"]) for t in ctl["trees"]] == [("labctl", "development")]
    assert "pair" not in ctl["trees"][0] and "git" not in ctl["trees"][0]  # nothing names its repository
    assert "22 applied postings (2026-03) tagged [labctl] whose replies name no tree" in ctl["trees"][0]["source"]
    assert ctl["select_by_files"] is False
    assert {"tree-mismatch", "split-series", "fix-for-next-only-code", "net-next-closed"} <= set(ctl["rules"]["disable"])
    assert "signed-off-by-missing" in ctl["rules"]["disable"]
    assert ctl["settings"]["tag_before_patch"] is True
    assert "signed-off-by-missing" not in profs["lab"]["rules"]["disable"]
    assert "tree-mismatch" not in profs["lab"]["rules"]["disable"]
    assert "the tag [labctl]" not in text  # no queue of the kernel's, no kind left untold
    res = check(cli, tmp_path, out, "[labctl PATCH] parser: fix x", "src/parse.c", "t.mbox")
    assert res.json["series"]["profile"] == "labctl" and res.code == 0
    assert [p["tree"] for p in res.json["verdict"]["patches"]] == ["labctl"]
    assert "subject-format" not in res.rules()
    kern = check(cli, tmp_path, out, "[PATCH] lab: drv1: fix x", "drivers/lab/drv1/main.c", "k.mbox")
    assert kern.json["series"]["profile"] == "lab" and "signed-off-by-missing" in kern.rules()


def test_a_tag_in_the_kernels_layout_or_from_a_stranger_is_no_project(tmp_path, cli):
    """Near misses: postings tagged [lab-hot] that touch the kernel's files, applied without a
    tree named, are a kernel tree whose kind nothing tells; a tag only a stranger's "Applied"
    answered is no project at all."""
    hot = [Posting(f"lab: drv1: fix a crash {i}", tag="lab-hot", tree=None, reply="thanks",
                   when=START + timedelta(days=i, hours=3)) for i in range(4)]
    stray = tool("labx", 4, replier="Someone Else <someone@example.org>")
    data, text, _ = learn(cli, tmp_path, lab_list() + hot + stray)
    assert "profiles" not in data and {t["name"] for t in data["trees"]} == {"lab-next", "lab"}
    assert ("the tag [lab-hot]: 4 applied postings that no reply names a tree for, in the kernel's layout: a kernel "
            "tree whose kind nothing in the archive tells") in text
    assert "labx" not in str(data) and "Not counted: 4 plain 'Applied' replies from someone@example.org" in text


def test_small_projects_share_one_profile_and_the_tag_projects_habits(tmp_path, cli):
    """Projects with too few applied postings for habits of their own share one profile, a tree
    each, whose habits are those of every tag-chosen project of the list together (said so)."""
    postings = lab_list() + tool("labctl", 22, signed=False) + tool("libfoo", 3, signed=False, first=False,
                                                                    path="lib/foo/", hours=4)
    postings += tool("libbar", 2, signed=False, first=False, path="bar/", hours=5)
    data, text, out = learn(cli, tmp_path, postings)
    profs = data["profiles"]
    assert set(profs) == {"lab", "labctl", "other-projects"}
    other = profs["other-projects"]
    assert [t["name"] for t in other["trees"]] == ["libfoo", "libbar"]
    assert "signed-off-by-missing" in other["rules"]["disable"]  # learned from the 27 tag-chosen postings
    assert ("its own habits: 5 applied postings were reviewed, fewer than 20; those below are of the 27 applied "
            "postings of the list's projects known by their tags (labctl, libfoo, libbar) together") in text
    res = check(cli, tmp_path, out, "[PATCH libbar] bar: fix y", "bar/y.c", "b.mbox")
    assert res.json["series"]["profile"] == "other-projects" and res.code == 0
    assert [p["tree"] for p in res.json["verdict"]["patches"]] == ["libbar"]
    # Near miss: one small project alone keeps its own profile (and its habits are all tag-chosen projects').
    data, _, _ = learn(cli, tmp_path, lab_list() + tool("labctl", 22, signed=False)
                       + tool("libfoo", 3, signed=False, first=False, path="lib/foo/", hours=4), name="one.mbox")
    assert set(data["profiles"]) == {"lab", "labctl", "libfoo"}


def test_a_tag_a_shipped_profile_names_takes_that_trees_name(tmp_path, cli):
    """[nft PATCH] is nftables in the shipped netfilter-userspace profile: the learned tree is
    named so (the name its maintainers and the scorers use), [nft] one of its tags."""
    data, text, out = learn(cli, tmp_path, lab_list() + tool("nft", 22))
    tree = data["profiles"]["nftables"]["trees"][0]
    assert (tree["name"], tree["tags"], tree["git"]) == ("nftables", ["nft"], "nftables.git")
    assert "[nft] is nftables in the shipped netfilter-userspace profile" in tree["source"]
    res = check(cli, tmp_path, out, "[PATCH nft] parser: fix x", "src/parse.c", "n.mbox", signed=True)
    assert res.json["series"]["profile"] == "nftables"
    assert [p["tree"] for p in res.json["verdict"]["patches"]] == ["nftables"]


def test_bluez_beside_the_kernels_bluetooth_trees(tmp_path, cli):
    """linux-bluetooth's way: the bot names every tree (bluetooth-next.git, bluetooth.git,
    bluez.git). BlueZ's files are not the kernel's layout and it has one tree: no pair rules, no
    merge window; half its patches carry no sign-off, which its maintainers take (a note), while
    the kernel's trees keep the sign-off an error."""
    kernel = [Posting(f"Bluetooth: hci{i % 3}: rework {i}", path=f"net/bluetooth/hci{i % 3}.c",
                      tree="bluetooth/bluetooth-next.git", reply="korg", when=START + timedelta(days=i))
              for i in range(22)]
    kernel += [Posting(f"Bluetooth: hci{i % 3}: fix a leak {i}", path=f"net/bluetooth/hci{i % 3}.c", fixes=True,
                       tree="bluetooth/bluetooth.git", reply="korg", when=START + timedelta(days=i, hours=5))
               for i in range(6)]
    bluez = [Posting(f"shared/gatt: fix the read {i}", path=f"src/shared/gatt{i % 3}.c", files=[f"tools/t{i}.c"],
                     tag="BlueZ", signed=i % 2 == 0, tree="bluetooth/bluez.git", reply="korg",
                     when=START + timedelta(days=i, hours=7)) for i in range(24)]
    data, text, out = learn(cli, tmp_path, kernel + bluez)
    profs = data["profiles"]
    assert set(profs) == {"lab", "bluez"}
    bz = profs["bluez"]
    assert [(t["name"], t["kind"]) for t in bz["trees"]] == [("BlueZ", "development")]
    assert {"tree-mismatch", "split-series", "net-next-closed"} <= set(bz["rules"]["disable"])
    assert "closed_in_merge_window" not in bz["trees"][0]
    assert bz["rules"]["severity"]["signed-off-by-missing"] == "info"
    assert "net-next-closed" not in profs["lab"]["rules"]["disable"]
    res = check(cli, tmp_path, out, "[PATCH BlueZ] shared/gatt: fix x", "src/shared/gatt.c", "z.mbox")
    assert res.json["series"]["profile"] == "bluez" and res.code == 0
    kern = check(cli, tmp_path, out, "[PATCH] Bluetooth: hci0: fix x", "net/bluetooth/hci0.c", "k.mbox")
    assert kern.json["series"]["profile"] == "lab" and "signed-off-by-missing" in kern.rules() and kern.code == 1


def test_a_tag_is_a_project_only_in_a_trees_shape(tmp_path, cli):
    """A subject tag is a stranger's text: a project is named by one in a tree's shape (`lib.foo`,
    its profile `lib-foo`, a bare TOML key), and a tag with TOML syntax in it is left out, said;
    the file reads back as `--profile` reads it."""
    data, text, out = learn(cli, tmp_path, lab_list() + tool("labctl", 22) + tool("lib.foo", 3, path="lib/foo/", hours=4)
                            + tool('x="y"', 3, path="x/", hours=5))
    assert set(data["profiles"]) == {"lab", "labctl", "lib-foo"}
    assert [t["name"] for t in data["profiles"]["lib-foo"]["trees"]] == ["lib.foo"]
    assert "but it has no tree's shape" in text
    res = check(cli, tmp_path, out, "[PATCH lib.foo] foo: fix y", "lib/foo/y.c", "f.mbox", signed=True)
    assert res.json["series"]["profile"] == "lib-foo" and res.code == 0
