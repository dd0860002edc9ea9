"""Fixes targets checked against git history: exists, unambiguous, subject, ancestry, release.

All rules read one batch of answers from ctx.history (resolved once for the whole series); in
`fixes-audit` the patches are commits (Patch.commit) and ancestry is checked against the commit
that carries the tag.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..model.fixes import FixesRef, fixes_of
from .registry import Hit, rule

_ELLIPSIS_RE = re.compile(r"(?<!\s)\s*(?:\.\.\.|\u2026)\s*")  # from a blank run's start only: linear


@dataclass(frozen=True)
class Claim:
    patch: object  # model.series.Patch
    fix: FixesRef
    res: object  # context.history.values.Resolution


def claims(series, ctx) -> list[Claim]:
    """Every Fixes tag with a hex id, with what the repository says about it (one batch)."""
    memo = ctx.history.memo
    key = ("fixes-claims", id(series))
    if key in memo and memo[key][0] is series:
        return memo[key][1]
    pairs = [(p, f) for p in series.patches for f in fixes_of(p) if f.sha]
    resolved = ctx.history.resolve([f.sha for _, f in pairs])
    out = [Claim(p, f, resolved[f.sha]) for p, f in pairs]
    memo[key] = (series, out)
    return out


def short(sha: str) -> str:
    return sha[:12]


def fixes_line(sha: str, subject: str) -> str:
    """The exact line to paste."""
    return f'Fixes: {short(sha)} ("{subject}")'


def subject_matches(quoted: str, real: str) -> bool:
    """Equal after whitespace folding, allowing a `...` (or `…`) cut at the end, start or middle."""
    q, r = " ".join(quoted.split()), " ".join(real.split())
    if q == r:
        return True
    parts = _ELLIPSIS_RE.split(q)
    if len(parts) != 2 or not (parts[0] or parts[1]):
        return False
    head, tail = parts
    return r.startswith(head) and r.endswith(tail) and len(head) + len(tail) <= len(r)


def _where(hist) -> str:
    trees = [f"{t.name} ({t.ref})" for t in hist.tree_refs.values() if t.sha]
    return f"{hist.path}" + (f", trees {', '.join(trees)}" if trees else "")


def _commit_evidence(c) -> str:
    return f'commit {short(c.sha)} ("{c.subject}") by {c.author}'


@rule("fixes-target-unknown", family="fixes", severity="error", needs=("repo",),
      summary="A Fixes: tag names a commit that is not in the repository")
def fixes_target_unknown(series, ctx):
    """Why: A Fixes tag that points nowhere tells the stable team and backporters nothing; the
    usual causes are a sha from a private or rebased branch, or a typo.
    Source: kernel submitting-patches (Fixes:); NIPA verify_fixes; sfr's check_fixes
    (kernel-rules FIXGIT-EXISTS).
    Bad:
      Fixes: 0123456789ab ("net: foo: add bar")     (no such commit in the tree)
    Good:
      Fixes: 5c4e3f2a1b0d ("net: foo: add bar")     (`git log -1 5c4e3f2a1b0d` shows it)
    """
    hist = ctx.history
    for c in claims(series, ctx):
        if c.res.status == "unknown" and not hist.is_shallow:
            yield Hit(f"Fixes target {c.fix.sha} is not a commit in the repository",
                      patch=c.patch.counter, commit=c.patch.commit,
                      evidence=(c.fix.line, f"searched: {_where(hist)}"),
                      advice=("Look the commit up in the tree where the bug is (`git log --oneline --grep` on its "
                              "subject) and use the sha it has there; a sha from a private or rebased branch "
                              "means nothing to others."))
        elif c.res.status == "not-a-commit":
            yield Hit(f"Fixes target {c.fix.sha} names a {c.res.kind}, not a commit",
                      patch=c.patch.counter, commit=c.patch.commit, evidence=(c.fix.line,),
                      advice="Use the id of the commit that introduced the bug: "
                             "`git log -1 --abbrev=12 --format='Fixes: %h (\"%s\")' <commit>`.")


@rule("fixes-target-ambiguous", family="fixes", severity="warning", needs=("repo",),
      summary="A Fixes: sha is so short that several commits match it")
def fixes_target_ambiguous(series, ctx):
    """Why: A short sha that matches several commits is ambiguous today and gets worse as the tree
    grows; the kernel asks for at least 12 hex digits.
    Source: kernel submitting-patches (core.abbrev=12); checkpatch GIT_COMMIT_ID (FIXGIT-AMBIG).
    Bad:
      Fixes: 01ac ("foo: bar")
    Good:
      Fixes: 01ac2673f394 ("foo: bar")
    """
    for c in claims(series, ctx):
        if c.res.status != "ambiguous":
            continue
        cands = c.res.candidates
        match = [x for x in cands if any(subject_matches(s, x.subject) for s in c.fix.subjects)]
        advice = (f"Write the tag with 12 digits: `{fixes_line(match[0].sha, match[0].subject)}`."
                  if len(match) == 1 else
                  "Write the sha with at least 12 digits: "
                  "`git log -1 --abbrev=12 --format='Fixes: %h (\"%s\")' <full sha>`.")
        yield Hit(f"Fixes target {c.fix.sha} is ambiguous: {len(cands) or 'several'} commits start with it",
                  patch=c.patch.counter, commit=c.patch.commit,
                  evidence=(c.fix.line,) + tuple(_commit_evidence(x) for x in cands[:5]), advice=advice)


@rule("fixes-subject-mismatch", family="fixes", severity="warning", needs=("repo",),
      summary="The subject quoted in a Fixes: tag is not the subject of that commit")
def fixes_subject_mismatch(series, ctx):
    """Why: The quoted subject is how readers (and scripts, when the sha is wrong) recognise the
    fixed commit; a mismatch means either the sha or the subject is wrong. A `...` cut at the end,
    start or middle of a long subject is accepted, as NIPA does.
    Source: kernel submitting-patches; NIPA verify_fixes; sfr's check_fixes (FIXGIT-SUBJECT).
    Bad:
      Fixes: 5c4e3f2a1b0d ("net: foo: add bars")
    Good:
      Fixes: 5c4e3f2a1b0d ("net: foo: add bar")
    """
    for c in claims(series, ctx):
        if c.res.status != "found" or not c.fix.subject:
            continue
        real = c.res.commit.subject
        if any(subject_matches(s, real) for s in c.fix.subjects):
            continue  # a tag wrapped inside a word: joined or glued (fixes-format gives the line)
        value = c.fix.trailer.value
        if (value.count('"') % 2 or value.count("(") != value.count(")")) and real.startswith(c.fix.subject):
            continue  # a tag wrapped inside its subject: fixes-format reports it, with the line to write
        yield Hit(f"the subject quoted for {short(c.res.sha)} is not that commit's subject",
                  patch=c.patch.counter, commit=c.patch.commit,
                  evidence=(c.fix.line, f'commit {short(c.res.sha)} is "{real}"'),
                  advice=f"Replace the tag with `{fixes_line(c.res.sha, real)}` (or, if the subject is right, "
                         "fix the sha).")


def _bases(series, ctx) -> list[tuple[str, str]]:
    """(label, full sha) a fix must be reachable from: base-commit, then the target tree's head."""
    hist = ctx.history
    out = []
    if series.base_commit:
        res = hist.resolve([series.base_commit])[series.base_commit]
        if res.found:
            out.append((f"base-commit {short(res.sha)}", res.sha))
    tree = ctx.declared_ref(series)
    if tree and tree.sha and out and out[0][1] == tree.sha:
        out[0] = (f"base-commit {short(tree.sha)} (the head of {tree.name}, {tree.ref})", tree.sha)
    elif tree and tree.sha:
        out.append((f"{tree.name} ({tree.ref} at {short(tree.sha)})", tree.sha))
    if not out and hist.head:
        out.append((f"HEAD ({short(hist.head)})", hist.head))
    return out


