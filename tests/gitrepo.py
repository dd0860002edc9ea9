"""Real git repositories for tests, built with the git binary (no mocks).

`GitRepo` wraps one repository with deterministic identities and dates; `kernel_like()` builds
the shape the history checks care about: mainline release tags, a fixes tree (net) and a
development tree (net-next) that diverged and merged, an unmerged side branch, and files whose
log shows consistent subject prefixes. `snapshot()` hashes everything a command must not change.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

BASE_TIME = 1_700_000_000  # 2023-11-14, a fixed clock: every commit one minute after the previous


class GitRepo:
    def __init__(self, path: Path, *, bare: bool = False, init: bool = True, object_format: str = "sha1"):
        self.path = Path(path)
        self.bare = bare
        self.tick = 0
        if init:
            self.path.mkdir(parents=True, exist_ok=True)
            self.git("init", "-q", "-b", "main", f"--object-format={object_format}", *(["--bare"] if bare else []))
            self.git("config", "user.name", "Repo Builder")
            self.git("config", "user.email", "builder@example.org")
            self.git("config", "commit.gpgsign", "false")

    def git(self, *args: str, input: str | None = None, env: dict[str, str] | None = None, check: bool = True,
            raw: bool = False) -> str:
        full_env = {**os.environ, **(env or {})}
        proc = subprocess.run(["git", "-C", str(self.path), *args], input=input, capture_output=True, text=True,
                              env=full_env)
        if check and proc.returncode != 0:
            raise RuntimeError(f"git {' '.join(args)} failed: {proc.stderr.strip()}")
        return proc.stdout if raw else proc.stdout.strip()

    def _dates(self) -> dict[str, str]:
        self.tick += 1
        stamp = f"@{BASE_TIME + 60 * self.tick} +0000"
        return {"GIT_AUTHOR_DATE": stamp, "GIT_COMMITTER_DATE": stamp}

    def commit(self, message: str, files: dict[str, str] | None = None, *,
               author: tuple[str, str] = ("Ann Author", "ann@example.org")) -> str:
        """Write `files` (path -> full content) and commit them; returns the full sha."""
        for rel, content in (files or {}).items():
            p = self.path / rel
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_text(content)
            self.git("add", rel)
        env = {**self._dates(), "GIT_AUTHOR_NAME": author[0], "GIT_AUTHOR_EMAIL": author[1]}
        self.git("commit", "-q", "--allow-empty", "-F", "-", input=message, env=env)
        return self.rev("HEAD")

    def edit(self, rel: str, old: str, new: str) -> dict[str, str]:
        """The file `rel` with `old` replaced by `new` (for commit(files=...))."""
        text = (self.path / rel).read_text()
        assert old in text, f"{old!r} not in {rel}"
        return {rel: text.replace(old, new, 1)}

    def rev(self, name: str) -> str:
        return self.git("rev-parse", "--verify", f"{name}^{{commit}}")

    def tag(self, name: str, ref: str = "HEAD", annotated: bool = False) -> None:
        if annotated:
            self.git("tag", "-a", "-m", name, name, ref, env=self._dates())
        else:
            self.git("tag", name, ref)

    def branch(self, name: str, ref: str = "HEAD") -> None:
        self.git("branch", "-f", name, ref)

    def checkout(self, name: str) -> None:
        self.git("checkout", "-q", name)

    def merge(self, ref: str, message: str) -> str:
        self.git("merge", "-q", "--no-ff", "-m", message, ref, env=self._dates())
        return self.rev("HEAD")

    def update_ref(self, ref: str, sha: str) -> None:
        self.git("update-ref", ref, sha)

    def show_diff(self, sha: str) -> str:
        """The diff of one commit, as git format-patch writes it below the diffstat."""
        return self.git("show", "--format=", "--no-color", "--patch", sha, raw=True).lstrip("\n")

    def patch_on(self, base: str, message: str, files_from: dict[str, tuple[str, str]]) -> tuple[str, str]:
        """(sha, diff) of a commit made on `base` (detached, no branch left behind) editing files:
        {path: (old text, new text)}. HEAD is restored afterwards."""
        head = self.git("symbolic-ref", "-q", "HEAD", check=False) or self.rev("HEAD")
        self.git("checkout", "-q", "--detach", base)
        try:
            files = {}
            for rel, (old, new) in files_from.items():
                files.update(self.edit(rel, old, new))
            sha = self.commit(message, files)
            return sha, self.show_diff(sha)
        finally:
            self.git("checkout", "-q", head.removeprefix("refs/heads/"))

    def ambiguous_prefix(self, length: int = 4, limit: int = 5000) -> tuple[str, list[str]]:
        """Make commits until two commits share their first `length` hex digits; (prefix, shas)."""
        seen: dict[str, str] = {}
        for line in self.git("rev-list", "--all").splitlines():
            seen.setdefault(line[:length], line)
        for i in range(limit):
            sha = self.commit(f"filler: step {i}\n")
            prefix = sha[:length]
            if prefix in seen and seen[prefix] != sha:
                return prefix, sorted([seen[prefix], sha])
            seen[prefix] = sha
        raise AssertionError("no ambiguous prefix found")


def snapshot(path: Path) -> str:
    """A hash of everything a read-only command must leave alone: HEAD, every ref, the index,
    the config, every other file of the git directory and the work tree, and the name, size,
    mode and modification time of every file and directory, objects included (git "freshens"
    an object it is asked to write again by touching it: backup and build tools see that)."""
    path = Path(path)
    git_dir = path / ".git" if (path / ".git").exists() else path
    h = hashlib.sha256()
    for root, dirs, files in os.walk(path):
        dirs.sort()
        rel_root = Path(root).relative_to(path)
        st = os.lstat(root)
        h.update(f"{rel_root}/\0{st.st_mode}\0{st.st_mtime_ns}\0".encode())
        in_objects = Path(root) == git_dir / "objects" or git_dir / "objects" in Path(root).parents
        for name in sorted(files):
            p = Path(root) / name
            st = os.lstat(p)
            h.update(f"{rel_root / name}\0{st.st_size}\0{st.st_mode}\0{st.st_mtime_ns}\0".encode())
            if not in_objects:
                h.update(p.read_bytes() if not p.is_symlink() else os.readlink(p).encode())
    refs = subprocess.run(["git", "-C", str(path), "for-each-ref", "--format=%(refname) %(objectname)"],
                          capture_output=True, text=True).stdout
    head = subprocess.run(["git", "-C", str(path), "rev-parse", "HEAD"], capture_output=True, text=True).stdout
    h.update(refs.encode() + head.encode())
    return h.hexdigest()


DEV_C = """\
// SPDX-License-Identifier: GPL-2.0
#include <linux/netdevice.h>

