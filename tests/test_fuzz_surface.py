"""Property-based hardening of the surface added since the first round (issue 22, item 4): cover
letters and version notes, every reply form triage reads, and profile TOML files (the shipped
ones, mutated, and a repository's own). Each input must give a review or report (exit 0 or 1)
or one line with exit 2, never an internal error (exit 3) or a traceback; the reply reader must
answer every text without raising. Inputs that once failed are kept as tests at the end.
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import hardening
from conftest import FIXTURES, ROOT
from gitrepo import GitRepo
from mailfactory import Mail, cover_body, patch_body, series_mails, thread, write
from test_fuzz_check import _mutate

from reviewtool.mail.replies import read_reply, read_reply_text

FUZZ = settings(max_examples=120, deadline=None, derandomize=True,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                       HealthCheck.function_scoped_fixture])
QUICK = settings(max_examples=600, deadline=None, derandomize=True,
                 suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

# Values a stranger puts where a parser expects a number, a word or a tree.
NUMBER = st.one_of(st.integers(0, 40).map(str), st.integers(1, 9).map(lambda k: "9" * 10 ** k if k < 4 else "9" * 5000),
                   st.sampled_from(["0", "-1", "1e9", "１２", "٣", "12345678901234567890", "3.5", ""]))
WORD = st.one_of(st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=30),
                 st.sampled_from(["net-next", "wireless-next.git", "ath.git", "(master)", "((((", "))))", "\u202e",
                                  "\x00", " " * 2000, "\t\n\t", "a" * 3000, "[[[[", "<<<<", "foo/bar.git/", ".git",
                                  "branch of", "for-next", "\u2066x\u2069"]))
WHITESPACE = st.sampled_from(["", " ", "\n", "\n\n", " " * 500, "\n" * 300, " \t" * 100, "\r\n"])


def _expect(res) -> None:
    assert res.code in (0, 1, 2), f"exit {res.code}: {res.err}"
    if res.code == 2:
        assert res.err.count("\n") == 1 and res.err.startswith("reviewtool: "), res.err


# -- cover letters and version notes ----------------------------------------------------------------

PROSE = st.one_of(
    st.builds("Patches {}-{} are cleanups.".format, NUMBER, NUMBER),
    st.builds("Patch {} fixes {}.".format, NUMBER, WORD),
    st.builds("Patches {}, {} and {} refactor {}.".format, NUMBER, NUMBER, NUMBER, WORD),
    st.builds("The first {} patches prepare, the last {} fix.".format, NUMBER, NUMBER),
    st.builds("The {} patch is a cleanup.".format, st.sampled_from(["first", "second", "tenth", "last", "eleventh"])),
    st.builds("Changes since v{}:\n- {}".format, NUMBER, WORD),
    st.builds("v{} -> v{}: {}".format, NUMBER, NUMBER, WORD),
    st.builds("Changes in v{}:{}- {}".format, NUMBER, WHITESPACE, WORD),
    st.builds("[v{}] {}".format, NUMBER, WORD),
    st.builds("Link to v{}: https://lore.kernel.org/r/{}".format, NUMBER, WORD),
    st.builds("Fixes: {} (\"{}\")".format, WORD, WORD),
    st.builds("{} {}".format, WHITESPACE, WORD),
    WORD,
)


@FUZZ
@given(cover=st.lists(PROSE, max_size=8), notes=st.lists(PROSE, max_size=4), version=NUMBER, total=NUMBER)
def test_cover_letters_and_version_notes(cli, tmp_path_factory, cover, notes, version, total):
    tmp = tmp_path_factory.mktemp("cover")
    mails = series_mails(2, version=2)
    mails[0].body = cover_body("\n\n".join(cover) or "A series.", notes="\n".join(notes))
    mails[1].body = patch_body(notes="\n".join(notes))
    for m in mails:
        m.subject = m.subject.replace("v2 ", f"v{version} ").replace("/2]", f"/{total}]")
    text = thread(*mails)
    hardening.tried(text.encode("utf-8", "surrogatepass"))
    path = tmp / "cover.mbox"
    path.write_bytes(text.encode("utf-8", "surrogatepass"))
    _expect(cli("check", path, "--format", "json"))


# -- every reply form triage reads ------------------------------------------------------------------

REPLY = st.one_of(
    st.builds("Hello:\n\nThis {} was applied to {}.git ({})\nby {}:\n\nHere is the summary with links:\n"
              "  - [{}/{}] {}\n    https://git.kernel.org/{}/c/{}\n".format,
              st.sampled_from(["patch", "series", "pull request"]), WORD, WORD, WORD, NUMBER, NUMBER, WORD, WORD, WORD),
    st.builds("Patch applied to {}, thanks.\n\n{} {}\n".format, WORD, WORD, WORD),
    st.builds("{} patches applied to {} branch of {}, thanks.\n\n{} {}\n{} {}\n".format,
              NUMBER, WORD, WORD, WORD, WORD, WORD, WORD),
    st.builds("{}\n\nPatch set to {}.\n".format, WORD, st.sampled_from(
        ["Changes Requested", "Superseded", "Rejected", "Deferred", "Not Applicable", "Accepted", "Bogus"])),
    st.builds("{} patches set to {}.\n".format, NUMBER, WORD),
    st.builds("Applied, thanks!\n\n[{}/{}] {}\n      commit: {}\n\nBest regards,\n-- \n{}\n".format,
              NUMBER, NUMBER, WORD, WORD, WORD),
    st.builds("{}\n\npw-bot: {}\n".format, WORD, st.sampled_from(
        ["cr", "changes-requested", "defer", "reject", "superseded", "awaiting-upstream", "", "x" * 500])),
    st.builds("Applied to {}{}\n".format, WORD, WHITESPACE),
    st.builds("{}NAK{}\n".format, WHITESPACE, WHITESPACE),
    st.builds("Nacked-by: {}\n".format, WORD),
    st.builds("> {}\n{}\n{}".format, WORD, WHITESPACE, WORD),
)
SENDER = st.sampled_from(["Kalle Valo <kvalo@kernel.org>", "patchwork-bot+netdevbpf@kernel.org",
                          "Jane Developer <jane@example.org>", "\u202eevil <x@y>", "<>", ""])


@QUICK
@given(body=st.lists(REPLY, min_size=1, max_size=3), sender=SENDER, subject=WORD)
def test_the_reply_reader_answers_every_text(body, sender, subject):
    text = "\n".join(body)
    hardening.tried(text.encode("utf-8", "surrogatepass"))
    action = read_reply_text(sender=sender, date="Tue, 05 Mar 2024 18:55:52 +0000", subject=f"Re: {subject}",
                             body=text, msgid="r@x", in_reply_to="p@x")
    assert action is None or action.state


START = datetime(2024, 3, 1, 10, tzinfo=timezone.utc)


@FUZZ
@given(body=st.lists(REPLY, min_size=1, max_size=2), sender=SENDER)
def test_triage_reads_every_reply_form(cli, tmp_path_factory, body, sender):
    tmp = tmp_path_factory.mktemp("reply")
    mails = series_mails(2, tree="wireless-next")
    reply = Mail("Re: " + mails[1].subject, "\n".join(body), sender=sender or "x@y",
                 in_reply_to="20261102100000.1002-2-jane@example.org", msgid="reply@kernel.example",
                 date=START + timedelta(days=1))
    text = thread(*mails, start=START) + "\n" + thread(reply, start=START)
    data = text.encode("utf-8", "surrogatepass")
    hardening.tried(data)
    path = tmp / "replies.mbox"
    path.write_bytes(data)
    res = cli("triage", path, "--format", "json", "--now", "2024-04-01", "--no-store")
    _expect(res)
    if res.code != 2:
        assert not [s for s in res.json["skipped"] if "internal error" in s["reason"]]


REAL_REPLIES = (FIXTURES / "replies" / "wireless-replies.mbox").read_bytes()


@FUZZ
@given(ops=st.lists(st.tuples(st.integers(0, 7), st.integers(0, 10 ** 7), st.integers(0, 255)), min_size=1,
                    max_size=6))
def test_mutated_real_replies(cli, tmp_path_factory, ops):
    """The hand-made stretch of real reply forms (fixtures/replies), damaged byte by byte."""
    data = _mutate(REAL_REPLIES, ops)
    hardening.tried(data)
    path = tmp_path_factory.mktemp("mut") / "replies.mbox"
    path.write_bytes(data)
    res = cli("triage", path, "--format", "json", "--now", "2024-04-01", "--no-store")
    _expect(res)
    if res.code != 2:
        assert not [s for s in res.json["skipped"] if "internal error" in s["reason"]]


# -- profile TOML, shipped and a repository's own ----------------------------------------------------

SHIPPED = sorted((ROOT / "reviewtool" / "profiles").glob("*.toml"))
HOSTILE_VALUES = st.sampled_from([
    "9" * 5000, "[" * 3000 + "]" * 3000, "{a = " * 500 + "1" + "}" * 500, '"' + "x" * 100000 + '"', "true",
    "[1, 2]", '"(a+)+$"', '"["', "1979-05-27T07:32:00Z", "-1", "nan", '"\\u202e"', "{}", "[[]]", '"net"'])
KEYS = st.sampled_from(["extends", "trees", "settings", "rules", "replies", "max_patches", "tree_aliases", "closures",
                        "separate_paths", "untagged", "required_prefixes", "subtrees", "lists", "paths", "tags"])


def _repo_with(tmp: Path, config: bytes) -> Path:
    repo = GitRepo(tmp / "repo")
    repo.commit("foo: start\n", {"net/core/dev.c": "int x;\n"})
    (repo.path / ".reviewtool.toml").write_bytes(config)
    return repo.path


@FUZZ
@given(seed=st.integers(0, len(SHIPPED) - 1),
       ops=st.lists(st.tuples(st.integers(0, 7), st.integers(0, 10 ** 6), st.integers(0, 255)), min_size=1,
                    max_size=4))
def test_mutated_shipped_profiles_in_a_repository(cli, tmp_path_factory, seed, ops):
    tmp = tmp_path_factory.mktemp("prof")
    text = SHIPPED[seed].read_bytes()
    name = SHIPPED[seed].stem
    # A shipped profile as a repository's own: every table under [profiles.NAME].
    lines = [b"[profiles.mine]" if not line.startswith(b"[") else line.replace(b"[", b"[profiles.mine.", 1)
             .replace(b"[profiles.mine.[", b"[[profiles.mine.", 1) for line in text.splitlines()]
    config = _mutate(b"\n".join(lines), ops)
    hardening.tried(config)
    repo = _repo_with(tmp, config)
    box = write(tmp, thread(*series_mails(2)))
    for args in (("--profile", "mine"), ("--profile", name)):
        _expect(cli("check", box, "--repo", repo, "--format", "json", *args))


@FUZZ
@given(table=st.lists(st.tuples(KEYS, HOSTILE_VALUES), min_size=1, max_size=4), extends=st.booleans())
def test_hostile_profile_tables(cli, tmp_path_factory, table, extends):
    tmp = tmp_path_factory.mktemp("hostile")
    body = "".join(f"{k} = {v}\n" for k, v in table)
    config = (("[profiles.mine]\nextends = \"netdev\"\n" if extends else "[profiles.mine]\n") + body).encode()
    hardening.tried(config)
    repo = _repo_with(tmp, config)
    box = write(tmp, thread(*series_mails(2)))
    _expect(cli("check", box, "--repo", repo, "--format", "json", "--profile", "mine"))


# -- found by the fuzzing above, kept ---------------------------------------------------------------

def test_a_repository_profile_with_an_int_of_5000_digits_is_one_line(tmp_path, cli):
    repo = _repo_with(tmp_path, b"[profiles.mine]\nextends = \"netdev\"\n[profiles.mine.settings]\nmax_patches = "
                      + b"9" * 5000 + b"\n")
    res = cli("check", write(tmp_path, thread(*series_mails(2))), "--repo", repo, "--profile", "mine")
    assert res.code == 2 and ".reviewtool.toml" in res.err and res.err.count("\n") == 1


def test_a_repository_profile_nested_3000_deep_is_one_line(tmp_path, cli):
    repo = _repo_with(tmp_path, b"[profiles.mine]\nlists = " + b"[" * 3000 + b"]" * 3000 + b"\n")
    res = cli("check", write(tmp_path, thread(*series_mails(2))), "--repo", repo, "--profile", "mine")
    assert res.code == 2 and ".reviewtool.toml" in res.err and res.err.count("\n") == 1


def test_a_reply_whose_charset_holds_a_nul_is_read_as_no_reply(tmp_path, cli):
    """The email package raises ValueError decoding a payload whose charset holds a NUL: the
    reply reader gave an internal error for the whole series."""
    raw = (b"From: Kalle Valo <kvalo@kernel.org>\nSubject: Re: [PATCH] x\nMessage-ID: <r@x>\n"
           b"In-Reply-To: <p@x>\nContent-Type: text/plain; charset=\"utf\x00-8\"\n"
           b"Content-Transfer-Encoding: base64\n\nUGF0Y2ggYXBwbGllZCB0byB3aXJlbGVzcy1uZXh0LmdpdCwgdGhhbmtzLgo=\n")
    assert read_reply(raw) is None or read_reply(raw).state
    mails = series_mails(1, cover=False, tree="wireless-next")
    box = write(tmp_path, thread(*mails, start=START))
    reply = raw.replace(b"<p@x>", b"<20261102100000.1000-0-jane@example.org>").replace(b"<r@x>", b"<r@kernel.example>")
    with open(box, "ab") as fh:
        fh.write(b"\nFrom mboxrd@z Thu Jan  1 00:00:00 1970\nDate: Sat, 02 Mar 2024 10:00:00 +0000\n" + reply)
    res = cli("triage", box, "--format", "json", "--now", "2024-04-01", "--no-store")
    assert res.code in (0, 1) and not res.json["skipped"], res.out[:300]


def test_undecodable_bytes_in_a_message_id_give_one_json_with_and_without_the_store(tmp_path, cli):
    """A Message-ID with bytes that are no UTF-8 (kept as lone surrogates): its link could not be
    quoted and its row could not be stored (internal error, then a store dropped for the run)."""
    mails = series_mails(2, tree="wireless-next")
    text = thread(*mails, start=START).encode()
    box = tmp_path / "odd.mbox"
    box.write_bytes(text.replace(b"1000-0-jane@example.org", b"1000-0-jane@\xc3(\xff\xfeexample.org"))
    store = tmp_path / "store.sqlite"
    runs = [cli("triage", box, "--format", "json", "--now", "2024-04-01", *args)
            for args in (["--no-store"], ["--store", store], ["--store", store])]
    assert all(r.code in (0, 1) and r.err == "" for r in runs), [r.err for r in runs]
    assert runs[0].out == runs[1].out == runs[2].out and "%EF%BF%BD" in runs[0].out
