"""File names in diffs that must never be trusted as paths."""

from __future__ import annotations

from .registry import Hit, rule


@rule("unsafe-file-name", family="diff", severity="error",
      summary="A diff names a file with '..', an absolute path, or control characters")
def unsafe_file_name(series, ctx):
    """Why: git apply refuses such paths, and a tool that writes files from a diff could be made
    to write outside the tree; terminal escapes in a file name can rewrite what a maintainer sees.
    reviewtool never uses diff paths as filesystem paths and shows them escaped.
    Source: git-apply(1) (refuses paths outside the tree); reviewtool's own safety policy.
    Bad:
      diff --git a/../../etc/passwd b/../../etc/passwd
    Good:
      diff --git a/net/core/dev.c b/net/core/dev.c
    """
    for p in series.patches:
        for f in p.diff.files:
            if f.unsafe_path:
                shown = (f.old_path or f.path).encode("unicode_escape").decode("ascii")
                yield Hit(f"{f.unsafe_path}: {shown}", patch=p.counter, evidence=(f"diff path {shown!r}",),
                          advice="The patch cannot be applied as it is: make the diff again with "
                                 "`git format-patch` from the top of the tree.")
