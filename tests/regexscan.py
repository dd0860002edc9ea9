"""Every regular expression of the reviewtool package, and adversarial input to time them on.

Patterns are collected from the modules themselves, so a new one is covered without being
registered anywhere:
- compiled patterns reachable from a module's globals (directly, in containers, or in objects
  of the package's own classes: phrase tables and the like), and from what its cached loaders of
  shipped data give (the reply forms of reviewtool/data, the profiles);
- every `re.compile/search/match/fullmatch/findall/finditer/sub/subn/split` call in the source
  (found with `ast`), with its flags; a pattern made at call time (an f-string, `.format()`, a
  concatenation with a local) is built with a placeholder word where the run-time value goes.

`worst_cases(pattern)` gives the inputs the issue names (long runs of whitespace, newlines and
repeated words, nested brackets, 1 MB lines) and inputs made of the pattern's own literals and
character classes, where backtracking regexes are slowest. `scan(found)` times every match over
each of them in a child process, stopped when it overruns.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import os
import pkgutil
import re
import select
import signal
import time
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Iterator

import reviewtool

_CALLS = {"compile": 1, "search": 2, "match": 2, "fullmatch": 2, "findall": 2, "finditer": 2,
          "split": 3, "sub": 4, "subn": 4}  # position of the flags argument
PLACEHOLDER = "net"  # what a run-time value in a pattern built at call time stands for


_ANCHORED = frozenset({"match", "fullmatch"})  # tried at one position, not at every one


@dataclass(frozen=True)
class Found:
    module: str
    name: str  # the global's name, or `line N` for a pattern written in a call
    pattern: str | bytes
    flags: int
    uses: frozenset[str] = frozenset()  # methods the package calls on it; empty: unknown (all)

    @property
    def anchored(self) -> bool:
        """Only ever tried at one position (`.match`, `.fullmatch`): timed that way. Anything
        else, or a use this scan cannot see, is timed as a search at every position."""
        return bool(self.uses) and self.uses <= _ANCHORED

    @property
    def where(self) -> str:
        return f"{self.module}:{self.name}"


def modules() -> list[str]:
    names = [reviewtool.__name__]
    names += [m.name for m in pkgutil.walk_packages(reviewtool.__path__, reviewtool.__name__ + ".")]
    return sorted(n for n in names if not n.endswith(".__main__"))  # __main__ runs the CLI


def _walk(value, name: str, seen: set[int], depth: int = 0) -> Iterator[tuple[str, re.Pattern]]:
    if isinstance(value, re.Pattern):
        yield name, value
        return
    if depth > 4 or id(value) in seen or isinstance(value, (str, bytes, int, float, type(None))):
        return
    seen.add(id(value))
    if isinstance(value, dict):
        for k, v in list(value.items()):
            yield from _walk(k, f"{name}[key]", seen, depth + 1)
            yield from _walk(v, f"{name}[{k!r}]", seen, depth + 1)
    elif isinstance(value, (list, tuple, set, frozenset)):
        for i, v in enumerate(value):
            yield from _walk(v, f"{name}[{i}]", seen, depth + 1)
    elif type(value).__module__.startswith(reviewtool.__name__ + "."):
        attrs = dict(getattr(value, "__dict__", {}))
        for slot in getattr(type(value), "__slots__", ()):
            if hasattr(value, slot):
                attrs[slot] = getattr(value, slot)
        for k, v in attrs.items():
            yield from _walk(v, f"{name}.{k}", seen, depth + 1)


def _loaded(value):
    """What a cached loader of the package's own data gives (a function under functools.lru_cache
    that takes no argument: the shipped reply forms, profiles, release table), else None."""
    if not hasattr(value, "cache_info") or not callable(value):
        return None
    try:
        params = inspect.signature(value).parameters.values()
    except (TypeError, ValueError):
        return None
    if any(p.default is p.empty and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in params):
        return None
    try:
        return value()
    except Exception:  # noqa: BLE001 - a loader that needs more than the package: nothing to see
        return None


def _globals(mod) -> Iterator[Found]:
    seen: set[int] = set()
    for attr, value in sorted(vars(mod).items()):
        if getattr(value, "__module__", None) == mod.__name__ and (data := _loaded(value)) is not None:
            for name, rx in _walk(data, f"{attr}()", seen):
                yield Found(mod.__name__, name, rx.pattern, rx.flags)
            continue
        if isinstance(value, type) and value.__module__ == mod.__name__:
            for k, v in sorted(vars(value).items()):
                for name, rx in _walk(v, f"{attr}.{k}", seen):
                    yield Found(mod.__name__, name, rx.pattern, rx.flags)
            continue
        if getattr(value, "__module__", mod.__name__) != mod.__name__ and not isinstance(value, re.Pattern):
            continue  # imported from elsewhere: collected in its own module
        for name, rx in _walk(value, attr, seen):
            yield Found(mod.__name__, name, rx.pattern, rx.flags)


class _Placeholders(ast.NodeTransformer):
    """Run-time parts of a pattern expression replaced by PLACEHOLDER, so that it can be built."""

    def __init__(self, namespace: dict):
        self.namespace = namespace

    def visit_FormattedValue(self, node):
        return ast.Constant(PLACEHOLDER)


def _evaluate(node: ast.expr, namespace: dict):
    """The value of a pattern or flags expression, with the module's globals; names it cannot
    resolve (locals) and calls on them become the placeholder."""
    tree = ast.Expression(_Placeholders(namespace).visit(node))
    ast.fix_missing_locations(tree)

    class Lenient(dict):
        def __missing__(self, key):
            return _Any()

    try:
        value = eval(compile(tree, "<pattern>", "eval"), Lenient(namespace))  # noqa: S307 - our own source
    except Exception:
        return None
    if isinstance(value, _Any):
        return None
    return value


class _Any(str):
    """A stand-in for a local: formats, escapes and concatenates as the placeholder word."""

    def __new__(cls):
        return super().__new__(cls, PLACEHOLDER)

    def __getattr__(self, name):
        return lambda *a, **k: _Any()

    def __call__(self, *a, **k):
        return _Any()


def _calls(mod) -> Iterator[Found]:
    path = Path(mod.__file__)
    tree = ast.parse(path.read_text(encoding="utf-8"))
    namespace = dict(vars(mod))
    module_level = {id(n.value) for n in tree.body if isinstance(n, (ast.Assign, ast.AnnAssign))}
    for node in ast.walk(tree):
        if id(node) in module_level and isinstance(node, ast.Call):
            continue  # `NAME = re.compile(...)`: _globals has it, with how it is used
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and isinstance(node.func.value, ast.Name) and node.func.value.id == "re"
                and node.func.attr in _CALLS and node.args):
            continue
        if isinstance(node.args[0], ast.Name) and node.args[0].id not in namespace:
            continue  # compiled from data (a phrase table, MAINTAINERS, git config): see _globals
        pattern = _evaluate(node.args[0], namespace)
        if isinstance(pattern, re.Pattern):
            continue  # a compiled pattern passed on: collected where it is made
        flags_node = next((k.value for k in node.keywords if k.arg == "flags"), None)
        if flags_node is None and len(node.args) > _CALLS[node.func.attr]:
            flags_node = node.args[_CALLS[node.func.attr]]
        flags = 0 if flags_node is None else _evaluate(flags_node, {"re": re, **namespace})
        if flags is None or isinstance(flags, _Any):
            flags = 0  # flags from data (a reply form's ignore_case): the data's patterns come via _loaded
        if not isinstance(pattern, (str, bytes)) or not isinstance(flags, int):
            raise AssertionError(f"{mod.__name__} line {node.lineno}: a regex this scan cannot build; "
                                 "make its pattern a module-level constant")
        method = node.func.attr if node.func.attr != "compile" else None
        yield Found(mod.__name__, f"line {node.lineno}", pattern, int(flags), frozenset({method}) if method else frozenset())


_METHODS = frozenset({"match", "fullmatch", "search", "finditer", "findall", "sub", "subn", "split", "scanner"})


def _uses(trees: list[ast.AST]) -> tuple[dict[str, set[str]], dict[str, set[str]]]:
    """({global name: methods called on it}, {attribute: regex methods called on it}) over the
    whole package. A global used any other way than `NAME.method(...)` (passed on, put in a
    container, assigned) gets "?". An attribute (`form.line`) is a pattern in some objects and
    text in others: only the regex methods called on it count."""
    uses: dict[str, set[str]] = {}
    attrs: dict[str, set[str]] = {}
    for tree in trees:
        parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and node.attr in _METHODS and isinstance(node.value, ast.Attribute) \
                    and isinstance(parents.get(node), ast.Call) and parents[node].func is node:
                attrs.setdefault(node.value.attr, set()).add(node.attr)
            name = node.id if isinstance(node, ast.Name) else node.attr if isinstance(node, ast.Attribute) else None
            if name is None or not name.isupper() and not name.startswith("_"):
                continue
            parent = parents.get(node)
            targets = parent.targets if isinstance(parent, ast.Assign) else [parent.target] if isinstance(
                parent, ast.AnnAssign) else []
            if node in targets:
                continue  # where it is defined
            if isinstance(parent, ast.Attribute) and parent.value is node:
                call = parents.get(parent)
                used = parent.attr if (parent.attr in _METHODS and isinstance(call, ast.Call)
                                       and call.func is parent) else None
                if used is None and parent.attr in ("pattern", "flags", "groups", "groupindex"):
                    continue  # reading what it is, not running it
                uses.setdefault(name, set()).add(used or "?")
            elif not isinstance(node, ast.Attribute) or isinstance(node.ctx, ast.Load):
                uses.setdefault(name, set()).add("?")
    return uses, attrs


def collect() -> list[Found]:
    """Every pattern of the package, once per (pattern, flags), named where it is first found,
    with the methods the package runs it with (a pattern found twice: all of them)."""
    out: dict[tuple, Found] = {}
    trees, found = [], []
    for name in modules():
        mod = importlib.import_module(name)
        trees.append(ast.parse(Path(mod.__file__).read_text(encoding="utf-8")))
        found += [*_globals(mod), *_calls(mod)]
    uses, attrs = _uses(trees)
    for f in found:
        if not f.uses:
            last = f.name.rsplit(".", 1)[-1]
            if f.name.isidentifier():
                known = uses.get(f.name, {"?"})
            elif "." in f.name and last.isidentifier():
                known = attrs.get(last, {"?"})  # a pattern kept in an object's attribute (a reply form's line)
            else:
                known = {"?"}
            f = Found(f.module, f.name, f.pattern, f.flags, frozenset(known))
        key = (f.pattern, f.flags & ~re.UNICODE)
        if key in out:
            known = out[key]
            both = known.uses | f.uses if known.uses and f.uses else frozenset()
            out[key] = Found(known.module, known.name, known.pattern, known.flags, both)
        else:
            out[key] = f
    return list(out.values())


# -- adversarial input ------------------------------------------------------------------------

RUN = 64 * 1024  # characters in a run: a quadratic pattern takes seconds here, a linear one ms
LINE = 1 << 20  # the 1 MB lines


def _literals(pattern: str, flags: int) -> tuple[list[str], list[str]]:
    """(words of two or more literal characters, single characters) the pattern names, in order."""
    try:
        from re import _constants as c, _parser as p
        parsed = p.parse(pattern, flags)
    except Exception:
        return [], []
    words: list[str] = []
    chars: list[str] = []

    def walk(items) -> None:
        run = ""
        for op, av in items:
            if op is c.LITERAL:
                run += chr(av)
                chars.append(chr(av))
                continue
            if len(run) > 1:
                words.append(run)
            run = ""
            if op is c.IN:
                for iop, iav in av:
                    if iop is c.LITERAL:
                        chars.append(chr(iav))
                    elif iop is c.RANGE:
                        chars.append(chr(iav[0]))
            elif op in (c.MAX_REPEAT, c.MIN_REPEAT, getattr(c, "POSSESSIVE_REPEAT", None)):
                walk(av[2])
            elif op is c.SUBPATTERN:
                walk(av[-1])
            elif op is c.BRANCH:
                for branch in av[1]:
                    walk(branch)
            elif op in (c.ASSERT, c.ASSERT_NOT):
                walk(av[1])
            elif op is getattr(c, "ATOMIC_GROUP", None):
                walk(av)
        if len(run) > 1:
            words.append(run)

    walk(parsed.data if hasattr(parsed, "data") else parsed)
    return list(dict.fromkeys(words))[:6], list(dict.fromkeys(chars))[:12]


@lru_cache(maxsize=2)
def _generic(as_bytes: bool) -> tuple[tuple[str, str | bytes], ...]:
    """The inputs every pattern is timed on, made once (a forked child shares them)."""
    n = RUN
    cases = [
        ("spaces", " " * n), ("spaces and tabs", " \t" * (n // 2)), ("newlines", "\n" * n),
        ("whitespace-only lines", "  \n" * (n // 3)), ("CRLF lines", " \r\n" * (n // 3)),
        ("repeated words", "word " * (n // 5)), ("repeated words on lines", "word word\n" * (n // 10)),
        ("nested brackets", "[" * (n // 2) + "]" * (n // 2)), ("nested parentheses", "(" * (n // 2) + ")" * (n // 2)),
        ("nested angle brackets", "<" * (n // 2) + ">" * (n // 2)), ("open brackets", "[(<{" * (n // 4)),
        ("1 MB line of letters", "a" * LINE), ("1 MB line of digits", "1" * LINE),  # hex runs both
        ("1 MB line of words", "word " * (LINE // 5)),
        ("1 MB line of dots and digits", "1." * (LINE // 2)),
    ]
    return tuple((name, text.encode() if as_bytes else text) for name, text in cases)


def _derived(pattern: str | bytes, flags: int) -> Iterator[tuple[str, str]]:
    """Inputs made of the pattern's own words and punctuation."""
    text = pattern.decode("latin-1") if isinstance(pattern, bytes) else pattern
    n = RUN
    words, chars = _literals(text, flags)
    for w in words:
        yield f"{w!r} repeated", (w + " ") * (n // (len(w) + 1))
        yield f"{w!r} on every line", (w + "\n") * (n // (len(w) + 1))
        yield f"{w!r} then spaces", w + " " * n
        yield f"{w!r} then blank lines", w + " \n" * (n // 2)
    for ch in chars:
        if ch.isalnum() or ch.isspace():
            continue
        yield f"{ch!r} repeated", ch * n
        yield f"{ch!r} and letters", ("a" + ch) * (n // 2)
        yield f"{ch!r} and spaces", (" " + ch) * (n // 2)
        yield f"{ch!r} and digits", ("1" + ch) * (n // 2)


def worst_cases(pattern: str | bytes, flags: int = 0) -> Iterator[tuple[str, str | bytes]]:
    """(name, input) of the inputs one pattern is timed on, str or bytes as the pattern is."""
    yield from _generic(isinstance(pattern, bytes))
    for name, text in _derived(pattern, flags):
        yield name, as_input(pattern, text)


BUDGET_S = 1.0  # CPU seconds per input: a linear pattern needs milliseconds to a few tenths
WALL_S = 5.0  # a child that has not answered by then is stopped (five times the budget: a loaded machine)


@dataclass(frozen=True)
class Slow:
    found: Found
    case: str  # which input
    seconds: float | None  # CPU time, None when it was stopped unfinished

    def __str__(self) -> str:
        took = f"{self.seconds:.2f} s" if self.seconds is not None else f"over {WALL_S:g} s, stopped"
        return f"{self.found.where} {_short(self.found.pattern)} on {self.case}: {took}"


def _short(pattern) -> str:
    text = repr(pattern)
    return text if len(text) <= 90 else text[:87] + "..."


def _child(found: Found, write: int, budget: float) -> None:
    """In a forked child: time each input, report each as it finishes, stop at the first over budget."""
    rx = re.compile(found.pattern, found.flags)
    for i, (_, data) in enumerate(worst_cases(found.pattern, found.flags)):
        start = time.process_time()
        if found.anchored:
            rx.match(data)
            rx.fullmatch(data)
        else:
            for _ in rx.finditer(data):
                pass
        took = time.process_time() - start
        os.write(write, f"{i} {took}\n".encode())
        if took > budget:
            break


class _Run:
    """One pattern being timed in its child process."""

    def __init__(self, found: Found, budget: float):
        self.found, self.budget = found, budget
        self.cases = [name for name, _ in _generic(False)] + [name for name, _ in _derived(found.pattern, found.flags)]
        self.read, write = os.pipe()
        self.pid = os.fork()
        if self.pid == 0:
            os.close(self.read)
            try:
                _child(found, write, budget)
            finally:
                os._exit(0)
        os.close(write)
        self.done, self.buf, self.slow, self.finished = 0, b"", None, False
        self.deadline = time.monotonic() + WALL_S

    def feed(self) -> None:
        chunk = os.read(self.read, 4096)
        if not chunk:
            self.finished = True
            return
        self.buf += chunk
        self.deadline = time.monotonic() + WALL_S
        while b"\n" in self.buf:
            line, self.buf = self.buf.split(b"\n", 1)
            i, took = line.split()
            self.done = int(i) + 1
            if float(took) > self.budget:
                self.slow, self.finished = Slow(self.found, self.cases[int(i)], float(took)), True
        if self.done >= len(self.cases):
            self.finished = True

    def expire(self) -> None:
        self.slow, self.finished = Slow(self.found, self.cases[self.done], None), True

    def close(self) -> None:
        os.close(self.read)
        try:
            os.kill(self.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        os.waitpid(self.pid, 0)


def scan(founds: list[Found], budget: float = BUDGET_S, jobs: int | None = None) -> list[Slow]:
    """For each pattern, the first input on which finding every match (finditer: what search,
    findall and sub do) takes more than `budget` CPU seconds, in two timings: a pattern over it
    is timed once more, alone, and counts only if it is over again (a linear pattern on a 1 MB
    line took 1.02 s while the suite's other worker ran, on a machine three times slower than
    most; a quadratic one takes many times the budget every time)."""
    first = _scan(founds, budget, jobs)
    return _scan([s.found for s in first], budget, 1) if first else []


def _scan(founds: list[Found], budget: float, jobs: int | None) -> list[Slow]:
    """One timing of each pattern. Each runs in a forked child, `jobs` at a time: the regex engine
    looks at signals too rarely for an alarm to stop it in time; a kill does."""
    _generic(False), _generic(True)  # made once, shared with every child
    jobs = jobs or max(1, min(2, os.cpu_count() or 1))
    todo, running, slow = list(founds), [], []
    try:
        while todo or running:
            while todo and len(running) < jobs:
                running.append(_Run(todo.pop(0), budget))
            timeout = max(0.0, min(r.deadline for r in running) - time.monotonic())
            ready, _, _ = select.select([r.read for r in running], [], [], timeout)
            now = time.monotonic()
            for r in running:
                if r.read in ready:
                    r.feed()
                elif now >= r.deadline:
                    r.expire()
            for r in [r for r in running if r.finished]:
                running.remove(r)
                r.close()
                if r.slow is not None:
                    slow.append(r.slow)
    finally:
        for r in running:
            r.close()
    return slow


def as_input(pattern: str | bytes, text: str) -> str | bytes:
    return text.encode("utf-8") if isinstance(pattern, bytes) else text


def case_count(found: Found) -> int:
    """How many inputs one pattern is timed on."""
    return len(_generic(False)) + sum(1 for _ in _derived(found.pattern, found.flags))
