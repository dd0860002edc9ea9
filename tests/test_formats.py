"""Output formats on real threads: text (rich), markdown, json and an LKML-style email reply;
--output; exit codes. Hostile mail (terminal escapes, markdown and HTML, rich markup) must come
out inert in every format."""

from __future__ import annotations

import email
import email.policy
import re

import pytest

from conftest import CORPUS, FIXTURES
from mailfactory import Mail, patch_body, series_mails, thread, write

EXAMPLE = FIXTURES / "examples/net-foo-3-patches.mbox"
NF = CORPUS / "netfilter-devel"
REAL = [EXAMPLE, NF / "net-fixes-0-4-reply-missing-fixes-tag.mbox", NF / "iptables-covscan-fixes-0-6.mbox",
        NF / "nat-port-remap-4-nf-next-v4.mbox", NF / "bpf-next-nat-kfunc-long-review.mbox",
        CORPUS / "netdev/iproute2-v2-0-3-dcb-fixes.mbox", CORPUS / "b4/trailers-followup-with-cover.mbox",
        CORPUS / "patchew/0004-multiple-patch-reviewed.mbox.gz"]


@pytest.fixture(autouse=True)
def _plain_terminal(monkeypatch):
    monkeypatch.setenv("TERM", "dumb")
    monkeypatch.delenv("FORCE_COLOR", raising=False)


def _split_mail(text: str) -> tuple[list[str], list[str]]:
    head, _, body = text.partition("\n\n")
    return head.split("\n"), body.split("\n")


# --- json ----------------------------------------------------------------------------------------

SERIES_KEYS = {"subject", "full_subject", "msgid", "revision", "tree", "profile", "profile_reason", "expected",
               "received", "missing", "has_cover", "base_commit", "change_id", "author", "date",
               "earlier_revisions", "source"}
PATCH_KEYS = {"counter", "subject", "author", "msgid", "date", "files", "insertions", "deletions", "trailers",
              "followup_trailers"}


@pytest.mark.parametrize("path", REAL[:4], ids=lambda p: p.name)
def test_json_follows_the_documented_schema(check_json, path):
    res = check_json(path)
    d = res.json
    assert d["tool"] == "reviewtool" and re.match(r"\d+\.\d+", d["version"])
    assert SERIES_KEYS <= set(d["series"])
    assert all(PATCH_KEYS <= set(p) for p in d["patches"] + ([d["cover"]] if d["cover"] else []))
    assert [p["counter"] for p in d["patches"]] == d["series"]["received"]
    for f in d["findings"]:
        assert f["severity"] in ("error", "warning", "info") and f["rule"] and f["message"]
        assert isinstance(f["evidence"], list) and all(isinstance(e, str) for e in f["evidence"])
        assert f["patch"] is None or f["patch"] in [0] + d["series"]["received"]
    counts = {s: sum(f["severity"] == s for f in d["findings"]) for s in ("error", "warning", "info")}
    assert (d["summary"]["errors"], d["summary"]["warnings"], d["summary"]["infos"]) == \
        (counts["error"], counts["warning"], counts["info"])
    assert res.code == (1 if counts["error"] else 0)
    reply = d["reply"]
    assert reply["in_reply_to"] == d["series"]["msgid"] and reply["references"][-1] == d["series"]["msgid"]
    assert reply["subject"] == "Re: " + d["series"]["full_subject"]


# --- email ---------------------------------------------------------------------------------------

def _assert_lkml_reply(text: str, data: dict) -> None:
    head, body = _split_mail(text)
    # Folded at 72 columns; only a single token too long to fold (a long message-id) may exceed it.
    def unfoldable(line: str) -> bool:
        words = line.split()
        return len(words) == 1 or len(words) == 2 and words[0].endswith(":")
    assert all(len(line) <= 72 or unfoldable(line) for line in head), [l for l in head if len(l) > 72]
    msg = email.message_from_string(text, policy=email.policy.default)
    assert msg["In-Reply-To"] == f"<{data['series']['msgid']}>"
    assert f"<{data['series']['msgid']}>" in msg["References"].split()
    assert " ".join(str(msg["Subject"]).split()) == "Re: " + " ".join(data["series"]["full_subject"].split())
    assert msg.get_content_type() == "text/plain" and msg.get_content_charset() == "utf-8"
    for line in body:
        # Prose is wrapped at 72; quoted evidence is verbatim, and a single long word (a URL) cannot wrap.
        assert len(line) <= 72 or line.startswith(">") or " " not in line.strip(), line
    quoted = {line[2:].strip() for line in body if line.startswith("> ")}
    prose = " ".join(" ".join(body).split())
    # a reply to the author: the notes and the steps meant for whoever applies are the maintainer's
    assert not re.search(r"when applying|before applying|review it yourself", prose, re.I)
    for f in data["findings"]:
        if f["severity"] == "info":
            assert f"[{f['severity']}: {f['rule']}]" not in body
            continue
        assert f"[{f['severity']}: {f['rule']}]" in body
        for e in f["evidence"]:
            for line in e.split("\n"):
                # the thread's words are quoted verbatim; the review's own (a summary per patch)
                # are indented prose, wrapped
                assert (f"> {line}".rstrip() if line.strip() else ">") in body or " ".join(line.split()) in prose, line
    assert not [q for q in quoted if q.startswith(("1/", "in reply <", "earlier: "))]
    assert "Not checked" not in "\n".join(body)  # a note for the maintainer, not for the author
    assert "-- " in body  # the signature separator


