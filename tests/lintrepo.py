"""A small kernel-shaped repository for the lint, recipients and b4 tests, built with real git.

The MAINTAINERS file is get_maintainer-compatible (title lines, `X:<TAB>value` entries), with the
cases that matter: nested F: patterns (most specific first), an X: exclusion, an N: regex, a K:
keyword, a moderated and a subscribers-only list, a reviewer, an orphaned section and THE REST.
The top-level files and directories are the ones get_maintainer.pl checks for a kernel tree.
"""

from __future__ import annotations

from pathlib import Path

from gitrepo import GitRepo

MAINTAINERS = """\
List of maintainers and how to submit kernel changes

Descriptions of section entries and preferred order
	M: *Mail* patches to: FullName <address@domain>

Maintainers List
----------------

NETWORKING DRIVERS
M:	Dave Net <davem@example.org>
M:	Jakub Net <kuba@example.org>
R:	Rita Reviewer <rita@example.org>
L:	netdev@vger.kernel.org
S:	Maintained
F:	drivers/net/
X:	drivers/net/wireless/

NETWORKING [GENERAL]
M:	Dave Net <davem@example.org>
M:	Jakub Net <kuba@example.org>
L:	netdev@vger.kernel.org
S:	Maintained
F:	net/
F:	include/net/

FOO ETHERNET DRIVER
M:	Foo Owner <foo.owner@example.com>
R:	Old Name <old.address@example.com>
L:	foo-dev@lists.example.com (moderated for non-subscribers)
L:	foo-private@lists.example.com (subscribers-only)
S:	Supported
F:	drivers/net/ethernet/foo/
F:	include/linux/foo*.h
K:	\\bfoo_magic\\b

WIRELESS DRIVERS
M:	Wendy Wireless <wendy@example.org>
L:	linux-wireless@vger.kernel.org
S:	Maintained
F:	drivers/net/wireless/

BAR LIBRARY
L:	bar@lists.example.org
S:	Orphan
N:	bar_lib

THE REST
M:	Linus Torvalds <torvalds@linux-foundation.org>
L:	linux-kernel@vger.kernel.org
S:	Buried alive in reporters
F:	*
F:	*/
"""

MAILMAP = """\
# The reviewer moved; get_maintainer and cc-missing both use the new address.
Old Name <new.address@example.com> <old.address@example.com>
"""

KERNEL_TOP = ("COPYING", "CREDITS", "Kbuild", "Makefile", "README")
KERNEL_DIRS = ("Documentation", "arch", "include", "drivers", "fs", "init", "ipc", "kernel", "lib", "scripts")

FOO_C = """\
// SPDX-License-Identifier: GPL-2.0
#include <linux/foo.h>

static int foo_open(struct foo_priv *priv)
{
	int err;

	err = foo_hw_init(priv);
	if (err)
		return err;
	return 0;
}
"""


def kernel_repo(path: Path, object_format: str = "sha1") -> GitRepo:
    """main: the tree (MAINTAINERS, a foo driver, net core); nothing else yet."""
    repo = GitRepo(path, object_format=object_format)
    files = {"MAINTAINERS": MAINTAINERS, ".mailmap": MAILMAP,
             "drivers/net/ethernet/foo/foo_main.c": FOO_C,
             "net/core/dev.c": "int dev;\n", "drivers/net/wireless/w.c": "int w;\n",
             "lib/bar_lib.c": "int bar;\n", "include/linux/foo.h": "struct foo_priv;\n"}
    files.update({name: f"{name}\n" for name in KERNEL_TOP})
    files.update({f"{d}/.keep": "" for d in KERNEL_DIRS})
    repo.commit("Initial tree", files, author=("Tree Builder", "builder@example.org"))
    return repo


def work_branch(repo: GitRepo, *, fixes_target: str | None = None) -> dict[str, str]:
    """A `work` branch tracking main with three commits: a Fixes-tagged driver fix (no SoB on
    purpose in one commit), a net core change and a keyword-only change. Returns {name: sha}."""
    repo.git("checkout", "-q", "-b", "work", "main")
    repo.git("branch", "--set-upstream-to=main")
    me = ("Jane Dev", "jane@example.org")
    fixes = f'\nFixes: {fixes_target[:12]} ("foo: add the driver")' if fixes_target else ""
    shas = {"fix": repo.commit(
        "foo: fix the error path of foo_open\n\nfoo_open() leaks the queue when init fails.\n"
        f"{fixes}\nSigned-off-by: Jane Dev <jane@example.org>\n",
        repo.edit("drivers/net/ethernet/foo/foo_main.c", "return err;", "goto free_queue;"), author=me)}
    shas["core"] = repo.commit("net: core: count drops\n\nCount the drops the core sees.\n",
                               {"net/core/dev.c": "int dev;\nint drops;\n"}, author=me)
    shas["lib"] = repo.commit("lib: bar: document\n\nDocument the library.\n\n"
                              "Signed-off-by: Jane Dev <jane@example.org>\n",
                              {"lib/bar_lib.c": "int bar; /* foo_magic */\n"}, author=me)
    return shas


def add_driver_history(repo: GitRepo) -> str:
    """A commit by another author that the fix blames; on main, before `work` starts."""
    return repo.commit("foo: add the driver\n\nThe foo driver.\n\nSigned-off-by: Fred Original <fred@example.net>\n",
                       {"drivers/net/ethernet/foo/foo_main.c": FOO_C + "/* v1 */\n"},
                       author=("Fred Original", "fred@example.net"))
