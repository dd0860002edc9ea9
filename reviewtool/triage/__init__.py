"""`reviewtool triage`: one report over hundreds of series.

sources/index.py (stream the archive: offsets and headers) -> group.py (threads, unthreaded
series, revisions) -> run.py (the check pipeline per series, in a process pool) -> entry.py +
status.py (what a review decides, then ids, ages and staleness at report time) -> spool.py
(compact results) -> report.py (report data, sort orders, patchwork checks) -> output.py +
templates/triage.*.j2 (written as rendered). inputs.py fetches --msgids and --query archives
through the check fetch path. The result store (store.py, SQLite) keeps reviews and the header
index between runs: store_index.py + store_mbox.py read only what is new in the archive,
store_keys.py says what decides a review, reuse.py reviews only what the store cannot answer.
"""