@pytest.mark.parametrize("path", REAL, ids=lambda p: p.name)
def test_email_is_a_sendable_lkml_reply(cli, check_json, path):
    data = check_json(path).json
    res = cli("check", path, "--format", "email")
    assert res.code == (1 if data["summary"]["errors"] else 0), res.err
    _assert_lkml_reply(res.out, data)


def test_email_addresses_and_quotes_the_bundled_example(cli, check_json):
    data = check_json(EXAMPLE).json
    text = cli("check", EXAMPLE, "--format", "email").out
    msg = email.message_from_string(text, policy=email.policy.default)
    assert msg["To"] == "Jane Developer <jane@example.org>" and "netdev@vger.kernel.org" in msg["Cc"]
    assert "> Signed-off-by" not in text or any("Signed-off-by" in e for f in data["findings"] for e in f["evidence"])
    assert "About patch 2/3" in text and "\n> Fixes: commit 9f8e7d6c5b4a" in text


def test_email_encodes_non_ascii_headers(tmp_path, cli, check_json):
    mails = series_mails(1, cover=False, subjects={1: "foo: handle Rafał's ring sizes"})
    mails[0].sender = "Rafał Miłecki <rafal@example.org>"
    path = write(tmp_path, thread(*mails))
    text = cli("check", path, "--format", "email").out
    head, _ = _split_mail(text)
    assert all(line.isascii() for line in head)
    msg = email.message_from_string(text, policy=email.policy.default)
    assert str(msg["Subject"]).endswith("foo: handle Rafał's ring sizes")
    assert msg["To"].addresses[0].display_name == "Rafał Miłecki"
    _assert_lkml_reply(text, check_json(path).json)


# --- markdown ------------------------------------------------------------------------------------

HOSTILE_SUBJECT = "foo: <script>alert(1)</script> *bold* [x](javascript:y) | `z` ~~w~~"


def _hostile_thread(tmp_path):
    body = patch_body(trailers="Signed-off-by: Eve <eve@example.org>\n"
                               "Reviewed-by: <img src=x onerror=alert(2)> [bold]x[/bold] <r@example.org>")
    mails = series_mails(1, cover=False, subjects={1: HOSTILE_SUBJECT}, bodies={1: body})
    mails[0].sender = "Eve <b>Evil</b> <eve@example.org>"
    return write(tmp_path, thread(*mails))


def _outside_code(md: str) -> str:
    """The markdown with code blocks and code spans removed: inside them, text is literal."""
    md = re.sub(r"^ *(`{3,})[^\n]*\n.*?^ *\1 *$", "", md, flags=re.M | re.S)
    return re.sub(r"(`+)(?!`).*?(?<!`)\1(?!`)", "", md)


def test_markdown_escapes_mail_borne_text(tmp_path, cli):
    res = cli("check", _hostile_thread(tmp_path), "--format", "markdown")
    md = res.out
    prose = _outside_code(md)
    assert "HOSTILE" not in prose and len(prose) > 200
    for raw in ("<script>", "<img", "<b>", "[x](javascript", "*bold*", "~~w~~"):
        assert raw not in prose, raw
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in md and r"\*bold\*" in md
    # The table keeps two columns: no unescaped `|` from the mail splits a cell.
    for line in md.split("\n"):
        if line.startswith("| ") and not line.startswith("| |"):
            assert len(re.findall(r"(?<!\\)\|", line)) == 3, line


@pytest.mark.parametrize("path", REAL[:3], ids=lambda p: p.name)
def test_markdown_on_real_threads(cli, check_json, path):
    data = check_json(path).json
    md = cli("check", path, "--format", "markdown").out
    assert md.startswith("# Review: ")
    assert f"**{data['summary']['errors']} error" in md
    for f in data["findings"]:
        assert f"` {f['rule']} `" in md
    assert md.count("```") % 2 == 0


# --- text ----------------------------------------------------------------------------------------

