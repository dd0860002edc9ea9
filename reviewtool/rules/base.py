"""The series' base: is base-commit well formed and known, where is it, does the series apply,
is any patch already in the target tree."""

from __future__ import annotations

import re
from typing import Any

from .registry import Hit, Severity, rule

_FULL_HEX_RE = re.compile(r"^[0-9a-f]{40}([0-9a-f]{24})?$")


def short(sha: str) -> str:
    return sha[:12]


def _base(series, ctx):
    """The Resolution of a well-formed base-commit, or None."""
    if not series.base_commit:
        return None
    return ctx.history.resolve([series.base_commit])[series.base_commit]


@rule("base-commit-malformed", family="base", severity="warning",
      summary="The base-commit line is not a full commit id (40 hex digits, 64 for SHA-256)")
def base_commit_malformed(series, ctx):
    """Why: CI systems and maintainers apply the series on the commit named by `base-commit:`;
    a branch name, a short or a mistyped id cannot be looked up reliably.
    Source: kernel submitting-patches ("base-commit", git format-patch --base); kernel-rules BASE-PRESENT.
    Bad:
      base-commit: net-next
    Good:
      base-commit: 3d2bb9955328cd725eb2705a58ad146750cc201b
    """
    raw = series.base_commit_raw
    if raw is None or _FULL_HEX_RE.match(raw):
        return
    why = ("not hexadecimal" if not re.fullmatch(r"[0-9a-fA-F]+", raw)
           else "not lower case" if raw != raw.lower() and len(raw) in (40, 64)
           else f"{len(raw)} hex digits, not 40 (64 in a SHA-256 repository)")
    yield Hit(f"base-commit {raw!r} is {why}", patch=0 if series.cover else (series.first.counter if series.first else None),
              evidence=(f"base-commit: {raw}",),
              advice="Generate the series with `git format-patch --base=auto` (or b4 send), which writes the full "
                     "id of the commit the series was made on.")


@rule("base-commit-unknown", family="base", severity="warning", needs=("repo",),
      summary="The base-commit is not in the repository")
def base_commit_unknown(series, ctx):
    """Why: A series can only be applied and checked on the commit it was made on; a base-commit
    the maintainer's repository lacks usually means a private branch or a tree not fetched yet.
    Source: kernel submitting-patches ("base tree information"); kernel-rules BASE-PUBLIC.
    Bad:
      base-commit: 0123456789abcdef0123456789abcdef01234567   (no such commit anywhere public)
    Good:
      base-commit: <the head of net-next the series was rebased on>
    """
    res = _base(series, ctx)
    if res is None or res.found or ctx.history.is_shallow:
        return
    trees = [f"{t.name} ({t.ref})" for t in ctx.history.tree_refs.values() if t.sha]
    yield Hit(f"base-commit {short(series.base_commit)} is not in the repository",
              patch=0 if series.cover else None,
              evidence=(f"base-commit: {series.base_commit_raw}",
                        f"searched: {ctx.history.path}" + (f" (trees {', '.join(trees)})" if trees else "")),
              advice="If the base is public, fetch its tree (`git fetch <tree>`) and review again; if it is a "
                     "private commit, the series needs a rebase on the public head of the target tree.")


@rule("base-commit-trees", family="base", severity="info", needs=("repo",),
      summary="Which configured trees contain the base-commit and how far behind their heads it is")
