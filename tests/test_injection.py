"""Mail-borne text reaches reports through many fields; none of them may inject markup.

Hostile strings go through the subject, the sender's name, trailer names and values, a Fixes
subject, a reply's trailer, the cover letter and a diff file name; the Markdown, HTML (triage)
and terminal outputs must show them as text."""

from __future__ import annotations

import re

from mailfactory import DEFAULT_DIFF, Mail, cover_body, patch_body, thread, write

XSS = "<script>alert(1)</script>"
IMG = '<img src=x onerror="alert(2)">'
MDLINK = "[click](javascript:alert(3))"
ESC = "\x1b[2J\x1b]0;owned\x07"
HOSTILE = f"{XSS} {IMG} {MDLINK} *em* | cell {ESC}"


def _hostile_thread(tmp_path):
    name = f"Eve {XSS} {MDLINK}"
    cover = Mail(f"[PATCH net 0/1] foo: {HOSTILE}", cover_body(f"Cover {HOSTILE}"),
                 sender=f'"{name}" <eve@example.org>')
    diff = DEFAULT_DIFF.replace("net/core/dev.c", "net/core/<b>x</b>.c", 3)
    body = patch_body(message=f"Fix {HOSTILE}.\n\nMore {IMG}.",
                      trailers=f'Fixes: 1234567890ab ("{HOSTILE}")\n'
                               f"Reported-by: {name} <r@example.org>\n"
                               f"Signed-off-by: {name} <eve@example.org>", diff=diff)
    patch = Mail(f"[PATCH net 1/1] foo: {HOSTILE}", body, sender=f'"{name}" <eve@example.org>')
    reply = Mail(f"Re: [PATCH net 1/1] foo: {HOSTILE}", f"> quoted\n\nReviewed-by: {name} <rev@ex@ample.org>\n",
                 sender=f'"{name}" <rev@example.org>', in_reply_to="20261102100000.1001-1-jane@example.org")
    return write(tmp_path, thread(cover, patch, reply))


def _outside_code(md: str) -> str:
    md = re.sub(r"^```.*?^```", "", md, flags=re.S | re.M)
    return re.sub(r"(`+) .*? \1", "", md)


def test_markdown_shows_every_field_as_text(tmp_path, cli):
    res = cli("check", _hostile_thread(tmp_path), "--format", "markdown")
    assert res.code in (0, 1), res.err
    text = _outside_code(res.out)
    for raw in ("<script", "<img", "<b>", "\x1b"):
        assert raw not in text, raw
    assert not re.search(r"(?<!\\)\]\(javascript:", text)  # an unescaped link target
    assert "&lt;script&gt;" in res.out


def test_terminal_output_has_no_escape_sequences(tmp_path, cli):
    res = cli("check", _hostile_thread(tmp_path))
    assert res.code in (0, 1) and "\x1b" not in res.out and "\x07" not in res.out
    assert "<script>alert(1)</script>" in res.out  # shown, as text


def test_html_report_escapes_every_field(tmp_path, cli):
    res = cli("triage", _hostile_thread(tmp_path), "--format", "html", "--now", "2026-11-03T00:00:00Z")
    assert res.code in (0, 1), res.err
    page = res.out
    assert "alert(1)</script>" not in page and "&lt;script&gt;alert(1)" in page
    assert "<img src=x" not in page and "<b>x</b>" not in page
    hrefs = re.findall(r'href="([^"]*)"', page)
    assert hrefs and not any(h.strip().lower().startswith("javascript:") for h in hrefs)
    assert "\x1b" not in page