def test_text_output_carries_no_escape_sequences_from_mail(tmp_path, cli):
    body = patch_body(message="Fix the \x1b[2Jfoo path.\n\nIt \x1b]8;;http://evil.example\x07clicks\x1b]8;;\x07 here.",
                      trailers="Signed-off-by: Jane \x1b[31mDeveloper <jane@example.org>\n"
                               "Reviewed-by: Rob <rob@rob@example.net>")
    mails = series_mails(1, cover=False, subjects={1: "foo: \x1b[1;31mred\x1b[0m [bold]not markup[/bold]"},
                         bodies={1: body})
    path = write(tmp_path, thread(*mails))
    res = cli("check", path)
    assert res.code in (0, 1), res.err
    assert "\x1b" not in res.out and "\x07" not in res.out
    assert "[bold]not markup[/bold]" in res.out  # shown as written, not interpreted by rich
    assert "foo: red" in res.out


def test_text_names_every_finding(cli, check_json):
    data = check_json(EXAMPLE).json
    out = cli("check", EXAMPLE).out
    assert out.startswith("[PATCH net 0/3] mlx-foo")
    for f in data["findings"]:
        assert f["rule"] in out
    assert f"{data['summary']['errors']} error" in out


# --- --output and exit codes ---------------------------------------------------------------------

@pytest.mark.parametrize("fmt", ["text", "markdown", "json", "email"])
def test_output_file(tmp_path, cli, fmt):
    out = tmp_path / f"review.{fmt}"
    res = cli("check", EXAMPLE, "--format", fmt, "--output", out)
    assert res.code == 1 and res.out == ""
    text = out.read_text(encoding="utf-8")
    assert "fixes-format" in text
    if fmt == "text":
        assert "[bold" not in text and "[/" not in text  # rich markup is rendered away in files


def test_output_into_missing_directory_is_a_one_line_error(tmp_path, cli):
    res = cli("check", EXAMPLE, "--output", tmp_path / "no/such/dir/review.txt")
    assert res.code == 2 and res.err.startswith("reviewtool: ") and res.err.count("\n") == 1
    assert not (tmp_path / "no").exists()


def test_exit_codes(tmp_path, cli, check_json):
    clean = write(tmp_path, thread(*series_mails(2, cover=False)), "clean.mbox")
    codes = {}
    for path in (clean, *REAL):
        res = check_json(path)
        assert res.code == (1 if res.json["summary"]["errors"] else 0)
        codes[path.name] = res.code
    assert codes[EXAMPLE.name] == 1
    # Exit 0 with findings, as long as none is an error; exit 1 as soon as one is.
    info_only = check_json(clean, "--select", "review-coverage")
    assert info_only.code == 0 and info_only.json["summary"]["infos"] >= 1
    assert check_json(EXAMPLE, "--select", "signed-off-by-missing").code == 1
    assert check_json(EXAMPLE, "--ignore", "signed-off-by-missing", "--select", "signed-off-by-missing").code == 0
    # 2: unusable input and command-line mistakes, one line on stderr.
    for args in (("check", tmp_path / "missing.mbox"), ("check", EXAMPLE, "--format", "xml"),
                 ("check",), ("check", EXAMPLE, "--revision", "0")):
        res = cli(*args)
        assert res.code == 2, (args, res.code, res.err)
        assert "Traceback" not in res.err and res.err.strip()


@pytest.mark.parametrize("fmt", ["text", "markdown", "email"])
def test_rich_markup_in_any_mail_field_is_inert(tmp_path, cli, fmt):
    """A `[/x` closing tag rich cannot match, in a tree tag, a name or a trailer, must neither crash
    the terminal renderer (exit 3) nor be interpreted."""
    body = patch_body(trailers="Signed-off-by: [/red] <jane@example.org>\nReviewed-by: [link=http://x]y <y@@z>")
    mails = series_mails(2, cover=False, tree="[/x", bodies={1: body, 2: body})
    mails[0].sender = "[/bold]Jane[bold] <jane@example.org>"
    path = write(tmp_path, thread(*mails))
    out = tmp_path / f"out.{fmt}"
    shown = cli("check", path, "--format", fmt)
    assert shown.code in (0, 1), shown.err
    assert cli("check", path, "--format", fmt, "--output", out).code == shown.code
    if fmt != "markdown":  # markdown shows it escaped or in a code span
        assert "[/red]" in shown.out and "[/red]" in out.read_text(encoding="utf-8")


def test_advice_for_the_author_drops_what_only_the_applier_can_do():
    from reviewtool.render.env import for_author

    assert for_author("Write it as `Reviewed-by: Rob <rob@example.net>`. Correct it when applying the patch.") == \
        "Write it as `Reviewed-by: Rob <rob@example.net>`."
    assert for_author("Get a review of 3/3 before applying, or review it yourself.") == ""
    # the near miss: advice the author can follow stays whole
    assert for_author("Add a Fixes tag naming the commit that broke it.") == "Add a Fixes tag naming the commit that broke it."
