"""Generators for the size-limit inputs of issue 7 (used by bench_limits.py)."""

from __future__ import annotations

import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from mailfactory import Mail, cover_body, hunk_diff, patch_body  # noqa: E402

START = datetime(2026, 11, 2, 10, 0, tzinfo=timezone.utc)


def _mail(subject: str, body: str, msgid: str, parent: str | None, i: int,
          sender: str = "Jane Developer <jane@example.org>") -> str:
    m = Mail(subject, body, sender=sender, in_reply_to=parent)
    return "From mboxrd@z Thu Jan  1 00:00:00 1970\n" + m.render(msgid, START + timedelta(seconds=i)) + "\n"


def deep_reply_chain(path: Path, depth: int) -> None:
    """A one-patch series followed by `depth` replies, each answering the previous one."""
    with path.open("w") as out:
        out.write(_mail("[PATCH net] foo: fix bar", patch_body(), "p@example.org", None, 0))
        parent = "p@example.org"
        for i in range(1, depth + 1):
            mid = f"r{i}@example.org"
            out.write(_mail("Re: [PATCH net] foo: fix bar", f"> quoted\n\nReply {i}.\n", mid, parent, i,
                            sender=f"R{i % 50} <r{i % 50}@example.net>"))
            parent = mid


def big_thread(path: Path, messages: int) -> None:
    """A 10-patch series with replies spread over its patches, `messages` mails in all."""
    with path.open("w") as out:
        out.write(_mail("[PATCH net-next 00/10] foo: big", cover_body(), "c@example.org", None, 0))
        for k in range(1, 11):
            out.write(_mail(f"[PATCH net-next {k:02d}/10] foo: part {k}", patch_body(), f"p{k}@example.org",
                            "c@example.org", k))
        for i in range(messages - 11):
            out.write(_mail("Re: foo", f"Reply {i}.\n\nReviewed-by: R{i % 7} <r{i % 7}@example.net>\n",
                            f"x{i}@example.org", f"p{i % 10 + 1}@example.org", 20 + i,
                            sender=f"R{i % 7} <r{i % 7}@example.net>"))


def huge_patch(path: Path, megabytes: int) -> None:
    """One patch whose diff adds `megabytes` MB of lines to a new file."""
    line = "+\tstatic const int table_entry_value = 0x12345678; /* filler for size tests */\n"
    n = megabytes * 1024 * 1024 // len(line)
    diff = (f"diff --git a/drivers/net/big.c b/drivers/net/big.c\nnew file mode 100644\nindex 0000000..1111111\n"
            f"--- /dev/null\n+++ b/drivers/net/big.c\n@@ -0,0 +1,{n} @@\n") + line * n
    with path.open("w") as out:
        out.write(_mail("[PATCH net-next] foo: add a big table", patch_body(diff=diff), "big@example.org", None, 0))


def big_mbox(path: Path, megabytes: int) -> None:
    """Many independent one-patch threads until the file reaches `megabytes` MB."""
    target = megabytes * 1024 * 1024
    i = 0
    with path.open("w") as out:
        while out.tell() < target:
            # each its own change: the same diff under another subject would be one patch reposted
            diff = hunk_diff("net/core/dev.c", ["\treturn 0;"], [f"\treturn bar({i});"])
            out.write(_mail(f"[PATCH net] foo: fix bar number {i}", patch_body(diff=diff), f"m{i}@example.org", None, i))
            i += 1


def folded_header(path: Path, folds: int) -> None:
    """One patch whose X-Folded header is folded `folds` times (the header reader's worst case)."""
    path.write_text(_mail("[PATCH net] foo: fix bar", patch_body(), "folded@example.org", None, 0)
                    .replace("\nSubject:", "\nX-Folded: a" + "\n b" * folds + "\nSubject:", 1))


def long_tag(path: Path, chars: int) -> None:
    """One patch whose subject tag is `chars` characters long (the tree-spelling check's worst case)."""
    path.write_text(_mail(f"[PATCH {'n' * chars}] foo: fix bar", patch_body(), "tag@example.org", None, 0))


def bracket_run(path: Path, chars: int) -> None:
    """One patch whose subject opens with `chars` `[` (b4's subject parse is cubic in such a run)."""
    path.write_text(_mail(f"{'[' * chars}PATCH net] foo: fix bar", patch_body(), "brackets@example.org", None, 0))


def encoded_cc(path: Path, people: int) -> None:
    """One patch sent to `people` addresses with RFC 2047 encoded names (the email package's
    address-list parse is quadratic in the list)."""
    cc = ", ".join(f"=?utf-8?b?w6Q=?= Person{i} <p{i}@example.org>" for i in range(people))
    m = Mail("[PATCH net] foo: fix bar", patch_body(), cc=cc)
    path.write_text("From mboxrd@z Thu Jan  1 00:00:00 1970\n" + m.render("cc@example.org", START) + "\n")


def encoded_subject(path: Path, words: int) -> None:
    """One patch whose Subject is `words` RFC 2047 encoded words (the email package's unstructured
    parse is superlinear in them; mail/encoded_words.py reads them in one pass)."""
    m = Mail("[PATCH net] foo: " + " ".join("=?utf-8?b?w6Q=?=" for _ in range(words)), patch_body())
    path.write_text("From mboxrd@z Thu Jan  1 00:00:00 1970\n" + m.render("subj@example.org", START) + "\n")
