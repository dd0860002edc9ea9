"""Batched, read-only access to a git repository: the only place reviewtool runs git.

Three kinds of git access, each a handful of processes per review however many commits are asked
about:
- `GitRunner.run`: one short git command (rev-list, log, name-rev, ...).
- `CatFile`: one long-lived `git cat-file --batch` for existence, type and content of objects.
- `ScratchRepo`: a temporary git directory, for refs, an index and new objects, never written
  in the user's repository; it borrows the user's objects through alternates only where it
  writes no object (git would touch the user's copy of one it writes again).

Every process gets an environment that cannot change the user's repository: optional locks off
(no index refresh), no prompts, no pager, C locale.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tempfile
import threading
import zlib
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Iterable, Sequence

from ..errors import RepositoryError

_SAFE_ENV = {
    "GIT_OPTIONAL_LOCKS": "0",  # read commands must not refresh (write) the user's index
    "GIT_TERMINAL_PROMPT": "0",
    "GIT_PAGER": "cat",
    "PAGER": "cat",
    "LC_ALL": "C",
    "LANGUAGE": "C",
    "GIT_ADVICE": "0",
    "GIT_NO_LAZY_FETCH": "1",  # a partial clone must not fetch missing objects from the network
}
# Nothing the repository configures may run (docs/security.md): every key read commands could
# start a program from is overridden. Diff drivers (textconv, external diff) cannot be switched
# off by config without knowing their names: every command that prints a diff also passes
# DIFF_NO_PROGRAMS. Filters (clean, smudge, process) run only between a work tree and git, which
# no command here touches. tests/test_repo_programs.py arms every key with a marker script.
NO_PROGRAMS = ("-c", "core.quotepath=off", "-c", "log.showSignature=false", "-c", "color.ui=false",
               "-c", "core.fsmonitor=false", "-c", "core.hooksPath=/dev/null", "-c", "core.pager=cat",
               "-c", "core.alternateRefsCommand=", "-c", "core.askPass=", "-c", "credential.helper=",
               "-c", "core.attributesFile=/dev/null", "-c", "diff.external=")
DIFF_NO_PROGRAMS = ("--no-textconv", "--no-ext-diff")
# Variables that would point git at another repository, index or object store than the one we chose.
_REPO_ENV = ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY",
             "GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_COMMON_DIR", "GIT_NAMESPACE",
             "GIT_EXTERNAL_DIFF", "GIT_ASKPASS", "GIT_SSH", "GIT_SSH_COMMAND", "GIT_CONFIG_PARAMETERS")


@lru_cache(maxsize=8)
def _executable(git: str, path: str | None) -> str:
    """git by its absolute path. With that and close_fds off, subprocess starts git with
    posix_spawn, a third cheaper than its fork-and-exec from a large interpreter; descriptors
    Python opens are not inheritable, so closing them all in the child bought nothing."""
    return shutil.which(git, path=path) or git


def git_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in _REPO_ENV}
    env.update(_SAFE_ENV)
    env.update(extra or {})
    return env


@dataclass(frozen=True)
class GitResult:
    code: int
    out: str
    err: str


class GitRunner:
    """Runs git against one repository (`git -C <repo>`), read-only by construction."""

    def __init__(self, repo: Path, *, git: str = "git"):
        self.repo = repo
        self.git = git
        self.calls = 0  # how many processes were started (tests and benchmarks read it)

    def base_args(self) -> list[str]:
        return [_executable(self.git, os.environ.get("PATH")), "-C", str(self.repo), *NO_PROGRAMS]

    def run(self, args: Sequence[str], *, input: str | bytes | None = None, check: bool = True,
            env: dict[str, str] | None = None, binary: bool = False) -> GitResult:
        self.calls += 1
        data = input.encode("utf-8", "surrogateescape") if isinstance(input, str) else input
        try:
            proc = subprocess.run(self.base_args() + list(args), input=data, capture_output=True, close_fds=False,
                                  env=git_env(env), stdin=None if data is not None else subprocess.DEVNULL)
        except FileNotFoundError as exc:
            raise RepositoryError(f"cannot run {self.git!r}: is git installed?") from exc
        out = proc.stdout if binary else proc.stdout.decode("utf-8", "replace")
        err = proc.stderr.decode("utf-8", "replace")
        if check and proc.returncode != 0:
            first = next((line for line in err.splitlines() if line.strip()), f"exit {proc.returncode}")
            raise RepositoryError(f"{self.repo}: git {args[0]} failed: {first.strip()}")
        return GitResult(proc.returncode, out, err)  # type: ignore[arg-type]

    def stream(self, args: Sequence[str], block: int = 1 << 16) -> Iterable[bytes]:
        """The output of `git <args>` in blocks as git writes them, so the caller can work on the
        first part while git produces the rest. RepositoryError if git fails."""
        self.calls += 1
        err = tempfile.TemporaryFile()  # a file, not a pipe: nothing has to drain it meanwhile
        try:
            proc = subprocess.Popen(self.base_args() + list(args), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                    stderr=err, env=git_env(), close_fds=False)
        except FileNotFoundError as exc:
            err.close()
            raise RepositoryError(f"cannot run {self.git!r}: is git installed?") from exc
        assert proc.stdout is not None
        try:
            while data := proc.stdout.read1(block):
                yield data
        finally:
            proc.stdout.close()
            code = proc.wait()
            err.seek(0)
            text = err.read().decode("utf-8", "replace")
            err.close()
        if code != 0:
            first = next((line for line in text.splitlines() if line.strip()), f"exit {code}")
            raise RepositoryError(f"{self.repo}: git {args[0]} failed: {first.strip()}")

    def start(self, args: Sequence[str], *, input: str | None = None) -> "Started":
        """Start `git <args>` and return at once; `.result()` waits and gives what run() gives
        (check=False). Output goes to unnamed temporary files, not pipes, so no thread has to
        read while Python works: the process runs beside us without taking the interpreter."""
        self.calls += 1
        stdin = None
        if input is not None:
            stdin = tempfile.TemporaryFile()
            stdin.write(input.encode("utf-8", "surrogateescape"))
            stdin.seek(0)
        out, err = tempfile.TemporaryFile(), tempfile.TemporaryFile()
        try:
            proc = subprocess.Popen(self.base_args() + list(args), stdin=stdin or subprocess.DEVNULL, stdout=out,
                                    stderr=err, env=git_env(), close_fds=False)
        except FileNotFoundError as exc:
            out.close()
            err.close()
            raise RepositoryError(f"cannot run {self.git!r}: is git installed?") from exc
        finally:
            if stdin is not None:
                stdin.close()
        return Started(proc, out, err)

    def lines(self, args: Sequence[str], **kw) -> list[str]:
        return [line for line in self.run(args, **kw).out.splitlines() if line]


class PendingSet:
    """The lines of a started git command as a set (ScratchRepo.start_merged_into)."""

    def __init__(self, started: "Started | None", done=None):
        self._started, self._done = started, done

    def result(self) -> set[str]:
        if self._started is None:
            return set()
        res = self._started.result()
        if self._done is not None:
            self._done()
        if res.code != 0:
            first = next((line for line in res.err.splitlines() if line.strip()), f"exit {res.code}")
            raise RepositoryError(f"git for-each-ref --merged failed: {first.strip()}")
        return {line for line in res.out.splitlines() if line}

    def wait(self) -> None:
        if self._started is not None:
            self._started.wait()


class Started:
    """A git process started by GitRunner.start."""

    def __init__(self, proc: subprocess.Popen, out, err):
        self._proc, self._out, self._err = proc, out, err
        self._result: GitResult | None = None

    def result(self) -> GitResult:
        if self._result is None:
            code = self._proc.wait()
            data = []
            for f in (self._out, self._err):
                f.seek(0)
                data.append(f.read().decode("utf-8", "replace"))
                f.close()
            self._result = GitResult(code, data[0], data[1])
        return self._result

    def wait(self) -> None:
        self.result()


@dataclass(frozen=True)
class CatFileEntry:
    query: str
    status: str  # "found" | "missing" | "ambiguous"
    sha: str | None = None
    kind: str | None = None  # commit, tree, blob, tag
    content: bytes = b""


class CatFile:
    """One `git cat-file --batch` process answering many object queries, started on first use.

    Queries are written from a thread while the answers are read, so any number can be asked at
    once without a pipe deadlock.
    """

    def __init__(self, runner: GitRunner):
        self.runner = runner
        self._proc: subprocess.Popen | None = None
        self._lock = threading.Lock()

    def start(self) -> None:
        """Start the process now (it is otherwise started by the first query)."""
        self._start()

    def _start(self) -> subprocess.Popen:
        if self._proc is None:
            self.runner.calls += 1
            self._proc = subprocess.Popen(self.runner.base_args() + ["cat-file", "--batch"],
                                          stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                          stderr=subprocess.DEVNULL, env=git_env(), close_fds=False)
        return self._proc

    def query(self, names: Iterable[str]) -> list[CatFileEntry]:
        names = [n for n in names]
        if not names:
            return []
        bad = [n for n in names if not n or "\n" in n or n != n.strip()]
        if bad:
            raise ValueError(f"object names must be one word: {bad[0]!r}")
        with self._lock:
            proc = self._start()
            payload = "".join(n + "\n" for n in names).encode("utf-8", "surrogateescape")

            def feed() -> None:
                try:
                    proc.stdin.write(payload)
                    proc.stdin.flush()
                except (BrokenPipeError, OSError):
                    pass

            writer = threading.Thread(target=feed, daemon=True)
            writer.start()
            out = []
            try:
                for name in names:
                    header = proc.stdout.readline()
                    if not header:
                        raise RepositoryError(f"{self.runner.repo}: git cat-file stopped answering")
                    if header.endswith((b" missing\n", b" ambiguous\n")):
                        status = "ambiguous" if header.endswith(b" ambiguous\n") else "missing"
                        out.append(CatFileEntry(name, status))
                        continue
                    parts = header.decode("ascii", "replace").split()
                    sha, kind, size = parts
                    content = proc.stdout.read(int(size) + 1)[:-1]
                    out.append(CatFileEntry(name, "found", sha, kind, content))
            finally:
                writer.join()
            return out

    def close(self) -> None:
        proc, self._proc = self._proc, None
        if proc is not None:
            # With both pipes closed git ends at once (end of input, or a broken pipe if it was
            # still answering), so a blocking wait cannot hang; a wait with a timeout would poll
            # in sleeps of a millisecond.
            for pipe in (proc.stdin, proc.stdout):
                try:
                    pipe.close()
                except OSError:
                    pass
            proc.wait()


class ScratchRepo:
    """A throwaway bare repository, deleted on close.

    With `objects_dir` it sees the user's objects (alternates) and shallow grafts: for queries that
    write nothing but refs (batched ancestry with `for-each-ref --merged`). Without, it sees only
    the objects put into it (`add_blobs`): for what writes objects (applying patches). git
    "freshens" an object it is asked to write that an alternate already holds, by setting the
    time of the user's loose object or pack file: a scratch repository that borrows objects can
    never write one without touching the user's repository.
    """

    def __init__(self, runner: GitRunner, objects_dir: Path | None, shallow_file: Path | None,
                 object_format: str = "sha1"):
        self.dir = Path(tempfile.mkdtemp(prefix="reviewtool-scratch-"))
        self.object_format = object_format
        (self.dir / "refs" / "heads").mkdir(parents=True)
        (self.dir / "objects" / "info").mkdir(parents=True)
        if objects_dir is not None:
            (self.dir / "objects" / "info" / "alternates").write_text(f"{objects_dir.resolve()}\n")
        (self.dir / "HEAD").write_text("ref: refs/heads/scratch\n")
        # A SHA-256 repository's objects are only readable by a repository of the same format.
        core = ("[core]\n\trepositoryformatversion = 0\n\tbare = true\n" if object_format == "sha1" else
                "[core]\n\trepositoryformatversion = 1\n\tbare = true\n"
                f"[extensions]\n\tobjectformat = {object_format}\n")
        (self.dir / "config").write_text(core + "[gc]\n\tauto = 0\n[maintenance]\n\tauto = false\n")
        if shallow_file is not None and shallow_file.is_file():
            shutil.copyfile(shallow_file, self.dir / "shallow")
        self.runner = GitRunner(self.dir, git=runner.git)
        self._parent = runner
        self._refs: dict[str, list[str]] = {}  # namespace -> shas written as refs/<namespace>/<sha>
        self._queries = 0

    def run(self, args: Sequence[str], **kw) -> GitResult:
        self._parent.calls += 1
        return self.runner.run(args, **kw)

    def add_blobs(self, blobs: Iterable[CatFileEntry]) -> None:
        """Write blobs (as the user's `cat-file --batch` gave them) as loose objects of this
        repository, the way git stores them; no git process, nothing read from elsewhere."""
        for entry in blobs:
            if entry.status != "found" or entry.kind != "blob" or entry.sha is None:
                continue
            data = b"blob %d\0" % len(entry.content) + entry.content
            if hashlib.new(self.object_format, data).hexdigest() != entry.sha:
                continue  # not what git named it: leave it out rather than store a lie
            target = self.dir / "objects" / entry.sha[:2] / entry.sha[2:]
            if target.exists():
                continue
            target.parent.mkdir(exist_ok=True)
            tmp = target.with_name(target.name + ".tmp")
            tmp.write_bytes(zlib.compress(data, 1))
            os.replace(tmp, target)

    def set_refs(self, namespace: str, shas: Iterable[str]) -> None:
        """Write refs/<namespace>/<sha> for each sha into one packed-refs file (no git process).
        Other namespaces stay: a query started on them may still be reading."""
        self._refs[namespace] = sorted(set(shas))
        # "sorted" promises git the order of the ref names: it binary-searches them.
        refs = sorted((f"refs/{ns}/{s}", s) for ns, shas_ in self._refs.items() for s in shas_)
        lines = [f"{s} {name}" for name, s in refs]
        tmp = self.dir / "packed-refs.new"
        tmp.write_text("# pack-refs with: sorted \n" + "".join(line + "\n" for line in lines))
        os.replace(tmp, self.dir / "packed-refs")  # a running reader sees the old file or the new one

    def start_merged_into(self, base: str, shas: Sequence[str]) -> "PendingSet":
        """merged_into() started: `.result()` waits for the set."""
        if not shas:
            return PendingSet(None)
        self._queries += 1
        namespace = f"q{self._queries}"
        self.set_refs(namespace, shas)
        self._parent.calls += 1
        started = self.runner.start(["for-each-ref", f"--merged={base}", "--format=%(objectname)",
                                     f"refs/{namespace}/"])
        return PendingSet(started, lambda: self._refs.pop(namespace, None))  # the next write drops them

    def merged_into(self, base: str, shas: Sequence[str]) -> set[str]:
        """The subset of `shas` (full commit ids) that are ancestors of (or equal to) `base`: one walk."""
        return self.start_merged_into(base, shas).result()

    def close(self) -> None:
        shutil.rmtree(self.dir, ignore_errors=True)
