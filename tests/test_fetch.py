"""Fetching a series by message-id or URL from a real public-inbox server on 127.0.0.1.

The server (tests/pi_server.py) serves real netfilter-devel and netdev threads from the corpus
plus a generated thread; its access log shows every request reviewtool made.
"""

from __future__ import annotations

import json

import pytest

from conftest import CORPUS
from pi_server import GENERATED_COVER_MSGID, lore_server  # noqa: F401  (session fixture)
from reviewtool.sources.lore import FetchOptions, MessageRef, git_config_loreurl, parse_ref, select_server

NF = CORPUS / "netfilter-devel"
IPVS_V1 = "20230409-ipvs-cleanup-v1-0-98cdc242feb0@kernel.org"
IPVS_V2 = "20230409-ipvs-cleanup-v2-0-204cd17da708@kernel.org"
IPVS_V3 = "20230409-ipvs-cleanup-v3-0-5149ea34b0b9@kernel.org"
IPVS_V2_REPLY = "20230411113145.vjzmzuvea6yiv6jy@soft-dev3-1"  # Reviewed-by on v2 3/4
IPROUTE2_COVER = "cover.1609671168.git.me@pmachata.org"
ANNOUNCE = "ZTEW/A8ze+8HrI2u@calendula"  # a release announcement: no patch in its thread


