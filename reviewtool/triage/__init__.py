"""`reviewtool triage`: one report over hundreds of series.

index.py (stream the archive: offsets and headers) -> group.py (threads, unthreaded series,
revisions) -> run.py (the check pipeline per series, in a process pool) -> status.py (one status
per series) -> report.py (report data, sort orders, patchwork checks) -> templates/triage.*.j2.
"""
