"""`reviewtool triage`: one report over hundreds of series.

sources/index.py (stream the archive: offsets and headers) -> group.py (threads, unthreaded
series, revisions) -> run.py (the check pipeline per series, in a process pool) -> status.py (one
status per series) -> spool.py (compact results) -> report.py (report data, sort orders, patchwork
checks) -> output.py + templates/triage.*.j2 (written as rendered). inputs.py fetches --msgids
and --query archives through the check fetch path.
"""
