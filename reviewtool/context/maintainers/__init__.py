"""Who must see a patch: the repository's MAINTAINERS (file_format.py) matched the way
scripts/get_maintainer.pl matches it (lookup.py, with patterns.py's matchers), under .mailmap's
names (mailmap.py), the parsed file kept between commands (cache.py)."""