def _prefetch_ancestry(series, ctx) -> None:
    """Start the ancestry walks of fixes-target-not-ancestor while the other rules run."""
    found = [c for c in claims(series, ctx) if c.res.status == "found" and not c.patch.commit]
    if found:
        for _, sha in _bases(series, ctx):
            ctx.history.prefetch_contains(sha, [c.res.sha for c in found])
        ctx.history.prefetch_trees_containing([c.res.sha for c in found])


def _prefetch_releases(series, ctx) -> None:
    targets = [c.res.sha for c in claims(series, ctx) if c.res.status == "found"]
    if targets:
        ctx.history.prefetch_first_tags(targets)
        ctx.history.prefetch_trees_containing(targets)


@rule("fixes-target-not-ancestor", family="fixes", severity="error", needs=("repo",), prefetch=_prefetch_ancestry,
      summary="A Fixes: target is not in the history the fix applies to")
def fixes_target_not_ancestor(series, ctx):
    """Why: The commit a fix repairs must be in the tree the fix goes to; if it is not an ancestor
    of the series' base (or of the target tree's head), the sha is wrong, the fix is aimed at the
    wrong tree, or the target sits on a branch that was never merged.
    Source: kernel-rules FIXGIT-ANCESTOR; review-prompts FIXES-003 (`git merge-base --is-ancestor`).
    Bad:
      [PATCH net] ... Fixes: 1a2b3c4d5e6f ("foo: new feature")   (only in net-next)
    Good:
      [PATCH net-next] ... Fixes: 1a2b3c4d5e6f ("foo: new feature")
    """
    hist = ctx.history
    found = [c for c in claims(series, ctx) if c.res.status == "found"]
    if not found:
        return
    in_audit = [c for c in found if c.patch.commit]
    pairs = hist.reachable_pairs([(c.res.sha, c.patch.commit) for c in in_audit]) if in_audit else {}
    bases = _bases(series, ctx)
    inside = {label: hist.contains(sha, [c.res.sha for c in found]) for label, sha in bases}
    elsewhere = hist.trees_containing([c.res.sha for c in found])
    for c in found:
        if c.patch.commit:
            if pairs.get((c.res.sha, c.patch.commit), True) or hist.is_shallow:
                continue
            tried = f"not an ancestor of the commit carrying the tag ({short(c.patch.commit)})"
        else:
            if not bases or any(inside[label][c.res.sha] for label, _ in bases) or hist.is_shallow:
                continue
            tried = "not reachable from " + " nor ".join(label for label, _ in bases)
        trees = elsewhere.get(c.res.sha, ())
        if trees:
            advice = (f"The target is only in {', '.join(trees)}: if the bug exists only there, send the fix to "
                      f"{trees[0]}; otherwise the sha is wrong.")
        else:
            advice = ("The target is on no configured tree: it may be on an unmerged or rebased branch. Use the sha "
                      "the commit has in the tree this fix goes to.")
        yield Hit(f"Fixes target {short(c.res.sha)} is {tried}", patch=c.patch.counter, commit=c.patch.commit,
                  evidence=(c.fix.line, _commit_evidence(c.res.commit)), advice=advice)


