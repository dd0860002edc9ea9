"""What each patch is and where it goes: a fix, development work, a test or documentation, and the
tree (series.py), from what the patch says of itself (reading.py), what its diff and trailers show
(diff_evidence.py), how those weigh (kind.py), what its cover letter says of it (cover.py) and where its
Fixes targets live (targets.py)."""
