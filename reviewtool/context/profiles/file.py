"""A profile read from a file: what `reviewtool profile learn` writes, or any TOML in the form of
the shipped profiles (reviewtool/profiles/*.toml).

Named by `--profile FILE` (check, triage, lint), `git config reviewtool.profile FILE` or
`profile = "FILE"` in `.reviewtool.toml` (a relative path is read from the repository's top).
A value is a file when it ends in `.toml` or holds a `/`; anything else is a profile's name.

A file holds one profile (the shipped form: `name`, `lists`, `[[trees]]`, ...) or several under
`[profiles.NAME]` tables, for a list that carries several projects (the kernel's Bluetooth trees
and BlueZ on linux-bluetooth); `profile = "NAME"` names the one used when nothing else decides,
else the first. A file's profiles take the place of shipped ones of the same name.

- `--profile FILE` with one profile: that profile, for every series.
- `--profile FILE` with several: chosen among them as among all profiles (a subject tag, the
  files, the list), falling back to the file's default instead of `generic`.
- the repository's default naming a file: its profiles come first, so a subject tag reads as
  their trees before a shipped profile's, and the file's default stands for the repository's.
"""

from __future__ import annotations

import hashlib
import tomllib
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from ...errors import ConfigError
from .read import read_profile
from .profile import Profile
from .load import _as_data, _merge, repo_default_profile


def names_a_file(value: str | None) -> bool:
    return bool(value) and (value.endswith(".toml") or "/" in value)


@dataclass(frozen=True)
class ProfileFile:
    path: Path
    profiles: tuple[Profile, ...]
    default: str  # the profile used when nothing else decides
    digest: str  # sha256 of the bytes: a changed file is a changed review (triage's store)


def read_profile_file(path: Path, base: dict[str, Profile] | None = None) -> ProfileFile:
    """The profiles of one file; `base` is what `extends` may name (default: the shipped ones)."""
    from .load import shipped_profiles

    try:
        st = path.stat()
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read the profile file ({exc.strerror or exc})") from exc
    where = str(path.resolve())
    doc, digest = _parsed(where, st.st_mtime_ns, st.st_size)
    return _profiles_of(doc, path.stem, where, digest, base or shipped_profiles())


def read_profile_text(text: str, origin: str) -> ProfileFile:
    """The profiles of a file's text, read as `--profile` reads the file (`profile learn` reads
    what it is about to write, so it never writes a profile `--profile` refuses)."""
    from .load import shipped_profiles

    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{origin}: {' '.join(str(exc).split())}") from exc
    return _profiles_of(doc, Path(origin).stem, origin, hashlib.sha256(text.encode("utf-8")).hexdigest(),
                        shipped_profiles())


def _profiles_of(doc: dict[str, Any], stem: str, where: str, digest: str, known: dict[str, Profile]) -> ProfileFile:
    tables = doc.get("profiles")
    if tables is None:
        name = str(doc.get("name") or stem)
        tables, default = {name: doc}, name
    else:
        if not isinstance(tables, dict) or not tables or not all(isinstance(t, dict) for t in tables.values()):
            raise ConfigError(f"{where}: [profiles.NAME] must be tables")
        default = str(doc.get("profile") or next(iter(tables)))
        if default not in tables:
            raise ConfigError(f"{where}: profile = {default!r} names no [profiles.{default}] of the file")
    out = []
    for name, table in tables.items():
        parent = table.get("extends")
        if parent is not None and parent not in known:
            raise ConfigError(f"{where}: profile {name!r} extends unknown profile {parent!r}")
        merged = _merge(_as_data(known[parent]), table) if parent else table
        out.append(read_profile(str(name), merged, where))
    return ProfileFile(Path(where), tuple(out), default, digest)


@lru_cache(maxsize=16)  # triage asks once per series; the key holds the file's mtime and size
def _parsed(path: str, mtime: int, size: int) -> tuple[dict[str, Any], str]:
    del mtime, size  # parts of the cache key only
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read the profile file ({exc.strerror or exc})") from exc
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:  # the codec's own words name no file and mean little
        raise ConfigError(f"{path}: the profile file is not UTF-8 text (bad byte at offset {exc.start})") from exc
    try:
        return tomllib.loads(text), hashlib.sha256(data).hexdigest()
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: {' '.join(str(exc).split())}") from exc


@dataclass(frozen=True)
class ProfileChoice:
    """What select_profile is given once the profile option and the repository default are read."""

    profiles: dict[str, Profile]
    name: str | None  # forced
    default: Any  # (name, where) standing for the repository's default, or select_profile's marker
    file: ProfileFile | None = None  # the file --profile named

    def reason(self, why: str) -> str:
        if self.file is not None and why == "chosen with --profile":
            return f"chosen with --profile {self.file.path}"
        return why


def choose(profiles: dict[str, Profile], option: str | None, repo: Path | None, config: Any = None) -> ProfileChoice:
    """Read the file `option` or the repository's default names, if either names one."""
    from .select import _FROM_REPO

    if names_a_file(option):
        pf = read_profile_file(Path(option).expanduser(), profiles)
        if len(pf.profiles) == 1:
            return ProfileChoice({**profiles, pf.default: pf.profiles[0]}, pf.default, None, pf)
        own = {p.name: p for p in pf.profiles}
        own.setdefault("generic", profiles["generic"])
        return ProfileChoice(own, None, (pf.default, f"the default of {pf.path}"), pf)
    if option:
        return ProfileChoice(profiles, option, _FROM_REPO)
    default = repo_default_profile(repo, config)
    if default is None or not names_a_file(default[0]):
        return ProfileChoice(profiles, None, default if default is not None else None)
    target = Path(default[0]).expanduser()
    pf = read_profile_file(target if target.is_absolute() else Path(repo) / target, profiles)
    first = {p.name: p for p in pf.profiles}
    return ProfileChoice({**first, **{k: v for k, v in profiles.items() if k not in first}}, None,
                         (pf.default, f"{default[1]}: {default[0]}"))


def option_digest(option: str | None) -> str:
    """The profile option as a review depends on it: a file's name and bytes, else the name."""
    if not names_a_file(option):
        return option or ""
    try:
        return f"{option}\0{hashlib.sha256(Path(option).expanduser().read_bytes()).hexdigest()}"
    except OSError:
        return f"{option}\0unreadable"
