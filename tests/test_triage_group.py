"""Triage input and grouping: the streaming index reads exactly what `check` reads, and an
archive is cut into series and revisions the way a maintainer would (real corpus threads and
hand-built netdev-style threads)."""

from __future__ import annotations

import gzip
import os
import shutil
import subprocess
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from conftest import CORPUS
from mailfactory import Mail, hunk_diff, patch_body, series_mails, thread, write
from reviewtool.sources.files import parse_mails, read_raw_mails
from reviewtool.triage.group import group_archive
from reviewtool.sources.archives import index_inputs
from reviewtool.sources.index import raw_mail

NF = CORPUS / "netfilter-devel"
NOW = "2026-11-20"
IPVS = [NF / f"nf-next-ipvs-cleanups-v{n}.mbox" for n in (1, 2, 3)]
IPVS_V3 = "20230409-ipvs-cleanup-v3-0-5149ea34b0b9@kernel.org"


def triage_json(cli, *args):
    res = cli("triage", *map(str, args), "--format", "json", "--now", NOW)
    assert res.code in (0, 1), res.err
    return res.json


def by_status(report, status):
    return [i for i in report["series"] if i["status"] == status]


def concat(tmp_path: Path, name: str, *files: Path) -> Path:
    out = tmp_path / name
    with open(out, "wb") as fh:
        for f in files:
            fh.write(f.read_bytes().rstrip(b"\n") + b"\n\n")
    return out


def corpus_mail_files():
    return sorted(p for p in CORPUS.rglob("*") if p.is_file() and p.suffix in (".mbox", ".gz"))


def test_index_gives_the_bytes_check_reads_for_every_corpus_file(tmp_path):
    """Offsets + re-read == files.read_raw_mails, for mboxo, mboxrd, single mails and gzip."""
    checked = 0
    for path in corpus_mail_files():
        try:
            expected = read_raw_mails(path)
        except Exception:
            continue  # files `check` rejects (empty, binary) are not indexed either
        heads = list(index_inputs([path], tmp_path))
        got = []
        for h in heads:
            with open(h.ref.path, "rb") as fh:
                got.append(raw_mail(h.ref, fh).data)
        assert got == [r.data for r in expected if parse_mails([r])], path
        checked += 1
    assert checked > 100


def test_index_headers_are_what_the_parser_sees(tmp_path):
    """The streaming index reads headers itself (fast); it must see what `check` sees."""
    from reviewtool.mail.headers import header, message_id_of
    from reviewtool.mail.headers import msg_date

    compared = 0
    for path in corpus_mail_files():
        try:
            raws = read_raw_mails(path)
        except Exception:
            continue
        heads = list(index_inputs([path], tmp_path))
        msgs = [m for r in raws for m in parse_mails([r])]
        assert len(heads) == len(msgs), path
        for h, msg in zip(heads, msgs):
            assert h.msgid == message_id_of(msg), path
            if header(msg, "Subject"):
                assert h.subject == header(msg, "Subject"), path
            d = msg_date(msg)
            if "fuzz" not in path.parts:  # fuzzed Date lines: the age may differ, never the grouping
                assert h.date == (d.timestamp() if d else None), path
            compared += 1
    assert compared > 300


def test_revisions_newest_triaged_older_superseded(tmp_path, cli):
    archive = concat(tmp_path, "ipvs.mbox", *IPVS)
    report = triage_json(cli, archive)
    triaged = [i for i in report["series"] if i["status"] != "superseded"]
    assert [i["msgid"] for i in triaged] == [IPVS_V3]
    assert triaged[0]["revision"] == 3
    old = by_status(report, "superseded")
    assert sorted(i["revision"] for i in old) == [1, 2]
    assert all(i["superseded_by"]["msgid"] == IPVS_V3 for i in old)
    assert sorted(s["revision"] for s in triaged[0]["superseded"]) == [1, 2]


def test_triaged_review_is_the_check_review(tmp_path, cli, check_json):
    """Same rules, same context: the findings of a series in triage are those of `check`."""
    archive = concat(tmp_path, "ipvs.mbox", *IPVS)
    item = next(i for i in triage_json(cli, archive)["series"] if i["status"] != "superseded")
    checked = check_json(archive).json
    assert item["findings"] == checked["findings"]
    assert item["received"] == checked["series"]["received"]


def test_partial_reroll_is_one_series_with_the_older_revision_superseded(cli):
    report = triage_json(cli, CORPUS / "b4" / "trailers-followup-partial-reroll.mbox")
    triaged = [i for i in report["series"] if i["status"] != "superseded"]
    assert len(triaged) == 1 and triaged[0]["revision"] == 3
    assert triaged[0]["received"] == [1, 2] and triaged[0]["missing"] == []  # b4 rebuilt it from v2
    assert [i["revision"] for i in by_status(report, "superseded")] == [2]


