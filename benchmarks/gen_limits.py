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


def encoded_subject_8bit(path: Path, words: int) -> None:
    """As encoded_subject, with one raw accented letter: the value is then the email package's to
    parse, which reviewtool bounds (mail/headers.py MAX_HEADER_CHARS, MAX_WORDS)."""
    m = Mail("[PATCH net] foo: \u00e9 " + " ".join("=?utf-8?b?w6Q=?=" for _ in range(words)), patch_body())
    path.write_text("From mboxrd@z Thu Jan  1 00:00:00 1970\n" + m.render("subj8@example.org", START) + "\n")


def encoded_cc_8bit(path: Path, people: int) -> None:
    """As encoded_cc, each name with a raw accented letter (the email package's whole-list parse)."""
    cc = ", ".join(f"=?utf-8?b?w6Q=?= P\u00e9rson{i} <p{i}@example.org>" for i in range(people))
    m = Mail("[PATCH net] foo: fix bar", patch_body(), cc=cc)
    path.write_text("From mboxrd@z Thu Jan  1 00:00:00 1970\n" + m.render("cc8@example.org", START) + "\n")


def reply_bracket_run(path: Path, chars: int) -> None:
    """One patch and a review whose subject is `Re: [PATCH ` and `chars` `[` (b4 reads a reply's
    subject unsanitised)."""
    with path.open("w") as out:
        out.write(_mail("[PATCH net] foo: fix bar", patch_body(), "rb@example.org", None, 0))
        out.write(_mail("Re: [PATCH " + "[" * chars, "> quoted\n\nReviewed-by: Rob <rob@example.net>\n",
                        "rbr@example.org", "rb@example.org", 1, sender="Rob <rob@example.net>"))


def asking_thread(path: Path, replies: int) -> None:
    """A 3-patch series and `replies` replies from seven reviewers, each asking for a change (each
    request is checked against the replies after it)."""
    with path.open("w") as out:
        out.write(_mail("[PATCH net-next 0/3] foo: big", cover_body(), "ac@example.org", None, 0))
        for k in range(1, 4):
            out.write(_mail(f"[PATCH net-next {k}/3] foo: part {k}", patch_body(), f"ap{k}@example.org", "ac@example.org", k))
        for i in range(replies):
            out.write(_mail("Re: [PATCH net-next 1/3] foo: part 1", "> quoted\n\nPlease split this patch, and could "
                            "you rebase it?\n", f"ar{i}@example.org", f"ap{i % 3 + 1}@example.org", 10 + i,
                            sender=f"R{i % 7} <r{i % 7}@example.net>"))


def patch_thread(path: Path, patches: int) -> None:
    """A cover letter and `patches` patches in one thread, each on a file of its own (a total of
    10,000 or more is no counter the subject parser reads)."""
    with path.open("w") as out:
        out.write(_mail(f"[PATCH net-next 00/{patches}] foo: big", cover_body(), "pc@example.org", None, 0))
        for k in range(1, patches + 1):
            diff = hunk_diff(f"drivers/net/foo{k}/main.c", ["\treturn 0;"], [f"\treturn bar({k});"])
            out.write(_mail(f"[PATCH net-next {k}/{patches}] foo{k}: part {k}", patch_body(diff=diff),
                            f"pp{k}@example.org", "pc@example.org", k))


def many_trailers(path: Path, count: int) -> None:
    """One patch carrying `count` Reviewed-by trailers."""
    trailers = "\n".join(f"Reviewed-by: Person {i} <p{i}@example.org>" for i in range(count))
    path.write_text(_mail("[PATCH net] foo: fix bar", patch_body(trailers=trailers + "\nSigned-off-by: Jane "
                                                                  "Developer <jane@example.org>"), "tr@example.org", None, 0))
