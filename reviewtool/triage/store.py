"""The triage result store: one SQLite file that keeps, between runs, the review of every series
(triage/reuse.py) and the header index of every archive file (triage/store_index.py).

A review is kept under a key made of everything that decides it (triage/store_keys.py) and is
reused only when that key, and the repository state it was made with, come again. The store is
an optimisation, never a dependency: every failure (a corrupt or truncated file, a lock held past
the timeout, a store of a newer reviewtool, a full disk) raises StoreError, and the run goes on
without it. Each row carries a CRC of its key and content, so a damaged row is never taken for a
review. Two runs at once are safe: in WAL mode readers go on while one run writes, each write is
one short transaction, and a row is only ever replaced whole.
"""

from __future__ import annotations

import json
import os
import sqlite3
import time
import zlib
from pathlib import Path
from typing import Any, Callable, Iterable

from .. import cachedir

SCHEMA = 1  # bumped when the tables change: an older store is emptied, a newer one left alone
APPLICATION_ID = 0x72767472  # "rvtr": a database another program made is never taken for ours
KEEP_DAYS = 30  # rows no run used for this long are removed
DEFAULT_TIMEOUT_S = 10.0  # how long to wait for another run's write before going on without
TIMEOUT_ENV = "REVIEWTOOL_STORE_TIMEOUT"
_CHUNK = 500  # keys per query: under SQLite's limit on bound parameters
GROUPING = "grouping:"  # the key prefix of an archive's kept grouping (group_memo.py), a row that is no review
PULLED = "pulled:"  # the key prefix of the states its pull requests give (pulls_memo.py), no review either

_TABLES = """
CREATE TABLE meta (name TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE reviews (key TEXT PRIMARY KEY, env TEXT NOT NULL, msgid TEXT, run INTEGER NOT NULL,
                      used INTEGER NOT NULL, head TEXT NOT NULL, tail BLOB NOT NULL, crc INTEGER NOT NULL);
CREATE TABLE files (path TEXT PRIMARY KEY, input TEXT NOT NULL, state TEXT NOT NULL, heads BLOB NOT NULL,
                    used INTEGER NOT NULL, crc INTEGER NOT NULL);
CREATE INDEX files_input ON files (input);
"""


class StoreError(Exception):
    """The store cannot be used; str() is one line saying why."""


def default_path() -> Path:
    return cachedir.root("triage.sqlite")


def timeout_s() -> float:
    try:
        return max(0.0, float(os.environ.get(TIMEOUT_ENV, DEFAULT_TIMEOUT_S)))
    except ValueError:
        return DEFAULT_TIMEOUT_S


