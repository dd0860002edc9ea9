"""A public-inbox inbox is read in place by every command that reads archives (issue 29): its
epochs' commits through one `git cat-file --batch` stream each, nothing written out; the result
store keeps each epoch under the commit read last, so that the next run reads only the commits
made since. Inboxes are made by public-inbox's own tools (tests/pi_inbox.py), of several epochs
(public-inbox starts a new one at about a gigabyte; here at a few kilobytes)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from mailfactory import Mail, hunk_diff, patch_body, series_mails, thread, write
from pi_inbox import PublicInbox, missing_tools
from pi_server import lore_server  # noqa: F401  (session fixture)
from test_triage_status import NOW, RULES

pytestmark = pytest.mark.skipif(bool(missing_tools()), reason="public-inbox is not installed; tests/run.sh installs it")
STORE_RE = re.compile(r"archive files: (\d+) read from where the last run stopped, (\d+) read whole, (\d+) "
                      r"unchanged \((\d+) mails read\)")


def _series(k: int, review: bool = False) -> str:
    mails = series_mails(2, subjects={1: f"foo: fix path {k}", 2: f"foo: fix flags {k}"},
                         bodies={i: patch_body(diff=hunk_diff(f"drivers/net/foo{k}.c", ["int a;"], [f"int a{k}{i};"]))
                                 for i in (1, 2)})
    text = thread(*mails, domain=f"s{k}.example")
    if review:
        rita = Mail(f"Re: [PATCH net 1/2] foo: fix path {k}", "> Pass the flags.\n\nLooks right.\n\n"
                    "Reviewed-by: Rita Reviewer <rita@example.org>\n", sender="Rita Reviewer <rita@example.org>",
                    msgid=f"rita-{k}@s{k}.example", in_reply_to=f"20261102100000.1001-1-jane@s{k}.example")
        text += "\n" + thread(rita, domain=f"s{k}.example")
    return text


def _mbox(tmp_path: Path, name: str, ks) -> Path:
    return write(tmp_path, "\n".join(_series(k, review=k % 3 == 0) for k in ks), name)


def _triage(cli, source, *extra: str) -> str:
    res = cli("triage", source, *RULES, "--format", "json", "--now", NOW, *extra)
    assert res.code in (0, 1), res.err
    return res


def _same_but_inputs(a: str, b: str) -> bool:
    x, y = json.loads(a), json.loads(b)
    x.pop("inputs"), y.pop("inputs")
    return x == y


@pytest.fixture
def inbox(tmp_path):
    """A v2 inbox of 12 series (3 of them reviewed) in at least three epochs."""
    mbox = _mbox(tmp_path, "list.mbox", range(12))
    pi = PublicInbox(tmp_path / "pi").add(mbox, rotate_bytes=6000)
    assert len(pi.epochs()) >= 3
    return pi, mbox


def test_a_v2_inbox_of_several_epochs_is_triaged_checked_and_learned_in_place(inbox, tmp_path, cli):
    pi, mbox = inbox
    from_inbox = _triage(cli, pi.path, "--no-store")
    assert json.loads(from_inbox.out)["totals"]["series"] == 12
    assert _same_but_inputs(from_inbox.out, _triage(cli, mbox, "--no-store").out)
    msgid = "20261102100000.1000-0-jane@s6.example"
    checked = cli("check", pi.path, "--msgid", msgid, "--format", "json")
    from_file = cli("check", mbox, "--msgid", msgid, "--format", "json")
    assert checked.code == from_file.code, checked.err
    assert checked.json["series"]["msgid"] == msgid
    reviews = [res.json for res in (checked, from_file)]
    assert [r["series"].pop("source") for r in reviews] == [str(pi.path), str(mbox)]
    assert reviews[0] == reviews[1]
    gone = cli("check", pi.path, "--msgid", "nobody@example.org")
    assert gone.code == 2 and "is not in the input" in gone.err
    learned = cli("profile", "learn", pi.path, "--jobs", "1")
    assert learned.code == 0 and "40 messages" in learned.out.replace(",", "")


def test_the_store_reads_only_the_commits_made_since(inbox, tmp_path, cli):
    pi, _ = inbox
    store = ("--store", tmp_path / "s.sqlite", "--store-info")
    cold = _triage(cli, pi.path, *store)
    epochs = len(pi.epochs())
    assert STORE_RE.search(cold.err).groups() == ("0", str(epochs), "0", "40")
    warm = _triage(cli, pi.path, *store)
    assert STORE_RE.search(warm.err).groups() == ("0", "0", str(epochs), "0") and warm.out == cold.out
    pi.add(_mbox(tmp_path, "day.mbox", (12, 13)))  # a day's mail: two series, one reviewed, into the last epoch
    assert len(pi.epochs()) == epochs
    grown = _triage(cli, pi.path, *store)
    assert STORE_RE.search(grown.err).groups() == ("1", "0", str(epochs - 1), "7")
    assert grown.out == _triage(cli, pi.path, "--no-store").out
    assert json.loads(grown.out)["totals"]["series"] == 14


def test_a_message_removed_from_the_inbox_is_gone(inbox, tmp_path, cli):
    pi, _ = inbox
    store = ("--store", tmp_path / "s.sqlite")
    before = json.loads(_triage(cli, pi.path, *store).out)
    pi.remove(write(tmp_path, _series(12 - 1), "spam.mbox"))  # the newest series, taken out
    after = json.loads(_triage(cli, pi.path, *store).out)
    assert after == json.loads(_triage(cli, pi.path, "--no-store").out)
    assert before["totals"]["series"] == 12 and after["totals"]["series"] == 11
    assert not any(s["msgid"].endswith("@s11.example") for s in after["series"])


def test_a_v1_inbox_and_a_mirror_of_the_epochs_alone(inbox, tmp_path, cli):
    pi, mbox = inbox
    expected = _triage(cli, mbox, "--no-store").out
    v1 = PublicInbox(tmp_path / "pi1", version=1).add(mbox)
    assert not (v1.path / "git").exists() and (v1.path / "objects").is_dir()
    assert _same_but_inputs(_triage(cli, v1.path, "--no-store").out, expected)
    mirror = tmp_path / "mirror" / "list"  # what grokmirror keeps of a v2 list: its epochs, no inbox.lock
    for epoch in pi.epochs():
        shutil.copytree(epoch, mirror / "git" / epoch.name)
    assert _same_but_inputs(_triage(cli, mirror, "--no-store").out, expected)
    one = _triage(cli, pi.epochs()[0], "--no-store")  # one epoch given alone: its mails
    assert 0 < json.loads(one.out)["totals"]["messages"] < 40


def test_a_git_repository_that_holds_no_messages_is_refused(tmp_path, cli):
    repo = tmp_path / "code.git"
    subprocess.run(["git", "init", "-q", "--bare", str(repo)], check=True)
    work = tmp_path / "work"
    subprocess.run(["git", "clone", "-q", str(repo), str(work)], check=True, capture_output=True)
    (work / "main.c").write_text("int main(void) { return 0; }\n")
    for args in (["add", "main.c"], ["-c", "user.name=A", "-c", "user.email=a@example.org", "commit", "-qm", "start"],
                 ["push", "-q", "origin", "HEAD"]):
        subprocess.run(["git", "-C", str(work), *args], check=True, capture_output=True)
    res = cli("triage", repo, "--no-store")
    assert res.code == 2 and "not a public-inbox" in res.err and len(res.err.splitlines()) == 1


def test_a_clone_made_by_public_inbox_clone(lore_server, tmp_path, cli):
    """A mirror made by public-inbox-clone from a real public-inbox-httpd, as of lore."""
    if shutil.which("public-inbox-clone") is None:
        pytest.skip("public-inbox-clone is not installed")
    dest = tmp_path / "netdev"
    res = subprocess.run(["public-inbox-clone", f"{lore_server.base_url}/netdev", str(dest)], capture_output=True,
                         text=True, env={**lore_server.env, "HOME": str(tmp_path)})
    assert res.returncode == 0, res.stderr
    served = lore_server.workdir / "netdev"
    assert _same_but_inputs(_triage(cli, dest, "--no-store").out, _triage(cli, served, "--no-store").out)
    assert json.loads(_triage(cli, dest, "--no-store").out)["totals"]["series"] >= 2

