"""The model's Subject: a patch subject line read into its tokens (mail/subject.py reads it)."""

from ..mail.subject import UNCLOSED, Subject, normalized_summary, parse_subject  # noqa: F401