def _today() -> int:
    return int(time.time() // 86400)


def _crc(*parts: str | bytes) -> int:
    crc = 0
    for p in parts:
        crc = zlib.crc32(p.encode() if isinstance(p, str) else p, crc)
    return crc


def _why(exc: BaseException, ours: bool) -> str:
    """One line for a failure; removing the file is advised only for a file known to be a store
    (its application id is ours): the path given may be anything, an mbox included."""
    text = " ".join(str(exc).split()) or type(exc).__name__
    if "locked" in text or "busy" in text:
        return f"{text} (another run held it for over {timeout_s():g} s)"
    if "malformed" in text and ours:
        return f"{text} (remove the file to start a new store)"
    if "not a database" in text or "malformed" in text:
        return f"{text}: not a reviewtool result store (give --store a file of its own)"
    return text


def _create_private(path: Path) -> None:
    """Create the store's file readable by its owner only: it holds subjects, authors, evidence
    and the archives' absolute paths. SQLite gives its -wal and -shm files the same mode."""
    try:
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
    except FileExistsError:
        pass


def _keep_private(path: Path) -> None:
    """A store an older reviewtool made with the umask's mode (0644): made private like a new one."""
    for p in (path, Path(f"{path}-wal"), Path(f"{path}-shm")):
        try:
            st = p.stat()
            if st.st_mode & 0o077 and st.st_uid == os.getuid():
                os.chmod(p, st.st_mode & 0o700)
        except OSError:
            pass


class Store:
    """An open store. Every method raises StoreError, never sqlite3's own errors."""

    def __init__(self, path: Path, db: sqlite3.Connection):
        self.path, self._db = path, db
        self.run = 0
        self.ours = False  # the file's application id is a result store's
        self.damaged = 0  # rows that failed their CRC: misses, reviewed or read again
        # file rows read that a run marked used today already: finish_run leaves them be (an
        # update of each of a maildir's 28,000 rows, each a lookup, was a thirtieth of a warm run)
        self._used_today: set[str] = set()

    @classmethod
    def open(cls, path: Path) -> "Store":
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            _create_private(path)
            db = sqlite3.connect(path, timeout=timeout_s(), isolation_level=None)
        except (OSError, sqlite3.Error) as exc:
            raise StoreError(_why(exc, ours=False)) from exc
        store = cls(path, db)
        try:
            store._prepare()
        except BaseException:
            db.close()
            raise
        return store

    def _do(self, fn, *args):
        try:
            return fn(*args)
        except (sqlite3.Error, OSError, zlib.error, ValueError, TypeError, KeyError) as exc:
            if self._db.in_transaction:
                try:
                    self._db.rollback()
                except sqlite3.Error:
                    pass
            raise StoreError(_why(exc, self.ours)) from exc

    def _prepare(self) -> None:
        def prepare():
            db = self._db
            # One read transaction: read apart, another run creating the store between the reads
            # shows tables without the application id, which looks like another program's file.
            db.execute("BEGIN")
            app, version = (db.execute(f"PRAGMA {p}").fetchone()[0] for p in ("application_id", "user_version"))
            tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
            db.execute("COMMIT")
            if app != APPLICATION_ID and (app or tables):
                raise StoreError("not a reviewtool result store (another program's database)")
            self.ours = app == APPLICATION_ID
            if version > SCHEMA:
                raise StoreError(f"made by a newer reviewtool (store version {version}, this one reads {SCHEMA})")
            if tables and db.execute("PRAGMA quick_check(1)").fetchone()[0] != "ok":  # before any write
                raise StoreError("database disk image is malformed (remove the file to start a new store)")
            if db.execute("PRAGMA journal_mode = WAL").fetchone()[0].lower() != "wal":
                raise StoreError("cannot switch the database to WAL mode")
            db.execute("PRAGMA synchronous = NORMAL")
            if version < SCHEMA:
                db.execute("BEGIN IMMEDIATE")
                if db.execute("PRAGMA user_version").fetchone()[0] < SCHEMA:  # another run may have just done it
                    for name in tables:  # an older layout: a cache is rebuilt, not migrated
                        db.execute(f'DROP TABLE IF EXISTS "{name}"')
                    for stmt in filter(str.strip, _TABLES.split(";")):
                        db.execute(stmt)
                    db.execute(f"PRAGMA application_id = {APPLICATION_ID}")
                    db.execute(f"PRAGMA user_version = {SCHEMA}")
                db.execute("COMMIT")
            _keep_private(self.path)
        self._do(prepare)

    def close(self) -> None:
        try:
            self._db.close()
        except sqlite3.Error:
            pass

    # -- runs --------------------------------------------------------------------------------

    def begin_run(self) -> int:
        """Number this run (each review row says which run wrote it)."""
        def begin():
            db = self._db
            db.execute("BEGIN IMMEDIATE")
            row = db.execute("SELECT value FROM meta WHERE name = 'runs'").fetchone()
            self.run = int(row[0]) + 1 if row else 1
            db.execute("INSERT OR REPLACE INTO meta VALUES ('runs', ?)", (str(self.run),))
            db.execute("COMMIT")
            return self.run
        return self._do(begin)

    def finish_run(self, summary: dict[str, Any], used_keys: Iterable[str], used_files: Iterable[str]) -> None:
        """Mark what this run used (once a day is enough for pruning), prune, record the summary."""
        def finish():
            db, day = self._db, _today()
            db.execute("BEGIN IMMEDIATE")
            db.executemany("UPDATE reviews SET used = ? WHERE key = ? AND used < ?",
                           ((day, k, day) for k in used_keys))
            db.executemany("UPDATE files SET used = ? WHERE path = ? AND used < ?",
                           ((day, p, day) for p in used_files if p not in self._used_today))
            db.execute("DELETE FROM reviews WHERE used < ?", (day - KEEP_DAYS,))
            db.execute("DELETE FROM files WHERE used < ?", (day - KEEP_DAYS,))
            db.execute("INSERT OR REPLACE INTO meta VALUES ('last_run', ?)", (json.dumps(summary),))
            db.execute("COMMIT")
        self._do(finish)

    def info(self) -> dict[str, Any]:
        def info():
            db = self._db
            last = db.execute("SELECT value FROM meta WHERE name = 'last_run'").fetchone()
            reviews = db.execute("SELECT COUNT(*) FROM reviews WHERE key NOT LIKE ? AND key NOT LIKE ?",
                                 (GROUPING + "%", PULLED + "%")).fetchone()[0]
            return {"path": str(self.path), "reviews": reviews,
                    "files": db.execute("SELECT COUNT(*) FROM files").fetchone()[0],
                    "bytes": sum(p.stat().st_size for p in (self.path, Path(f"{self.path}-wal")) if p.exists()),
                    "last_run": json.loads(last[0]) if last else None}
        return self._do(info)

    # -- reviews -----------------------------------------------------------------------------

    def reviews(self, keys: list[str]) -> dict[str, tuple[str, str, bytes]]:
        """{key: (env, head, tail)} of the keys the store has, each checked against its CRC."""
        def read():
            out = {}
            for i in range(0, len(keys), _CHUNK):
                part = keys[i:i + _CHUNK]
                rows = self._db.execute(f"SELECT key, env, head, tail, crc FROM reviews WHERE key IN "
                                        f"({','.join('?' * len(part))})", part)
                for key, env, head, tail, crc in rows:
                    if not isinstance(tail, bytes) or _crc(key, env, head, tail) != crc:
                        self.damaged += 1  # a miss: reviewed again, and the row replaced whole
                        continue
                    out[key] = (env, head, tail)
            return out
        return self._do(read)

    def save_reviews(self, rows: list[tuple[str, str, str | None, str, bytes]]) -> None:
        """(key, env, msgid, head, tail) rows, in one transaction."""
        def save():
            db, day = self._db, _today()
            db.execute("BEGIN IMMEDIATE")
            db.executemany("INSERT OR REPLACE INTO reviews VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                           ((k, env, msgid, self.run, day, head, tail, _crc(k, env, head, tail))
                            for k, env, msgid, head, tail in rows))
            db.execute("COMMIT")
        if rows:
            self._do(save)

    # -- the archive's header index ----------------------------------------------------------

    def files(self, input_path: str) -> dict[str, tuple[str, bytes]]:
        """{path: (state, heads)} of the files indexed for one input (a file, a maildir)."""
        def read():
            out, day = {}, _today()
            for path, state, heads, used, crc in self._db.execute(
                    "SELECT path, state, heads, used, crc FROM files WHERE input = ?", (input_path,)):
                if not isinstance(heads, bytes) or _crc(path, state, heads) != crc:
                    self.damaged += 1  # a miss: the file is read whole again, the row replaced
                    continue
                out[path] = (state, heads)
                if used == day:
                    self._used_today.add(path)
            return out
        return self._do(read)

    def save_files(self, input_path: str, rows: list[tuple[str, str, bytes]], gone: Iterable[str] = ()) -> None:
        """(path, state, heads) rows of one input, and the paths no longer in it, in one transaction."""
        def save():
            db, day = self._db, _today()
            db.execute("BEGIN IMMEDIATE")
            db.executemany("DELETE FROM files WHERE path = ?", ((p,) for p in gone))
            db.executemany("INSERT OR REPLACE INTO files VALUES (?, ?, ?, ?, ?, ?)",
                           ((p, input_path, state, heads, day, _crc(p, state, heads)) for p, state, heads in rows))
            db.execute("COMMIT")
        self._do(save)


class Guard:
    """The store of one run, or none: the first failure is reported in one line and the store is
    closed; every later call returns its default. A triage run never stops for its store."""

    def __init__(self, store: Store | None, report: Callable[[str], None]):
        self.store, self._report = store, report
        self.failed = False

    @classmethod
    def open(cls, path: Path | None, report: Callable[[str], None]) -> "Guard":
        """The store at `path` (None: run without one)."""
        if path is None:
            return cls(None, report)
        try:
            return cls(Store.open(path), report)
        except StoreError as exc:
            guard = cls(None, report)
            guard._say(path, str(exc))
            return guard

    @property
    def usable(self) -> bool:
        return self.store is not None

    def call(self, fn: Callable[[Store], Any], default: Any = None) -> Any:
        if self.store is None:
            return default
        try:
            return fn(self.store)
        except StoreError as exc:
            self.fail(str(exc))
            return default

    def fail(self, why: str) -> None:
        if self.store is not None:
            self._say(self.store.path, why)
            self.store.close()
            self.store = None

    def close(self) -> None:
        if self.store is not None:
            self.store.close()
            self.store = None

    def _say(self, path: Path, why: str) -> None:
        self.failed = True
        self._report(f"result store {path}: {why}; triaging without it")
