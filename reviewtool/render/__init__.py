"""Renderers: JSON is serialized data; every other format is a jinja2 template."""

from __future__ import annotations

import json

FORMATS = ("text", "markdown", "json", "email")


def thread_lines(series) -> set[str]:
    """Every line of the thread's mails (patches, cover letter, replies), stripped: the text a
    reply may quote as someone's words."""
    lines: set[str] = set()
    for p in series.all_mails:
        for text in (p.subject.raw, *p.message_lines, p.notes, p.diff.text):
            lines.update(line.strip() for line in text.splitlines())
    for r in series.replies:
        lines.update(line.strip().lstrip(">").strip() for line in (r.text or r.body).splitlines())
    return lines - {""}


def split_evidence(data: dict, series) -> list[tuple[list[str], list[str]]]:
    """Per finding: (the evidence that is text of the thread, which the email reply quotes as
    the author's words; the review's own evidence, written as indented text)."""
    lines = thread_lines(series)
    out = []
    for f in data["findings"]:
        theirs = [e for e in f["evidence"] if all(not x.strip() or x.strip() in lines for x in e.split("\n"))]
        out.append((theirs, [e for e in f["evidence"] if e not in theirs]))
    return out


def render_review(review, fmt: str) -> str:
    # Imported here: render.env and render.output serve triage too, which needs no review model.
    from .data import review_data
    from .env import render_template

    data = review_data(review)
    if fmt == "json":
        return json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    extra = {"evidence": split_evidence(data, review.series)} if fmt == "email" else {}
    # pw-bot commands are only read from maintainers; the profile says whether the list has the bot.
    return render_template(f"check.{fmt}.j2", r=data, pw_bot=bool(review.profile.settings.get("pw_bot")), **extra)