static int foo(struct net_device *dev)
{
	int err;

	err = bar(dev);
	if (err)
		return err;
	return 0;
}
"""

FOO_C = """\
// SPDX-License-Identifier: GPL-2.0
/* foo: an example network driver */

static int foo_open(struct net_device *dev)
{
	return 0;
}

static int foo_close(struct net_device *dev)
{
	return 0;
}
"""


@dataclass
class KernelLike:
    """A small kernel-shaped repository and the commits tests refer to."""

    repo: GitRepo
    c: dict[str, str] = field(default_factory=dict)  # name -> full sha

    @property
    def path(self) -> Path:
        return self.repo.path


def kernel_like(path: Path) -> KernelLike:
    """main (mainline) with tags v6.0, v6.1-rc1, v6.1; refs/remotes/net/main (fixes tree, = main
    plus a fix) and refs/remotes/net-next/main (development: a feature only there, then net merged
    in); refs/heads/side (never merged); net/core/dev.c and drivers/net/foo.c with
    `net: core:` and `foo:` subject prefixes in their logs."""
    r = GitRepo(path)
    k = KernelLike(r)
    k.c["init"] = r.commit("Initial import\n", {"net/core/dev.c": DEV_C, "drivers/net/foo/foo.c": FOO_C,
                                                "README": "kernel\n"})
    r.tag("v6.0", annotated=True)
    k.c["dev_helper"] = r.commit("net: core: add a bar helper\n\nAdd bar().\n",
                                 r.edit("net/core/dev.c", "#include <linux/netdevice.h>\n",
                                        "#include <linux/netdevice.h>\n#include <net/bar.h>\n"))
    k.c["foo_open"] = r.commit("foo: check the device in open\n",
                               r.edit("drivers/net/foo/foo.c", "static int foo_open(struct net_device *dev)\n{\n",
                                      "static int foo_open(struct net_device *dev)\n{\n\tif (!dev)\n\t\treturn -ENODEV;\n"),
                               author=("Bob Blamed", "bob@example.org"))
    k.c["foo_close"] = r.commit("foo: drop the carrier on close\n",
                                r.edit("drivers/net/foo/foo.c", "static int foo_close(struct net_device *dev)\n{\n",
                                       "static int foo_close(struct net_device *dev)\n{\n\tnetif_carrier_off(dev);\n"))
    r.tag("v6.1-rc1", annotated=True)
    k.c["dev_flags"] = r.commit("net: core: pass flags to bar\n",
                                r.edit("net/core/dev.c", "\terr = bar(dev);\n", "\terr = bar(dev, 0);\n"))
    r.tag("v6.1", annotated=True)
    k.c["doc"] = r.commit("docs: mention foo\n", {"README": "kernel\nfoo driver\n"})
    k.c["mainline"] = k.c["doc"]
    # net: the fixes tree, mainline plus one fix.
    r.branch("net-work", "main")
    r.checkout("net-work")
    k.c["net_fix"] = r.commit("foo: fix the close path\n\nFixes: %s (\"foo: drop the carrier on close\")\n"
                              % k.c["foo_close"][:12],
                              r.edit("drivers/net/foo/foo.c", "\tnetif_carrier_off(dev);\n",
                                     "\tnetif_carrier_off(dev);\n\tnetif_stop_queue(dev);\n"))
    r.update_ref("refs/remotes/net/main", k.c["net_fix"])
    # net-next: diverged at v6.1 with a feature, then net merged in.
    r.branch("next-work", "v6.1")
    r.checkout("next-work")
    k.c["next_feature"] = r.commit("foo: add statistics\n",
                                   r.edit("drivers/net/foo/foo.c", "/* foo: an example network driver */\n",
                                          "/* foo: an example network driver */\nstatic int foo_stats;\n"),
                                   author=("Nora Next", "nora@example.org"))
    k.c["next_merge"] = r.merge(k.c["net_fix"], "Merge branch 'net' into net-next\n")
    k.c["next_more"] = r.commit("net: core: document foo()\n",
                                r.edit("net/core/dev.c", "static int foo(", "/* foo - do the thing */\nstatic int foo("))
    r.update_ref("refs/remotes/net-next/main", k.c["next_more"])
    # An unmerged side branch.
    r.branch("side", "v6.1-rc1")
    r.checkout("side")
    k.c["side"] = r.commit("foo: experimental rework\n", {"drivers/net/foo/rework.c": "/* wip */\n"})
    r.checkout("main")
    r.git("branch", "-D", "net-work", "next-work")
    return k
