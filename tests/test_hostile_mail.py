"""Hostile and odd mail: encodings, unsafe diff paths, escape sequences, HTML in subjects."""

from __future__ import annotations

import base64
import quopri

from mailfactory import DEFAULT_DIFF, Mail, patch_body, series_mails, thread, write

ESC = "\x1b]8;;http://evil.example/\x07click\x1b]8;;\x07\x1b[2J"


def _single(tmp_path, body, subject="[PATCH net] foo: fix bar", headers=None, name="m.mbox"):
    mail = Mail(subject, body, extra_headers=headers or {})
    return write(tmp_path, thread(mail), name)


def test_unsafe_paths_are_reported_escaped(tmp_path, check_json):
    diff = DEFAULT_DIFF.replace("net/core/dev.c", "../../etc/passwd", 3)
    res = check_json(_single(tmp_path, patch_body(diff=diff)))
    hit = next(f for f in res.json["findings"] if f["rule"] == "unsafe-file-name")
    assert "'..' path component" in hit["message"] and res.code == 1
    esc = DEFAULT_DIFF.replace("net/core/dev.c", "net/\x1b[31mred.c", 3)
    res = check_json(_single(tmp_path, patch_body(diff=esc), name="esc.mbox"))
    hit = next(f for f in res.json["findings"] if f["rule"] == "unsafe-file-name")
    assert "\x1b" not in hit["message"] and "\\x1b" in hit["message"]


def test_clean_paths_not_reported(tmp_path, check_json):
    assert "unsafe-file-name" not in check_json(_single(tmp_path, patch_body())).rules()


def test_terminal_output_strips_escape_sequences(tmp_path, cli):
    mbox = _single(tmp_path, patch_body(message=f"Fix the {ESC} thing.\n\nMore."),
                   subject=f"[PATCH net] foo: {ESC}<script>alert(1)</script>")
    res = cli("check", mbox)
    assert res.code in (0, 1)
    assert "\x1b" not in res.out and "\x07" not in res.out
    assert "<script>alert(1)</script>" in res.out  # shown as text, not interpreted
    md = cli("check", mbox, "--format", "markdown")
    assert "&lt;script&gt;" in md.out
    # Raw mail text may appear only inside code spans, which Markdown renders as escaped text.
    import re
    outside = re.sub(r"(`+) .*? \1", "", md.out)
    assert "<script>" not in outside and "\x1b" not in md.out


def test_quoted_printable_and_base64_bodies(tmp_path, check_json):
    body = patch_body(message="Fix the caf\u00e9 path.\n\nSee the r\u00e9sum\u00e9.")
    qp = quopri.encodestring(body.encode()).decode()
    res = check_json(_single(tmp_path, qp, headers={"Content-Transfer-Encoding": "quoted-printable"}))
    assert res.json["patches"][0]["files"] == ["net/core/dev.c"]
    mail = Mail("[PATCH net] foo: fix bar", base64.encodebytes(body.encode()).decode())
    text = thread(mail).replace("Content-Transfer-Encoding: 8bit", "Content-Transfer-Encoding: base64")
    res = check_json(write(tmp_path, text, "b64.mbox"))
    assert res.json["patches"][0]["insertions"] == 1


def test_rfc2047_names_crlf_and_latin1(tmp_path, check_json):
    mail = Mail("=?utf-8?q?=5BPATCH_net=5D_foo=3A_fix_bar?=", patch_body(
        trailers="Signed-off-by: J\u00f6rg M\u00fcller <jm@example.org>"),
        sender="=?iso-8859-1?q?J=F6rg_M=FCller?= <jm@example.org>")
    text = thread(mail).replace("\n", "\r\n")
    res = check_json(write(tmp_path, text, "crlf.mbox"))
    p = res.json["patches"][0]
    assert p["author"] == "J\u00f6rg M\u00fcller <jm@example.org>"
    assert "signed-off-by-author" not in res.rules()
    latin = thread(Mail("[PATCH net] foo: fix bar", patch_body(message="Fix caf\u00e9.")))
    latin = latin.replace("charset=utf-8", "charset=iso-8859-1").encode("latin-1", "replace")
    path = tmp_path / "latin1.mbox"
    path.write_bytes(latin)
    assert check_json(path).json["patches"][0]["files"] == ["net/core/dev.c"]


def test_nul_bytes_and_format_flowed_damage(tmp_path, cli):
    text = thread(*series_mails(2, cover=False))
    damaged = text.replace("\t", "").replace("@@ -10,7 +10,7 @@", "@@ -10,7\n +10,7 @@")
    path = tmp_path / "flowed.mbox"
    path.write_bytes(damaged.encode().replace(b"bar(dev", b"bar\x00(dev"))
    res = cli("check", path, "--format", "json")
    assert res.code in (0, 1, 2) and "Traceback" not in res.err
    if res.code != 2:
        assert "patch-corrupt" in res.rules() or res.json["patches"]


def test_html_only_mail_is_not_a_patch(tmp_path, cli):
    mail = Mail("[PATCH net] foo: fix bar", "<html><body><p>diff attached</p></body></html>")
    text = thread(mail).replace("text/plain", "text/html")
    res = cli("check", write(tmp_path, text, "html.mbox"))
    assert res.code in (0, 1, 2) and "Traceback" not in res.err