def test_replies_without_their_patch_are_listed_not_triaged(tmp_path, cli):
    orphan = Mail("Re: [PATCH net 2/3] foo: fix thing number 2", "> quoted\n\nThis leaks on error.\n",
                  sender="Rita Reviewer <rita@example.org>", in_reply_to="not-in-archive@example.org",
                  msgid="orphan-reply@example.org")
    archive = write(tmp_path, thread(*series_mails(2, tree="net-next")) + "\n" + thread(orphan, domain="o.example"))
    report = triage_json(cli, archive)
    assert report["totals"]["series"] == 1 and report["totals"]["orphan_replies"] == 1
    assert report["orphans"][0]["msgid"] == "orphan-reply@example.org"
    assert report["orphans"][0]["subject"] == "Re: [PATCH net 2/3] foo: fix thing number 2"
    assert all(i["msgid"] != "orphan-reply@example.org" for i in report["series"])


def test_non_patch_mail_is_counted_and_skipped(tmp_path, cli):
    archive = concat(tmp_path, "mixed.mbox", NF / "announce-nftables-1.0.9-not-a-patch.mbox",
                     NF / "nf-socket-icmp6-use-after-scope.mbox")
    report = triage_json(cli, archive)
    # the announcement is known by its kind (mail/kinds.py), listed apart from other threads
    assert (report["totals"]["other_threads"], report["totals"]["not_series"]) == (0, {"announcement": 1})
    assert [i["full_subject"] for i in report["series"]] == [
        "[PATCH nf] netfilter: socket: icmp6: fix use-after-scope"]


def test_unthreaded_series_is_joined_like_patchwork_does(cli):
    report = triage_json(cli, NF / "unthreaded-nf-ipset-1-4.mbox")
    assert report["totals"]["series"] == 1
    assert report["series"][0]["received"] == [1, 2, 3, 4]


def test_weekly_pull_with_the_same_subject_is_not_a_revision(tmp_path, cli):
    """"Netfilter fixes for net" every week: same summary and sender, different patches."""
    start = datetime(2026, 11, 2, 10, tzinfo=timezone.utc)
    def body(name):  # each week's patches change other lines
        return patch_body(diff=hunk_diff("net/netfilter/core.c", [f"int {name};"], [f"long {name};"]))
    week1 = series_mails(2, tree="net", subjects={1: "netfilter: a", 2: "netfilter: b"},
                         bodies={1: body("a"), 2: body("b")})
    week2 = series_mails(2, tree="net", subjects={1: "netfilter: c", 2: "netfilter: d"},
                         bodies={1: body("c"), 2: body("d")})
    archive = write(tmp_path, thread(*week1, start=start, domain="w1.example")
                    + "\n" + thread(*week2, start=start + timedelta(days=7), domain="w2.example"))
    report = triage_json(cli, archive)
    assert report["totals"]["series"] == 2 and report["counts"]["superseded"] == 0


def test_resend_of_the_same_patches_supersedes_the_first_posting(tmp_path, cli):
    start = datetime(2026, 11, 2, 10, tzinfo=timezone.utc)
    first = series_mails(2, tree="net-next")
    again = series_mails(2, tree="net-next")
    again[0].subject = again[0].subject.replace("[PATCH", "[PATCH RESEND")
    for m in again[1:]:
        m.subject = m.subject.replace("[PATCH", "[PATCH RESEND")
    archive = write(tmp_path, thread(*first, start=start, domain="a.example")
                    + "\n" + thread(*again, start=start + timedelta(days=3), domain="b.example"))
    report = triage_json(cli, archive)
    triaged = [i for i in report["series"] if i["status"] != "superseded"]
    assert len(triaged) == 1 and triaged[0]["msgid"].endswith("@b.example")
    (old,) = by_status(report, "superseded")
    assert old["msgid"].endswith("@a.example") and old["why"] == "resent"


def test_directory_maildir_and_gzip_inputs_give_the_same_report(tmp_path, cli):
    files = [NF / "nf-next-ipvs-cleanups-v3.mbox", NF / "nf-vrf-conntrack-dflt-qdisc.mbox"]
    one = concat(tmp_path, "one.mbox", *files)
    expected = triage_json(cli, one)["series"]

    mboxes = tmp_path / "dir"
    mboxes.mkdir()
    for f in files:
        shutil.copy(f, mboxes / f.name)
    gz = tmp_path / "one.mbox.gz"
    gz.write_bytes(gzip.compress(one.read_bytes()))
    maildir = tmp_path / "maildir"
    for sub in ("cur", "new", "tmp"):
        (maildir / sub).mkdir(parents=True)
    for n, raw in enumerate(read_raw_mails(one)):
        (maildir / "cur" / f"{n:04d}.mail:2,S").write_bytes(raw.data)

    def essentials(series):
        return sorted((i["msgid"], i["status"], tuple(i["received"]), len(i["findings"])) for i in series)

    for source in (mboxes, gz, maildir):
        assert essentials(triage_json(cli, source)["series"]) == essentials(expected), source


