"""Build realistic patch mail for tests: the shape git format-patch + git send-email produce.

Tests use this to make good/bad variants of a real netdev-style thread; the corpus files in
fixtures/corpus/ cover real traffic.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass, field
from email.utils import format_datetime
from datetime import datetime, timedelta, timezone
from pathlib import Path

DEFAULT_DIFF = """\
diff --git a/net/core/dev.c b/net/core/dev.c
index 1111111..2222222 100644
--- a/net/core/dev.c
+++ b/net/core/dev.c
@@ -10,7 +10,7 @@ static int foo(struct net_device *dev)
 {
 	int err;
 
-	err = bar(dev);
+	err = bar(dev, 0);
 	if (err)
 		return err;
 	return 0;
"""


def hunk_diff(path: str, removed: list[str], added: list[str], before: str = "static int x;",
              after: str = "static int y;") -> str:
    """A git diff of one hunk in `path`: `removed` lines replaced by `added`, between two context lines."""
    minus = "".join(f"-{line}\n" for line in removed)
    plus = "".join(f"+{line}\n" for line in added)
    return (f"diff --git a/{path} b/{path}\nindex 1111111..2222222 100644\n--- a/{path}\n+++ b/{path}\n"
            f"@@ -1,{2 + len(removed)} +1,{2 + len(added)} @@\n {before}\n{minus}{plus} {after}\n")


# A driver patch that adds a module parameter: new work, whatever its subject says.
MODPARAM_DIFF = """\
diff --git a/drivers/net/ethernet/foo/foo_main.c b/drivers/net/ethernet/foo/foo_main.c
index 1111111..2222222 100644
--- a/drivers/net/ethernet/foo/foo_main.c
+++ b/drivers/net/ethernet/foo/foo_main.c
@@ -1,2 +1,4 @@
 #include <linux/module.h>
+static bool foo_xdp = true;
+module_param(foo_xdp, bool, 0444);
 static int x;
"""


@dataclass
class Mail:
    subject: str
    body: str = ""
    sender: str = "Jane Developer <jane@example.org>"
    msgid: str | None = None
    in_reply_to: str | None = None
    date: datetime | None = None
    to: str = "netdev@vger.kernel.org"
    cc: str = ""
    extra_headers: dict[str, str] = field(default_factory=dict)

    def render(self, msgid: str, date: datetime) -> str:
        headers = [
            f"From: {self.sender}",
            f"Date: {format_datetime(self.date or date)}",
            f"Subject: {self.subject}",
            f"Message-ID: <{msgid}>",
            f"To: {self.to}",
        ]
        if self.cc:
            headers.append(f"Cc: {self.cc}")
        if self.in_reply_to:
            headers += [f"In-Reply-To: <{self.in_reply_to}>", f"References: <{self.in_reply_to}>"]
        headers += [f"{k}: {v}" for k, v in self.extra_headers.items()]
        headers += ["MIME-Version: 1.0", "Content-Type: text/plain; charset=utf-8",
                    "Content-Transfer-Encoding: 8bit"]
        return "\n".join(headers) + "\n\n" + self.body.rstrip("\n") + "\n"


def patch_body(message: str = "The foo path returns early without bar's flags.\n\nPass the flags.",
               trailers: str = "Signed-off-by: Jane Developer <jane@example.org>",
               notes: str = "", diff: str = DEFAULT_DIFF) -> str:
    stat = " net/core/dev.c | 2 +-\n 1 file changed, 1 insertion(+), 1 deletion(-)\n"
    parts = [textwrap.dedent(message).strip("\n"), ""]
    if trailers:
        parts += [textwrap.dedent(trailers).strip("\n")]
    parts += ["---"]
    if notes:
        parts += [textwrap.dedent(notes).strip("\n"), ""]
    parts += [stat, diff.rstrip("\n"), "-- ", "2.43.0", ""]
    return "\n".join(parts)


def cover_body(text: str = "This series fixes two things in foo.", notes: str = "",
               base: str | None = "0123456789abcdef0123456789abcdef01234567") -> str:
    parts = [textwrap.dedent(text).strip("\n"), ""]
    if notes:
        parts += [textwrap.dedent(notes).strip("\n"), ""]
    parts += ["Jane Developer (2):", "  foo: a", "  foo: b", "", " net/core/dev.c | 2 +-",
              " 1 file changed, 1 insertion(+), 1 deletion(-)", ""]
    if base:
        parts += [f"base-commit: {base}", ""]
    parts += ["-- ", "2.43.0", ""]
    return "\n".join(parts)


def thread(*mails: Mail, start: datetime | None = None, domain: str = "example.org",
           thread_to_first: bool = True) -> str:
    """An mboxrd of the mails; mails without in_reply_to reply to the first (git send-email style)."""
    start = start or datetime(2026, 11, 2, 10, 0, tzinfo=timezone.utc)
    out = []
    first_id = None
    for i, m in enumerate(mails):
        msgid = m.msgid or f"20261102100000.{1000 + i}-{i}-jane@{domain}"
        if i == 0:
            first_id = msgid
        elif thread_to_first and m.in_reply_to is None:
            m.in_reply_to = first_id
        out.append("From mboxrd@z Thu Jan  1 00:00:00 1970\n" + m.render(msgid, start + timedelta(seconds=i)))
    return "\n".join(out)


def series_mails(n: int, *, tree: str = "net", version: int = 1, cover: bool = True,
                 bodies: dict[int, str] | None = None, subjects: dict[int, str] | None = None) -> list[Mail]:
    v = f" v{version}" if version > 1 else ""
    mails = []
    if cover:
        mails.append(Mail(f"[PATCH {tree}{v} 0/{n}] foo: fix two things", cover_body()))
    for i in range(1, n + 1):
        subj = (subjects or {}).get(i, f"foo: fix thing number {i}")
        body = (bodies or {}).get(i, patch_body())
        prefix = f"[PATCH {tree}{v} {i}/{n}]" if n > 1 or cover else f"[PATCH {tree}{v}]"
        mails.append(Mail(f"{prefix} {subj}", body))
    return mails


def write(tmp_path: Path, text: str, name: str = "series.mbox") -> Path:
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return p
