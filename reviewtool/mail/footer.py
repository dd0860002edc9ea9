"""What a mailing list adds below a mail's body: its footer, which is not the sender's text.

A mailman list appends, after the sender's last line (a patch's `-- ` signature and git version, a
cover letter's base-commit, a reply's last words):

    _______________________________________________
    Intel-wired-lan mailing list
    Intel-wired-lan@osuosl.org
    https://lists.osuosl.org/mailman/listinfo/intel-wired-lan

(mailman 3: "foo mailing list -- foo@lists.example.org", "To unsubscribe send an email to
foo-leave@..."). The shape is the list software's, not one list's: a line of underscores, then
one block of at most MAX_LINES short lines that ends the body, one of which names the list
("mailing list") or how to leave it (a listinfo URL, "unsubscribe"). It is cut before the body is
read as a commit message, a diff, a cover letter or a reply. Underscores with the sender's own
text after them (a table rule, a signature drawn with them) stay: the footer ends the body.
"""

from __future__ import annotations

import re

MAX_LINES = 6  # the footer's lines after the rule (mailman 2: 3; mailman 3: 2)
MAX_LINE = 200  # a footer line is short: a paragraph of the sender's is not one
_RULE_RE = re.compile(r"_{20,}[ \t]*")
_NAMES_LIST_RE = re.compile(r"mailing list|/listinfo/|/mailman/|unsubscribe", re.I)


def strip_list_footer(body: str) -> str:
    """`body` without the list's footer at its end (the text as given when it has none)."""
    if not body or "_" * 20 not in body:  # most mails: no rule of underscores at all
        return body
    lines = body.split("\n")
    end = len(lines)
    while end and not lines[end - 1].strip():
        end -= 1
    for start in range(end - 1, max(-1, end - MAX_LINES - 2), -1):
        if _RULE_RE.fullmatch(lines[start].strip()):
            tail = lines[start + 1:end]  # one block: a blank line inside is the sender's text after a rule
            if (tail and len(tail) <= MAX_LINES and all(line.strip() for line in tail) and all(len(line) <= MAX_LINE for line in tail)
                    and any(_NAMES_LIST_RE.search(line) for line in tail)):
                return "\n".join(lines[:start]).rstrip("\n") + "\n"
            return body
    return body