def test_git_format_patch_directory_is_one_series(tmp_path, cli):
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    repo = tmp_path / "repo"
    repo.mkdir()

    def git(*args):
        subprocess.run(["git", "-c", "user.name=Jane Developer", "-c", "user.email=jane@example.org", *args],
                       cwd=repo, check=True, capture_output=True)

    git("init", "-q")
    for n in (1, 2):
        (repo / f"f{n}.c").write_text(f"int f{n};\n")
        git("add", ".")
        git("commit", "-q", "-s", "-m", f"foo: add f{n}\n\nAdd f{n} for the bar path.")
    git("format-patch", "-q", "--cover-letter", "--subject-prefix=PATCH net-next", "-o", str(tmp_path / "out"),
        "--root", "HEAD")
    report = triage_json(cli, tmp_path / "out")
    assert report["totals"]["series"] == 1
    (item,) = report["series"]
    assert item["received"] == [1, 2] and item["has_cover"]


def test_grouping_reads_headers_only(tmp_path):
    """A series' body is not needed to group it: a patch whose body is garbage still groups."""
    mails = series_mails(2, tree="net")
    mails[2].body = "\x00\x01 not a diff at all\n"
    archive = write(tmp_path, thread(*mails))
    grouping = group_archive(index_inputs([archive], tmp_path))
    assert len(grouping.series) == 1 and len(grouping.series[0].refs) == 3


def test_the_whole_corpus_as_one_archive(cli):
    """Every corpus thread at once (mboxo, mboxrd, gzip, single mails, fuzzed headers, pull
    requests, announcements): a report, never an internal error."""
    dirs = sorted(p for p in CORPUS.rglob("*") if p.is_dir() and any(f.is_file() for f in p.iterdir()))
    report = triage_json(cli, *dirs)
    kept_out = report["totals"]["other_threads"] + sum(report["totals"]["not_series"].values())
    assert report["totals"]["series"] > 60 and kept_out >= 1  # patches without PATCH count
    assert not [s for s in report["skipped"] if "internal error" in s["reason"]]
    assert {i["status"] for i in report["series"]} <= set(report["statuses"])
    assert sum(report["counts"].values()) == len(report["series"])


_GROUPING = """
import sys, tempfile
from pathlib import Path
from reviewtool.sources.archives import index_inputs
from reviewtool.triage.group import group_archive
g = group_archive(index_inputs([Path(sys.argv[1])], Path(tempfile.mkdtemp())))
for s in g.series:
    print(s.revision, s.msgid, [x.revision for x in s.superseded])
"""


def test_a_revision_two_families_claim_joins_the_latest_in_every_process(tmp_path):
    """v3 keeps v1's cover letter and v2's first patch: both families claim it. It continues the
    posting before it (v2), and that answer must not depend on the process's string hashing
    (a set of identity keys walked in hash order made `--store` and `--no-store` runs, each its
    own process, group the real mt76 chanctx revisions differently)."""
    start = datetime(2026, 9, 1, 10, tzinfo=timezone.utc)

    def posting(version, cover, first, domain, day, path):
        body = patch_body(diff=hunk_diff(path, ["int a;"], [f"int a{version};"]))
        second = "wifi: foo: add widgets core" if version == 1 else "wifi: foo: add widgets base"
        mails = series_mails(2, tree="wireless-next", version=version, cover=cover is not None,
                             subjects={1: first, 2: second}, bodies={1: body, 2: body})
        if cover is not None:
            mails[0].subject = mails[0].subject.replace("foo: fix two things", cover)
        return thread(*mails, start=start + timedelta(days=day), domain=domain)

    archive = write(tmp_path, "\n".join([
        posting(1, "wifi: foo: add widgets", "wifi: foo: prepare alpha", "v1.example", 0, "drivers/foo/alpha.c"),
        posting(2, None, "wifi: foo: prepare beta", "v2.example", 20, "drivers/foo/beta.c"),
        posting(3, "wifi: foo: add widgets", "wifi: foo: prepare beta", "v3.example", 40, "drivers/foo/beta.c")]))
    answers = set()
    for seed in range(8):
        env = {**os.environ, "PYTHONHASHSEED": str(seed)}
        out = subprocess.run([sys.executable, "-c", _GROUPING, str(archive)], capture_output=True, text=True,
                             env=env, check=True).stdout
        answers.add(out)
    assert len(answers) == 1, answers
    lines = answers.pop().splitlines()
    assert len(lines) == 2
    assert lines[0].startswith("1 ") and "v1.example" in lines[0] and lines[0].endswith("[]")
    assert lines[1].startswith("3 ") and "v3.example" in lines[1] and lines[1].endswith("[2]")
