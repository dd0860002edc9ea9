"""Mail that is not a commit message: a reply or a quoted discussion above the patch."""

from __future__ import annotations

import re

from .registry import Hit, Severity, rule

_INBODY_HEADER_RE = re.compile(r"^(From|Subject|Date):\s+\S")
_ATTRIBUTION_RE = re.compile(r"^On\s.{4,120}\bwrote:\s*$")
_SCISSORS_RE = re.compile(r"^\s*(?:-+\s*)?(?:>8|8<)(?:\s*-+)?\s*$")  # one blank run per gap: linear


@rule("discussion-in-log", family="body", severity="warning",
      summary="Mail text (a reply, a quoted discussion) sits above the patch and would enter the commit message")
def discussion_in_log(series, ctx):
    """Why: `git am` takes everything above `---` as the commit message, and reads in-body `From:`
    and `Subject:` lines only at the very top of the body. A patch pasted under a reply ("On ...,
    X wrote:", the quoted mail, "Makes sense.") keeps the reply in the log and the in-body
    headers as text; patchwork shows the patch malformed and maintainers ask for a resend. A
    quoted report at the top of an otherwise proper message is a note: some authors quote the
    report on purpose.
    Source: git-am(1) (in-body headers, --scissors); kernel submitting-patches ("The canonical
    patch format"); linux-wireless review ("This is malformed in patchwork").
    Bad:
      On Mon, 2 Nov 2026, Jane Reviewer wrote:
      > The same fix is needed in foo_close().

      Good point, updated.

      From: Jane Developer <jane@example.org>
      Subject: [PATCH] net: foo: free the ring in foo_close() too
    Good:
      Good point, updated patch below.

      -- >8 --
      From: Jane Developer <jane@example.org>
      Subject: [PATCH] net: foo: free the ring in foo_close() too
      (or the patch as a mail of its own, from git send-email)
    """
    for p in series.patches:
        lines = list(p.message_lines)
        text = [(n, l) for n, l in enumerate(lines, 1) if l.strip()]
        if not text:
            continue
        head = 0
        while head < len(text) and _INBODY_HEADER_RE.match(text[head][1]):
            head += 1  # in-body headers at the top are git am's
        late = next(((n, l) for n, l in text[head + 1:] if _INBODY_HEADER_RE.match(l)), None)
        cut = any(_SCISSORS_RE.match(l) for _, l in text)
        if late is not None and not cut:
            yield Hit(f"line {late[0]} holds an in-body '{late[1].split(':', 1)[0]}:' below other text: the mail "
                      "above it would become the commit message", patch=p.counter,
                      evidence=(text[head][1], late[1]),
                      advice="Send the patch as a mail of its own (git send-email), or put a scissors line "
                             "`-- >8 --` right above the in-body From: so `git am --scissors` drops the reply.")
        elif head < len(text) and _ATTRIBUTION_RE.match(text[head][1]) and head + 1 < len(text) \
                and text[head + 1][1].startswith(">"):
            yield Hit("the commit message opens with a quoted mail", patch=p.counter, severity=Severity.INFO,
                      evidence=(text[head][1], text[head + 1][1]),
                      advice="Keep in the log what the report says in your own words (or a Link: to it); the "
                             "quoted mail stays in the thread.")
