"""A long fuzz run: slices of the shared list stretches (1 to 150 mails, with their replies),
damaged byte by byte as tests/test_fuzz_check.py damages mail, through `check`, `triage` (JSON,
Markdown, HTML, into a store, with a window) and `profile learn`, in this process. An exit
other than 0, 1 or 2 (an internal error) is a bug: its input and its error go to OUT.

    python3 benchmarks/fuzz_stretches.py --seconds 1200 --seed 1 --out /tmp/fuzz

The suite's own fuzz tests run a few hundred fixed inputs from fixtures/; this one reads the
whole stretches of ../shared with a seed of your choosing, for as long as you let it. Keep what
it finds as a test (a few lines of mail in the test, or a file in fixtures/regressions/).
"""

from __future__ import annotations

import argparse
import contextlib
import gzip
import io
import os
import random
import re
import sys
import tempfile
import time
import traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
from test_fuzz_check import _mutate  # noqa: E402

LISTS = ROOT.parent / "shared" / "corpus" / "lists"
SEP_RE = re.compile(rb"^From mboxrd@z ", re.M)
SIZES = (1, 5, 40, 150)


def commands(path: Path, tmp: Path) -> list[list[str]]:
    triage = ["triage", str(path), "--no-progress", "--jobs", "1"]
    return [["check", str(path), "--format", "json"], ["check", str(path)],
            [*triage, "--no-store", "-f", "json"], [*triage, "--no-store", "-f", "markdown"],
            [*triage, "--store", str(tmp / "s.sqlite"), "-f", "html", "-o", str(tmp / "out.html")],
            [*triage, "--store", str(tmp / "s.sqlite"), "-f", "json", "--since", "30d"],
            ["profile", "learn", str(path), "-o", str(tmp / "learned.toml")]]


def run(argv: list[str]) -> tuple[object, str]:
    from reviewtool.cli import main

    err = io.StringIO()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
        try:
            code = main(argv)
        except SystemExit as exc:
            code = exc.code
        except BaseException:  # noqa: BLE001 - main should have caught it: that is the bug
            code = "raised"
            err.write(traceback.format_exc())
    return code, err.getvalue()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seconds", type=float, default=600)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", type=Path, required=True, help="Where failing inputs and their errors go.")
    args = ap.parse_args()
    stretches = sorted(LISTS.glob("*.mbox.gz"))
    if not stretches:
        print(f"{LISTS}: no stretches (../shared beside the checkout)")
        return 2
    datas = [gzip.decompress(p.read_bytes()) for p in stretches]
    starts = [[m.start() for m in SEP_RE.finditer(d)] for d in datas]
    rng = random.Random(args.seed)
    args.out.mkdir(parents=True, exist_ok=True)
    tried = bad = 0
    with tempfile.TemporaryDirectory(prefix="fuzz-stretches-") as tmp:
        tmp = Path(tmp)
        os.environ["XDG_CACHE_HOME"] = str(tmp / "cache")
        path = tmp / "in.mbox"
        end = time.monotonic() + args.seconds
        while time.monotonic() < end:
            n = rng.randrange(len(datas))
            data, at = datas[n], starts[n]
            i = rng.randrange(len(at))
            j = i + rng.choice(SIZES)
            chunk = data[at[i]: at[j] if j < len(at) else len(data)]
            ops = [(rng.randrange(8), rng.randrange(1 << 30), rng.randrange(256)) for _ in range(rng.randrange(1, 6))]
            damaged = _mutate(chunk, ops)
            path.write_bytes(damaged)
            argv = rng.choice(commands(path, tmp))
            code, err = run(argv)
            tried += 1
            if code not in (0, 1, 2):
                bad += 1
                stem = args.out / f"seed{args.seed}-{tried}"
                stem.with_suffix(".mbox").write_bytes(damaged)
                stem.with_suffix(".txt").write_text(f"{' '.join(argv)}\nexit {code}\n{err[-4000:]}")
                print(f"{stem}.mbox: exit {code}: {err.strip().splitlines()[-1][:200] if err.strip() else ''}")
    print(f"{tried:,} inputs tried, {bad} internal errors (seed {args.seed}, {args.seconds:.0f} s)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
