"""The conversation: which postings are revisions of one series (revisions.py), and what the
replies to them did. Read by `check`, `triage` and `profile learn` alike; mail parsing stays
below it (mail/, sources/), the rules and reports above it."""
