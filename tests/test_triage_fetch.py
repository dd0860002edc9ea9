"""Triage of fetched series: a file of message-ids and a public-inbox search, against a real
public-inbox server on 127.0.0.1 (tests/pi_server.py) serving real netfilter-devel threads."""

from __future__ import annotations

import pytest

from conftest import CORPUS
from pi_server import lore_server  # noqa: F401  (session fixture)

NF = CORPUS / "netfilter-devel"
NOW = "2023-04-20"
IPVS_V1 = "20230409-ipvs-cleanup-v1-0-98cdc242feb0@kernel.org"
IPVS_V3 = "20230409-ipvs-cleanup-v3-0-5149ea34b0b9@kernel.org"
NET_FIXES = "20230113164106.311491-1-pablo@netfilter.org"


@pytest.fixture(autouse=True)
def _own_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.chdir(tmp_path)


def essentials(report):
    return sorted((i["msgid"], i["status"], i["revision"], len(i.get("findings", ()))) for i in report["series"])


def test_msgid_file_is_fetched_and_triaged_like_the_local_archive(tmp_path, cli, lore_server):
    ids = tmp_path / "queue.txt"
    ids.write_text(f"# this morning's queue\n<{IPVS_V1}>\n\n{lore_server.base_url}/{IPVS_V3}/T/\n")
    res = cli("triage", "--msgids", ids, "--lore-url", lore_server.midmask, "--format", "json", "--now", NOW)
    assert res.code in (0, 1), res.err
    fetched = res.json
    local = tmp_path / "local.mbox"
    local.write_bytes(b"".join((NF / f"nf-next-ipvs-cleanups-v{n}.mbox").read_bytes() + b"\n" for n in (1, 3)))
    res = cli("triage", local, "--format", "json", "--now", NOW)
    assert essentials(fetched) == essentials(res.json)
    assert [i["revision"] for i in fetched["series"] if i["status"] == "superseded"] == [1]
    triaged = next(i for i in fetched["series"] if i["status"] != "superseded")
    assert triaged["url"] == lore_server.midmask.replace("%s", IPVS_V3) + "/"  # links: the server asked


def test_second_run_uses_the_cache(tmp_path, cli, lore_server):
    ids = tmp_path / "queue.txt"
    ids.write_text(f"{NET_FIXES}\n")
    args = ("triage", "--msgids", ids, "--lore-url", lore_server.midmask, "--format", "json", "--now", NOW)
    before = len([r for r in lore_server.requests() if NET_FIXES in r])
    assert cli(*args).code in (0, 1)
    middle = len([r for r in lore_server.requests() if NET_FIXES in r])
    assert middle == before + 1
    assert cli(*args).code in (0, 1)
    assert len([r for r in lore_server.requests() if NET_FIXES in r]) == middle


def test_query_triages_every_thread_found(cli, lore_server):
    res = cli("triage", "--query", 's:"ipvs: Cleanups for v6.4"', "--lore-url", lore_server.midmask,
              "--format", "json", "--now", NOW)
    assert res.code in (0, 1), res.err
    report = res.json
    triaged = [i for i in report["series"] if i["status"] != "superseded"]
    assert [i["msgid"] for i in triaged] == [IPVS_V3]
    assert sorted(i["revision"] for i in report["series"] if i["status"] == "superseded") == [1, 2]
    assert any("?x=m" in r and "ipvs" in r.lower() for r in lore_server.requests())


def test_fetch_failures_are_one_line(tmp_path, cli, lore_server):
    ids = tmp_path / "queue.txt"
    ids.write_text("no-such-message@example.org\n")
    res = cli("triage", "--msgids", ids, "--lore-url", lore_server.midmask)
    assert res.code == 2 and "not found" in res.err and res.err.count("\n") == 1
    res = cli("triage", "--query", 's:"no such subject anywhere"', "--lore-url", lore_server.midmask)
    assert res.code == 2 and "found no messages" in res.err
    ids.write_text("this is not an id\n")
    res = cli("triage", "--msgids", ids)
    assert res.code == 2 and "queue.txt:1: not a message-id" in res.err
    res = cli("triage", "--query", "s:x", "--offline")
    assert res.code == 2 and "--offline" in res.err
