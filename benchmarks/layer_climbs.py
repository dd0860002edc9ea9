"""Count the places where mail climbs the pipeline's stages instead of flowing down them.

Data flows one way (docs/development.md, "The pipeline and the folder map"): mail -> sources ->
model -> context -> rules -> render, with the commands on top. A "climb" is a module of one stage
importing or calling a module of a higher one (sources/ calling model/subject.py to read a
subject, then model/ calling back down into sources/files.py for a header). Two counts:

- static: every `import` of the package (lazy ones inside functions too) that goes up a stage;
- traced: along two real paths, each run cold in its own process (imports and caches as a
  command meets them), `review.load_series_from_path` on a corpus thread and triage's indexing
  and grouping (`sources.index.index_inputs`, `triage.group.group_archive`) of the corpus's
  netfilter-devel archive, every call from a function of one stage into a function of a higher
  one (the nearest caller inside the package counts: the email package calling the mail policy
  is the policy's caller's call), as distinct caller -> callee pairs and as calls. A lambda or
  generator that a higher stage hands down (a key function, the items to read) is data passed
  down, not a climb: those are counted apart, as callbacks. The calls between sources/ and
  model/, either way, are counted too (the back and forth of reading one mail: a header asked
  of sources/files.py from model/, a subject of model/subject.py from sources/).

    python3 benchmarks/layer_climbs.py            # both counts, each climb listed
    python3 benchmarks/layer_climbs.py --quiet    # the totals only

tests/test_layering.py holds the static count at zero.
"""

from __future__ import annotations

import argparse
import ast
import sys
import tempfile
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "reviewtool"
sys.path.insert(0, str(ROOT))

# The stage of each top-level part of the package; a module may use its own stage and lower ones.
STAGES = {
    "": 0, "__init__": 0, "errors": 0, "limits": 0, "bounded": 0, "foreign_regex": 0, "regexlit": 0, "cachedir": 0, "textdist": 0, "collector": 0, "heap": 0,
    "data": 0,
    "profiles": 0, "options": 0,
    "mail": 1,
    "sources": 2,
    "model": 3,
    "conversation": 4,
    "context": 5,
    "rules": 6,
    "settled_verdict": 7, "verdict": 7, "review": 7, "suggest": 7, "checkpatch": 7,
    "render": 8,
    "triage": 9, "learn": 9,
    "commands": 10, "cli": 10, "cliparams": 10, "clihelp": 10, "__main__": 10,
}
NAMES = {1: "mail", 2: "sources", 3: "model", 4: "conversation", 5: "context", 6: "rules", 7: "review", 8: "render",
         9: "triage/learn", 10: "commands"}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def stage_of(module: str) -> int:
    """The stage of a module name (`reviewtool.sources.files`); a part not in STAGES is an error,
    so a new top-level module must be placed."""
    parts = module.split(".")
    top = parts[1] if len(parts) > 1 else ""
    if top not in STAGES:
        raise KeyError(f"{module}: its stage is not known (add {top!r} to STAGES in benchmarks/layer_climbs.py)")
    return STAGES[top]


def imports(path: Path) -> list[tuple[str, int]]:
    """(imported module, line) for every import of the package in one file, lazy ones included."""
    module = module_name(path)
    package = module if path.name == "__init__.py" else module.rsplit(".", 1)[0]
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if target == "reviewtool" or target.startswith("reviewtool."):
                # `from .. import errors` names a module; `from ..limits import limits` a name in one
                subs = [f"{target}.{a.name}" for a in node.names
                        if (PACKAGE.parent / (target + "." + a.name).replace(".", "/")).with_suffix(".py").exists()
                        or (PACKAGE.parent / (target + "." + a.name).replace(".", "/")).is_dir()]
                out += [(s, node.lineno) for s in subs] or [(target, node.lineno)]
        elif isinstance(node, ast.Import):
            out += [(a.name, node.lineno) for a in node.names if a.name.split(".")[0] == "reviewtool"]
    return out


def static_climbs() -> list[str]:
    """Every import that goes from a stage up to a higher one, as `file:line module -> module`."""
    out = []
    for path in sorted(PACKAGE.rglob("*.py")):
        here = module_name(path)
        for target, line in imports(path):
            if stage_of(target) > stage_of(here):
                out.append(f"{path.relative_to(ROOT)}:{line} {here} -> {target}")
    return out


def import_circles() -> list[list[str]]:
    """Each set of modules that import one another round a circle (every import counts, lazy and
    type-only ones too: a circle is a knot in the design whether or not Python trips on it), as
    sorted module names; [] when the imports form no circle."""
    modules = {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}

    def known(target: str) -> str | None:  # `from .x import name` names x, or a name inside x
        while target and target not in modules:
            target = target.rpartition(".")[0]
        return target or None

    edges = {m: sorted({k for t, _ in imports(p) if (k := known(t)) and k != m}) for m, p in modules.items()}
    # Tarjan's strongly connected components, iteratively (the package is deeper than a recursion limit may allow)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    circles = []
    for root in edges:
        if root in index:
            continue
        work = [(root, 0)]
        while work:
            node, i = work.pop()
            if i == 0:
                index[node] = low[node] = len(index)
                stack.append(node)
                on_stack.add(node)
            if i < len(edges[node]):
                work.append((node, i + 1))
                nxt = edges[node][i]
                if nxt not in index:
                    work.append((nxt, 0))
                elif nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
                continue
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                part = []
                while True:
                    top = stack.pop()
                    on_stack.discard(top)
                    part.append(top)
                    if top == node:
                        break
                if len(part) > 1:
                    circles.append(sorted(part))
    return sorted(circles)