@pytest.fixture(autouse=True)
def _own_cache_and_cwd(tmp_path, monkeypatch):
    """Each test starts with an empty thread cache, outside any git repository's config."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.chdir(tmp_path)


def fetch_json(cli, source, server, *args):
    res = cli("check", source, "--format", "json", "--lore-url", server.midmask, *args)
    assert res.code in (0, 1), res.err
    return res


def without_source(data: dict) -> dict:
    data = json.loads(json.dumps(data))
    data["series"].pop("source")
    return data


def thread_requests(server, msgid: str) -> list[str]:
    return [r for r in server.requests() if f"/{msgid}/t.mbox.gz" in r]


# --- what users type -----------------------------------------------------------------------

@pytest.mark.parametrize("text, msgid, server", [
    ("20230409-x-v1-0-98@kernel.org", "20230409-x-v1-0-98@kernel.org", None),
    ("<20230409-x-v1-0-98@kernel.org>", "20230409-x-v1-0-98@kernel.org", None),
    ("id:20230409-x-v1-0-98@kernel.org", "20230409-x-v1-0-98@kernel.org", None),
    ("id:<ZDP/Ht1Nb4iRSkI8@kernel.org>", "ZDP/Ht1Nb4iRSkI8@kernel.org", None),
    ("https://lore.kernel.org/netdev/20230409-x%40kernel.org/", "20230409-x@kernel.org", None),
    ("https://lore.kernel.org/netdev/20230409-x@kernel.org/T/#u", "20230409-x@kernel.org", None),
    ("https://lore.kernel.org/all/20230409-x@kernel.org/t/", "20230409-x@kernel.org", None),
    ("https://lore.kernel.org/bpf/20230409-x@kernel.org/raw", "20230409-x@kernel.org", None),
    ("https://lore.kernel.org/r/20230409-x@kernel.org/t.mbox.gz", "20230409-x@kernel.org", None),
    ("https://patch.msgid.link/20230409-x@kernel.org", "20230409-x@kernel.org", None),
    ("http://127.0.0.1:8080/netdev/a%2Fb+c@d.org/T/", "a/b+c@d.org", "http://127.0.0.1:8080/netdev"),
    ("https://mirror.example.net/a@b.org/", "a@b.org", "https://mirror.example.net/all"),
])
def test_parse_every_accepted_form(text, msgid, server):
    ref = parse_ref(text)
    assert (ref.msgid, ref.server) == (msgid, server)


@pytest.mark.parametrize("text", ["series.mbox", "patches/0001-foo@bar.patch", "no-at-sign", "a b@c"])
def test_paths_and_words_are_not_message_ids(text):
    assert parse_ref(text) is None


def test_url_without_message_id_is_one_line_error(cli):
    res = cli("check", "https://lore.kernel.org/netdev/")
    assert res.code == 2 and "no message-id in this URL" in res.err and len(res.err.splitlines()) == 1


def test_server_order_lore_url_then_url_then_git_config_then_b4_then_lore(monkeypatch):
    lore_ref, mirror_ref = MessageRef("a@b"), MessageRef("a@b", "http://mirror.test/netdev")
    opts = FetchOptions(lore_url="http://127.0.0.1:1/all/%s")

    def pick(ref, options=FetchOptions()):
        return select_server(ref, options, git_config_loreurl, b4_midmask)

    from reviewtool.sources.b4fetch import b4_midmask

    # real git configuration: both keys set, through git's environment
    monkeypatch.setenv("GIT_CONFIG_COUNT", "2")
    monkeypatch.setenv("GIT_CONFIG_KEY_0", "b4.midmask")
    monkeypatch.setenv("GIT_CONFIG_VALUE_0", "http://127.0.0.1:3/netdev/%s")
    monkeypatch.setenv("GIT_CONFIG_KEY_1", "reviewtool.loreurl")
    monkeypatch.setenv("GIT_CONFIG_VALUE_1", "http://127.0.0.1:2")
    assert pick(mirror_ref, opts) == pick(lore_ref, opts)
    assert pick(lore_ref, opts).base == "http://127.0.0.1:1/all"
    assert pick(mirror_ref).base == "http://mirror.test/netdev"
    assert (pick(lore_ref).base, pick(lore_ref).chosen_by) == ("http://127.0.0.1:2/all",
                                                              "git config reviewtool.loreurl")
    monkeypatch.setenv("GIT_CONFIG_COUNT", "1")  # only b4.midmask left
    assert (pick(lore_ref).base, pick(lore_ref).chosen_by) == ("http://127.0.0.1:3/netdev", "b4.midmask")
    assert select_server(lore_ref, FetchOptions(), lambda: None, lambda: None).base == \
        "https://lore.kernel.org/all"


# --- a real public-inbox server ------------------------------------------------------------

@pytest.mark.parametrize("msgid, path", [
    (IPVS_V2, NF / "nf-next-ipvs-cleanups-v2.mbox"),
    ("20230113164106.311491-1-pablo@netfilter.org", NF / "net-fixes-0-3-fixes-reported-tested.mbox"),
    (IPROUTE2_COVER, CORPUS / "netdev" / "iproute2-v2-0-3-dcb-fixes.mbox"),
    (GENERATED_COVER_MSGID, None),
])
def test_fetched_review_is_identical_to_file_review(cli, check_json, lore_server, msgid, path):
    path = path or lore_server.generated_mbox
    fetched = fetch_json(cli, msgid, lore_server)
    local = check_json(path)
    assert without_source(fetched.json) == without_source(local.json)
    assert fetched.json["series"]["source"] == f"{lore_server.base_url}/all/{msgid.replace('/', '%2F')}/"
    assert fetched.code == local.code


def test_reply_trailers_are_collected_from_the_server(cli, lore_server):
    data = fetch_json(cli, IPVS_V2, lore_server).json
    for patch in data["patches"]:
        assert [t["name"] for t in patch["followup_trailers"]] == ["Reviewed-by"]
        assert "Horatiu Vultur" in patch["followup_trailers"][0]["value"]
    generated = fetch_json(cli, GENERATED_COVER_MSGID, lore_server).json
    assert generated["patches"][0]["followup_trailers"][0]["value"] == "Rita Reviewer <rita@example.org>"


@pytest.mark.parametrize("form", [
    "<{msgid}>", "id:{msgid}",
    "https://lore.kernel.org/netfilter-devel/{msgid}/", "https://lore.kernel.org/all/{msgid}/T/#u",
    "https://lore.kernel.org/netfilter-devel/{msgid}/t/", "https://lore.kernel.org/netfilter-devel/{msgid}/raw",
    "https://lore.kernel.org/netfilter-devel/{msgid}/t.mbox.gz", "https://patch.msgid.link/{msgid}",
])
def test_every_form_fetches_from_the_selected_server(cli, lore_server, form):
    before = len(thread_requests(lore_server, IPVS_V2))
    data = fetch_json(cli, form.format(msgid=IPVS_V2), lore_server).json
    assert data["series"]["msgid"] == IPVS_V2 and data["series"]["revision"] == 2
    assert len(thread_requests(lore_server, IPVS_V2)) == before + 1  # asked the loopback server


@pytest.mark.parametrize("form", ["{base}/netfilter-devel/{msgid}/T/", "{base}/all/{msgid}/raw",
                                  "{base}/netdev/{quoted}/t.mbox.gz"])
def test_url_of_another_server_fetches_from_that_server(cli, lore_server, form):
    msgid = IPVS_V2 if "netdev" not in form else GENERATED_COVER_MSGID
    url = form.format(base=lore_server.base_url, msgid=msgid, quoted="cover%2Fv1%2Bfix%40gen.example.org")
    res = cli("check", url, "--format", "json")  # no --lore-url: b4.midmask is a dead port here
    assert res.code in (0, 1), res.err
    assert res.json["series"]["msgid"] == msgid
    assert res.json["series"]["source"].startswith(lore_server.base_url)


def test_cached_second_run_makes_no_request(cli, lore_server, tmp_path):
    first = fetch_json(cli, IPROUTE2_COVER, lore_server)
    seen = len(lore_server.requests())
    assert thread_requests(lore_server, IPROUTE2_COVER)
    second = fetch_json(cli, IPROUTE2_COVER, lore_server)
    assert len(lore_server.requests()) == seen  # the access log did not grow: no request at all
    assert second.json == first.json
    cached = list((tmp_path / "cache" / "reviewtool" / "threads").glob("*.mbox"))
    assert len(cached) == 1 and cached[0].read_bytes().startswith(b"From ")
    fetch_json(cli, IPROUTE2_COVER, lore_server, "--no-cache")
    assert len(lore_server.requests()) == seen + 1
    fetch_json(cli, IPROUTE2_COVER, lore_server, "--cache-ttl", "0")
    assert len(lore_server.requests()) == seen + 2


def test_corrupt_cache_entry_is_fetched_again(cli, lore_server, tmp_path):
    fetch_json(cli, IPROUTE2_COVER, lore_server)
    [entry] = (tmp_path / "cache" / "reviewtool" / "threads").glob("*.mbox")
    entry.write_bytes(b"<html>half a thread")
    seen = len(lore_server.requests())
    res = fetch_json(cli, IPROUTE2_COVER, lore_server)
    assert res.json["series"]["msgid"] == IPROUTE2_COVER
    assert len(lore_server.requests()) == seen + 1
    assert entry.read_bytes().startswith(b"From ")


def test_offline_uses_the_cache_and_says_so(cli, lore_server):
    missing = cli("check", IPVS_V2, "--offline", "--lore-url", lore_server.midmask)
    assert missing.code == 2 and "not in the cache" in missing.err and "--offline" in missing.err
    fetch_json(cli, IPVS_V2, lore_server)
    seen = len(lore_server.requests())
    offline = fetch_json(cli, IPVS_V2, lore_server, "--offline", "--cache-ttl", "0")
    assert len(lore_server.requests()) == seen
    assert any(n.startswith("offline: reviewed the copy of the thread cached") for n in offline.json["summary"]["notes"])
    text = cli("check", IPVS_V2, "--offline", "--lore-url", lore_server.midmask)
    assert "offline: reviewed the copy" in text.out


def test_latest_reviews_the_newest_revision_and_says_so(cli, lore_server):
    res = fetch_json(cli, IPVS_V1, lore_server, "--latest")
    series = res.json["series"]
    assert (series["revision"], series["msgid"]) == (3, IPVS_V3)
    assert series["earlier_revisions"] == [1, 2]
    note = next(n for n in res.json["summary"]["notes"] if n.startswith("--latest"))
    assert f"reviewed v3 <{IPVS_V3}>" in note and "belongs to v1" in note
    assert any("/?x=m" in r and r.startswith("POST") for r in lore_server.requests())  # b4's search
    text = cli("check", IPVS_V1, "--latest", "--lore-url", lore_server.midmask)
    assert "Note: --latest: reviewed v3" in text.out


def test_latest_on_the_newest_says_nothing_newer(cli, lore_server):
    res = fetch_json(cli, IPVS_V3, lore_server, "--latest")
    assert res.json["series"]["revision"] == 3
    assert any("no revision newer than v3" in n for n in res.json["summary"]["notes"])


def test_latest_leaves_b4_offline_afterwards(cli, lore_server):
    import b4

    node_before = b4.LORENODE
    fetch_json(cli, IPVS_V1, lore_server, "--latest")
    assert b4.can_network is False  # network only while our explicit search runs
    assert b4.LORENODE is node_before  # b4's own node is put back, ours is gone


def test_latest_conflicts_with_offline_and_files(cli, lore_server):
    res = cli("check", IPVS_V1, "--latest", "--offline")
    assert res.code == 2 and "cannot be used with --offline" in res.err
    res = cli("check", NF / "nf-next-ipvs-cleanups-v1.mbox", "--latest")
    assert res.code == 2 and "--latest needs a message-id" in res.err


def test_reply_msgid_reviews_its_series_and_says_so(cli, lore_server):
    res = fetch_json(cli, IPVS_V2_REPLY, lore_server)
    assert res.json["series"]["msgid"] == IPVS_V2
    note = next(n for n in res.json["summary"]["notes"] if "is a reply" in n)
    assert IPVS_V2_REPLY in note and IPVS_V2 in note
    assert "is a reply" in cli("check", IPVS_V2_REPLY, "--lore-url", lore_server.midmask).out


def test_not_found_is_404_not_unreachable(cli, lore_server):
    res = cli("check", "no-such-message@example.org", "--lore-url", lore_server.midmask)
    assert res.code == 2
    assert res.err.strip() == (f"reviewtool: <no-such-message@example.org>: not found on "
                               f"{lore_server.base_url}/all (HTTP 404)")


def test_thread_without_patch_is_input_error(cli, lore_server):
    res = cli("check", ANNOUNCE, "--lore-url", lore_server.midmask)
    assert res.code == 2 and "holds no patch" in res.err and len(res.err.splitlines()) == 1