def base_commit_trees(series, ctx):
    """Why: A series based on an old commit, or on a tree other than the one it targets, tends to
    conflict; knowing how far behind the base is tells the maintainer whether to ask for a rebase.
    Source: kernel-rules BASE-PUBLIC, BASE-APPLIES; Sashiko's base-tree issues (#48, #102, #178).
    Bad:
      base-commit on net-next, 900 commits behind, series sent to [PATCH net]
    Good:
      base-commit: the current head of the target tree
    """
    hist = ctx.history
    res = _base(series, ctx)
    trees = {n: t for n, t in hist.tree_refs.items() if t.sha}
    if res is None or not res.found or not trees:
        return
    inside = hist.trees_containing([res.sha])[res.sha]
    parts = []
    for name in inside:
        behind = hist.count_between(res.sha, trees[name].sha)
        parts.append(f"{name} ({'at its head' if behind == 0 else f'{behind} commits behind its head'})")
    target = ctx.declared_ref(series)
    where = f"in {', '.join(parts)}" if parts else f"in none of the configured trees ({', '.join(sorted(trees))})"
    msg = f'base-commit {short(res.sha)} ("{res.commit.subject}") is {where}'
    if target and target.sha and target.name not in inside:
        advice = f"The series targets {target.name} but its base is not in it: rebase it on {target.name} ({target.ref})."
    elif not inside:
        advice = "The base is on no public tree that is configured: check it is public, or rebase on the target tree."
    else:
        advice = "Nothing to do unless the series does not apply; then rebase on the tree's head."
    yield Hit(msg, patch=0 if series.cover else None, evidence=(f"base-commit: {series.base_commit_raw}",),
              advice=advice)


def _apply_targets(series, ctx) -> list[tuple[str, str, bool]]:
    """(label, sha, authoritative): base-commit, then the target tree's head; HEAD when neither."""
    hist = ctx.history
    out = []
    res = _base(series, ctx)
    if res is not None and res.found:
        out.append((f"base-commit {short(res.sha)}", res.sha, True))
    tree = ctx.declared_ref(series)
    if tree and tree.sha and all(sha != tree.sha for _, sha, _ in out):
        out.append((f"{tree.name} ({tree.ref} at {short(tree.sha)})", tree.sha, True))
    if not out and hist.head:
        out.append((f"HEAD ({short(hist.head)}; no base-commit and no tree ref)", hist.head, False))
    return out


def _apply_evidence(label: str, r) -> str:
    where = f" on {r.failed_file}" if r.failed_file else ""
    return f"{label}: patch {r.failed_patch} fails{where}: {r.error}"


def _diffs(series) -> list[tuple[int, str]]:
    """Diffs in order, up to the first missing patch (later ones may depend on it)."""
    out = []
    for p in series.patches:
        if series.missing and p.counter > min(series.missing):
            break
        if p.diff.text.strip():
            out.append((p.counter, p.diff.text))
    return out


@rule("does-not-apply", family="base", severity="error", needs=("repo",),
      summary="The series does not apply on its base-commit nor on the target tree's head")
def does_not_apply(series, ctx):
    """Why: A maintainer applies the series with `git am -3`; if it does not apply on its base nor
    on the tree's head, nothing else about it can be merged or tested, and CI reports
    "Failed to apply". Applied in a scratch index; the repository is not touched.
    Source: kernel-rules BASE-APPLIES; NIPA apply ("Patch does not apply to <tree>").
    A patch that fails because the tree already has it is already-applied's, not this rule's.
    Bad:
      patch 2/3 fails on net/core/dev.c at base-commit and at net/main
    Good:
      all patches apply on base-commit (or on the head of the target tree)
    """
    hist = ctx.history
    diffs = _diffs(series)
    if not diffs:
        return
    tried = []
    for label, sha, authoritative in _apply_targets(series, ctx):
        result = hist.apply_series(sha, diffs)
        if result.applied:
            if tried:  # an earlier base failed: say which one worked
                first = tried[0][1]
                yield Hit(f"does not apply on {tried[0][0]} but applies on {label}", patch=first.failed_patch,
                          severity=Severity.WARNING,
                          evidence=tuple(_apply_evidence(lbl, r)
                                         for lbl, r in tried),
                          advice=f"Rebase the series on {label} and resend it, with base-commit updated "
                                 "(`git format-patch --base=auto`).")
            return
        tried.append((label, result))
    if not tried:
        return
    first_label, first = tried[0]
    if first.failed_patch in {p.counter for p, _, _, _ in applied_patches(series, ctx)}:
        return  # it fails because the tree has it already: already-applied says so, with the commit
    authoritative = any(a for _, _, a in _apply_targets(series, ctx))
    yield Hit(f"patch {first.failed_patch} does not apply on {first_label}"
              + (f" ({first.failed_file})" if first.failed_file else ""),
              patch=first.failed_patch, severity=None if authoritative else Severity.WARNING,
              evidence=tuple(_apply_evidence(lbl, r)
                             for lbl, r in tried),
              advice="Rebase the series on the current head of the target tree, resolve the conflict in "
                     f"{first.failed_file or 'the failing file'}, and resend it as the next revision.")