def _stage_of_file(filename: str) -> tuple[int, str] | None:
    try:
        rel = Path(filename).resolve().relative_to(PACKAGE.parent)
    except ValueError:
        return None
    if rel.parts[0] != "reviewtool" or rel.suffix != ".py":
        return None
    module = module_name(PACKAGE.parent / rel)
    return stage_of(module), module


_GENERATOR = 0x20 | 0x200  # CO_GENERATOR | CO_ASYNC_GENERATOR


def traced_climbs(work) -> tuple[Counter, Counter, Counter]:
    """({(caller, callee): calls} for the calls `work()` makes from a stage up to a higher one,
    the same for the callbacks among them (lambdas and generators handed down), and for the
    calls between sources/ and model/ either way)."""
    seen: Counter = Counter()
    handed: Counter = Counter()
    crossed: Counter = Counter()
    where: dict[str, tuple[int, str] | None] = {}

    def place(code):
        f = code.co_filename
        if f not in where:
            where[f] = _stage_of_file(f)
        return where[f]

    def hook(frame, event, arg):
        if event != "call":
            return
        callee = place(frame.f_code)
        if callee is None:
            return
        up = frame.f_back
        while up is not None and place(up.f_code) is None:
            up = up.f_back  # through the stdlib (the email package calling the mail policy)
        if up is None:
            return
        caller = place(up.f_code)
        code = frame.f_code
        if {callee[0], caller[0]} == {STAGES["sources"], STAGES["model"]}:
            crossed[(f"{caller[1]}.{up.f_code.co_name}", f"{callee[1]}.{code.co_name}")] += 1
        if callee[0] > caller[0]:
            into = handed if code.co_name == "<lambda>" or code.co_flags & _GENERATOR else seen
            into[(f"{caller[1]}.{up.f_code.co_name}", f"{callee[1]}.{code.co_name}")] += 1

    sys.setprofile(hook)
    try:
        work()
    finally:
        sys.setprofile(None)
    return seen, handed, crossed


def _check_path() -> None:
    from reviewtool.review import ReviewOptions, load_series_from_path

    load_series_from_path(ROOT / "fixtures" / "corpus" / "mbox" / "netdev" / "iproute2-v2-0-3-dcb-fixes.mbox",
                          ReviewOptions())


def _triage_path() -> None:
    from reviewtool.sources.archives import index_inputs
    from reviewtool.triage.group import group_archive

    with tempfile.TemporaryDirectory() as scratch:
        group_archive(index_inputs([ROOT / "fixtures" / "corpus" / "mbox" / "netfilter-devel"], Path(scratch)))


PATHS = {"load_series_from_path": _check_path, "triage indexing and grouping": _triage_path}


def _traced(name: str) -> tuple[Counter, Counter, Counter]:
    """traced_climbs of one path, in a process of its own (cold, as a command runs it)."""
    import json
    import subprocess

    code = (f"import json, sys; sys.path.insert(0, {str(ROOT / 'benchmarks')!r}); import layer_climbs as l; "
            f"got = l.traced_climbs(l.PATHS[{name!r}]); "
            "print(json.dumps([[[list(k), v] for k, v in c.items()] for c in got]))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT).stdout
    got = json.loads(out.strip().splitlines()[-1])
    return tuple(Counter({tuple(k): v for k, v in rows}) for rows in got)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quiet", action="store_true", help="the totals only")
    args = ap.parse_args()
    found = static_climbs()
    print(f"static: {len(found)} imports go up a stage")
    for line in [] if args.quiet else found:
        print("  " + line)
    circles = import_circles()
    print(f"static: {len(circles)} circles of imports")
    for part in [] if args.quiet else circles:
        print("  " + " -> ".join(part))
    for name in PATHS:
        seen, handed, crossed = _traced(name)
        print(f"traced, {name}: {len(seen)} caller -> callee pairs go up a stage, {sum(seen.values())} calls; "
              f"callbacks handed down: {len(handed)} pairs, {sum(handed.values())} calls; "
              f"between sources/ and model/: {len(crossed)} pairs, {sum(crossed.values())} calls")
        for title, rows in (("up a stage", seen), ("between sources/ and model/", crossed)):
            for (a, b), n in [] if args.quiet else sorted(rows.items(), key=lambda kv: (-kv[1], kv[0])):
                print(f"  {title:28s} {n:6d}  {a} -> {b}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