@rule("fixes-introduced-in", family="fixes", severity="info", needs=("repo",), prefetch=_prefetch_releases,
      summary="The first release that carries the bug a Fixes: tag names")
def fixes_introduced_in(series, ctx):
    """Why: Knowing which releases carry the bug decides the tree (a bug only in the development
    tree is fixed there) and the stable backports (every release from the first one on).
    Source: kernel-rules FIXGIT-RELEASE (`git describe --contains`); stable-kernel-rules.
    Bad:
      (no note: reviewers run git describe --contains by hand for every Fixes tag)
    Good:
      i fixes-introduced-in  the bug came with 5c4e3f2a1b0d ("net: foo: add bar"), first released in v6.1-rc1
    """
    hist = ctx.history
    found = [c for c in claims(series, ctx) if c.res.status == "found"]
    tags = hist.first_tags([c.res.sha for c in found])
    trees = hist.trees_containing([c.res.sha for c in found])
    for c in found:
        tag = tags.get(c.res.sha)
        where = trees.get(c.res.sha, ())
        intro = f'the bug came with {short(c.res.sha)} ("{c.res.commit.subject}")'
        in_trees = f"; it is in {', '.join(where)}" if where else ""
        if tag:
            final = re.sub(r"-rc\d+$", "", tag)
            released = final == tag or hist.resolve_ref(f"refs/tags/{final}") is not None
            msg = f"{intro}, first released in {tag}{in_trees}"
            advice = (f"Releases from {final} on carry the bug; if their users are hit, keep or add "
                      "`Cc: stable@vger.kernel.org` so the stable trees take the fix." if released else
                      f"The bug is only in {tag} release candidates, not in a final release: no stable "
                      "backport is needed.")
        else:
            msg = f"{intro}; no release tag contains it yet{in_trees}"
            advice = ("The bug is not in any release yet: the fix belongs to the tree that carries the target"
                      + (f" ({', '.join(where)})." if where else "."))
        yield Hit(msg, patch=c.patch.counter, commit=c.patch.commit, evidence=(c.fix.line,), advice=advice)