@rule("already-applied", family="base", severity="warning", needs=("repo",),
      summary="A patch is already in the target tree (same patch-id, or same subject and author)")
def already_applied(series, ctx):
    """Why: A patch that was already merged (or picked up from an earlier posting) must not be
    applied twice; maintainers answer "already applied" and the author should drop it.
    Source: NIPA apply ("Patch already applied to <tree>"); git patch-id --stable.
    Bad:
      [PATCH net v2 1/2] foo: fix x     (v1 of 1/2 was applied to net last week)
    Good:
      [PATCH net v2 1/1] foo: fix y     (the applied patch dropped)
    """
    for p, hit, how, label in applied_patches(series, ctx):
        yield Hit(f"already in {label} as {short(hit.sha)} ({how})", patch=p.counter,
                  evidence=(p.subject.raw, f'commit {short(hit.sha)} ("{hit.subject}") by {hit.author}'),
                  advice=f"Drop this patch from the series: it is already in {label}. If it was changed on purpose, "
                         "make that a follow-up patch on top.")


def applied_patches(series, ctx) -> list[tuple[Any, Any, str, str]]:
    """(patch, the commit that holds it, how it was matched, the tree's label) for each patch the
    target tree already has: the same patch-id, else the same subject and author."""
    hist = ctx.history
    tree = ctx.declared_ref(series)
    out: list[tuple[Any, Any, str, str]] = []
    # lint reviews commits that HEAD already holds: there "applied" means in the upstream it names.
    upstream = ctx.setting("upstream_head")
    head = tree.sha if tree and tree.sha else (upstream or hist.head)
    if head is None:
        return out
    label = f"{tree.name} ({tree.ref})" if tree and tree.sha else (f"the upstream ({short(upstream)})" if upstream
                                                                   else "HEAD")
    patches = [p for p in series.patches if p.diff.text.strip()]
    paths = sorted({f.path for p in patches for f in p.diff.files if not f.unsafe_path})
    if not patches or not paths:
        return out
    res = _base(series, ctx)
    if res is not None and res.found and res.sha == head:
        return out  # the series sits on the tree's head (lint, usually): nothing was applied since
    span = f"{res.sha}..{head}" if res is not None and res.found else head
    # Both read the same range: the commit log runs on the other core while patch-ids are made.
    pending = hist.start_commits(span, paths=paths, limit=2000, no_merges=True)
    ids = hist.patch_ids(span, paths)
    recent = pending.result()
    by_subject = {(c.subject.strip().lower(), c.author.email.lower()): c for c in recent}
    commits_by_sha = {c.sha: c for c in recent}
    own = hist.patch_ids_of([p.diff.text for p in patches])
    for p, pid in zip(patches, own):
        sha = ids.get(pid) if pid else None
        hit = (commits_by_sha.get(sha) or hist.commit(sha)) if sha else None
        how = "the same patch-id"
        if hit is None:
            hit = by_subject.get((p.subject.summary.strip().lower(), p.author.email.lower()))
            how = "the same subject and author"
        if hit is not None:
            out.append((p, hit, how, label))
    return out
