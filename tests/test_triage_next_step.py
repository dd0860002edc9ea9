"""One next step per series, the same in every format (triage/next_step.py): the JSON entry's
`next_step` is the line the text, markdown and HTML reports print; a series reviewed in part names
the patches still waiting for a review."""

from __future__ import annotations

import html
from datetime import datetime, timedelta, timezone

from mailfactory import Mail, patch_body, thread, write

T0 = datetime(2026, 11, 2, 10, tzinfo=timezone.utc)
AUTHOR = "Jane Developer <jane@example.org>"


def _archive(tmp_path, reviewed: tuple[int, ...]):
    mails = [Mail("[PATCH net-next 0/3] foo: counters", "Three counters.\n", sender=AUTHOR, msgid="c@example.org")]
    mails += [Mail(f"[PATCH net-next {n}/3] foo: add counter {n}", patch_body(trailers=f"Signed-off-by: {AUTHOR}"),
                   sender=AUTHOR, msgid=f"p{n}@example.org", in_reply_to="c@example.org") for n in (1, 2, 3)]
    mails += [Mail(f"Re: [PATCH net-next {n}/3] foo: add counter {n}", "Reviewed-by: Rita Reviewer <rita@example.org>\n",
                   sender="Rita Reviewer <rita@example.org>", in_reply_to=f"p{n}@example.org", msgid=f"r{n}@example.org",
                   date=T0 + timedelta(hours=n)) for n in reviewed]
    return write(tmp_path, thread(*mails, start=T0))


def _run(cli, path, fmt: str) -> str:
    res = cli("triage", str(path), "--no-store", "--now", "2026-11-03", "--format", fmt, "--select", "series")
    assert res.code in (0, 1), res.err
    return res.out


def test_a_series_reviewed_in_part_names_the_patches_waiting_and_every_format_says_it(tmp_path, cli):
    path = _archive(tmp_path, reviewed=(1,))
    (item,) = __import__("json").loads(_run(cli, path, "json"))["series"]
    assert item["status"] == "needs-review"
    assert item["next_step"] == "review patches 2, 3 (the others have reviews), or ask a reviewer"
    for fmt in ("text", "markdown", "html"):
        out = _run(cli, path, fmt)
        assert item["next_step"] in (html.unescape(out) if fmt == "html" else " ".join(out.split())), fmt


def test_an_unreviewed_or_reviewed_series_gets_the_plain_step(tmp_path, cli):
    (none,) = __import__("json").loads(_run(cli, _archive(tmp_path, reviewed=()), "json"))["series"]
    assert none["status"] == "needs-review" and none["next_step"] == "review it, or ask a reviewer"
    (done,) = __import__("json").loads(_run(cli, _archive(tmp_path, reviewed=(1, 2, 3)), "json"))["series"]
    assert done["status"] == "ready" and done["next_step"] == "apply it"


def test_an_rfc_is_never_apply_it(tmp_path, cli):
    """An RFC reviewed in full gets the verdict's words (comment on the approach, not applied); one
    waiting for review is asked for comments; the tag taken off in the thread makes it one to apply."""
    mails = [Mail("[RFC PATCH net-next] foo: add the bar counter", patch_body(trailers=f"Signed-off-by: {AUTHOR}"),
                  sender=AUTHOR, msgid="p@example.org")]
    path = write(tmp_path, thread(*mails, start=T0), "rfc.mbox")
    (item,) = __import__("json").loads(_run(cli, path, "json"))["series"]
    assert item["status"] == "needs-review" and "an RFC is not applied" in item["next_step"]
    review = Mail("Re: [RFC PATCH net-next] foo: add the bar counter", "Reviewed-by: Rita Reviewer <rita@example.org>\n",
                  sender="Rita Reviewer <rita@example.org>", in_reply_to="p@example.org", msgid="r@example.org",
                  date=T0 + timedelta(hours=1))
    path = write(tmp_path, thread(*mails, review, start=T0), "rfc2.mbox")
    (item,) = __import__("json").loads(_run(cli, path, "json"))["series"]
    assert item["status"] == "ready" and "as an RFC it is not applied" in item["next_step"]
    lifted = Mail("Re: [RFC PATCH net-next] foo: add the bar counter", "I just forgot to drop the RFC, so consider it as final.\n",
                  sender=AUTHOR, in_reply_to="p@example.org", msgid="a@example.org", date=T0 + timedelta(hours=2))
    path = write(tmp_path, thread(*mails, review, lifted, start=T0), "rfc3.mbox")
    (item,) = __import__("json").loads(_run(cli, path, "json"))["series"]
    assert item["status"] == "ready" and item["next_step"] == "apply it"
