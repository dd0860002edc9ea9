"""Which project a series is sent to and what that project asks: its trees, paths, tags and
settings as data (profile.py, parts.py), read from TOML with every value checked (read.py), loaded
from the shipped files and the repository's own (load.py) or from a file a command names (file.py),
and chosen for a series (select.py)."""
