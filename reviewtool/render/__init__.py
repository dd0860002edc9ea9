"""Renderers: JSON is serialized data; every other format is a jinja2 template."""

from __future__ import annotations

import json

from .data import review_data
from .env import render_template

FORMATS = ("text", "markdown", "json", "email")


def render_review(review, fmt: str) -> str:
    data = review_data(review)
    if fmt == "json":
        return json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    # pw-bot commands are only read from maintainers; the profile says whether the list has the bot.
    return render_template(f"check.{fmt}.j2", r=data, pw_bot=bool(review.profile.settings.get("pw_bot")))
