#!/usr/bin/env python3
"""Time `reviewtool check` against `b4 am` on the same generated 50-patch thread, in one run.

    python3 benchmarks/bench_check.py [--patches 50] [--repeat 9] [--keep DIR]

The thread is shaped like a real netdev posting fetched from a public-inbox archive (mboxrd,
`[PATCH net-next v2 NN/50]`, a cover letter, per-version notes below `---`, diffs of 1 to 3
files, replies with Reviewed-by/Acked-by and quoted code). Both tools run as the installed
console scripts next to this Python (not through shims), offline, with the same cwd and with
XDG_CACHE_HOME, XDG_DATA_HOME and GIT_CONFIG_GLOBAL pointing into a temporary directory so
nothing is read from or written to the user's home. Runs are interleaved so that machine noise
hits every command alike; the script prints the medians and the ratio to `b4 am`. Both tools
run from bytecode compiled in the warm-up round into a private cache (PYTHONPYCACHEPREFIX).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timedelta, timezone
from email.utils import format_datetime
from pathlib import Path

TARGET_RATIO = 1.2
AUTHOR = "Jane Developer <jane@example.org>"
REVIEWERS = ("Simon Horman <horms@kernel.org>", "Andrew Lunn <andrew@lunn.ch>",
             "Jakub Kicinski <kuba@kernel.org>", "Eric Dumazet <edumazet@google.com>")
SEPARATOR = "From mboxrd@z Thu Jan  1 00:00:00 1970"


def _diff(i: int) -> tuple[str, str]:
    """A diffstat and a diff touching 1 to 3 files with realistic hunks."""
    files = [f"drivers/net/ethernet/foo/foo_{name}.c" for name in ("main", "ethtool", "txrx")][: 1 + i % 3]
    stat, body = [], []
    for n, path in enumerate(files):
        stat.append(f" {path:<44} | 9 ++++++---")
        start = 100 + 37 * i + 11 * n
        body.append(
            f"diff --git a/{path} b/{path}\n"
            f"index {i:07x}..{i + n + 1:07x} 100644\n"
            f"--- a/{path}\n"
            f"+++ b/{path}\n"
            f"@@ -{start},9 +{start},10 @@ static int foo_setup_queue_{i}(struct foo_priv *priv, int q)\n"
            "\tstruct foo_ring *ring = priv->rings[q];\n"
            "\tint err;\n"
            "\n"
            "-\terr = foo_alloc_ring(priv, ring, FOO_RING_SIZE);\n"
            "-\tif (err)\n"
            f"+\terr = foo_alloc_ring(priv, ring, priv->ring_size_{i});\n"
            "+\tif (err) {\n"
            "+\t\tnetdev_err(priv->netdev, \"ring %d: alloc failed\\n\", q);\n"
            "\t\treturn err;\n"
            "+\t}\n"
            "\n"
            "\tnetif_napi_add(priv->netdev, &ring->napi, foo_poll);\n"
            "\treturn 0;\n"
            f"@@ -{start + 40},6 +{start + 41},5 @@ static void foo_teardown_queue_{i}(struct foo_priv *priv, int q)\n"
            "\tstruct foo_ring *ring = priv->rings[q];\n"
            "\n"
            "\tnapi_disable(&ring->napi);\n"
            "-\tsynchronize_net();\n"
            "\tfoo_free_ring(priv, ring);\n"
            "}\n")
    stat.append(f" {len(files)} file{'s' if len(files) > 1 else ''} changed, "
                f"{6 * len(files)} insertions(+), {3 * len(files)} deletions(-)")
    return "\n".join(stat), "".join(body)


def _mail(subject: str, body: str, msgid: str, date: datetime, sender: str = AUTHOR,
          reply_to: tuple[str, ...] = ()) -> str:
    headers = [SEPARATOR, f"From: {sender}", f"Date: {format_datetime(date)}", f"Subject: {subject}",
               f"Message-ID: <{msgid}>", "To: netdev@vger.kernel.org",
               "Cc: davem@davemloft.net, kuba@kernel.org, pabeni@redhat.com, edumazet@google.com"]
    if reply_to:
        headers += [f"In-Reply-To: <{reply_to[-1]}>", "References: " + " ".join(f"<{r}>" for r in reply_to)]
    headers += ["MIME-Version: 1.0", "Content-Type: text/plain; charset=utf-8",
                "Content-Transfer-Encoding: 8bit"]
    # mboxrd: body lines that look like separators get one more '>'
    lines = [(">" + line) if line.lstrip(">").startswith("From ") else line for line in body.split("\n")]
    return "\n".join(headers) + "\n\n" + "\n".join(lines).rstrip("\n") + "\n\n"


def generate_thread(n: int) -> str:
    """A cover letter, n patches and about n/4 replies, as one mboxrd thread."""
    start = datetime(2026, 11, 2, 10, 0, tzinfo=timezone.utc)
    cover_id = "20261102100000.4242-0-jane@example.org"
    shortlog = "\n".join(f"  foo: make queue {i} ring size configurable" for i in range(1, n + 1))
    out = [_mail(f"[PATCH net-next v2 00/{n}] foo: configurable ring sizes",
                 "This series makes every foo queue's ring size configurable and fixes the\n"
                 "teardown order on the way.\n\nChanges in v2:\n- split per queue (Jakub)\n"
                 "- Link to v1: https://lore.kernel.org/r/20261020100000.4242-0-jane@example.org\n\n"
                 f"Jane Developer ({n}):\n{shortlog}\n\n drivers/net/ethernet/foo/foo_main.c | 90 ++++---\n\n"
                 "base-commit: 0123456789abcdef0123456789abcdef01234567\n-- \n2.43.0",
                 cover_id, start)]
    for i in range(1, n + 1):
        stat, diff = _diff(i)
        msgid = f"20261102100000.4242-{i}-jane@example.org"
        fixes = f"Fixes: {i:04x}c0ffee0123 (\"foo: add queue {i}\")\n" if i % 5 == 0 else ""
        body = (f"Queue {i} allocates its ring with the compile-time FOO_RING_SIZE, so the\n"
                "ethtool ring parameters are ignored for it. Use the configured size and\n"
                "report allocation failures per queue.\n\n"
                "From now on synchronize_net() is not needed here: napi_disable() waits.\n\n"
                f"{fixes}Signed-off-by: {AUTHOR}\n---\nv2: split out of the v1 patch 1\n\n{stat}\n\n{diff}-- \n2.43.0")
        out.append(_mail(f"[PATCH net-next v2 {i:02d}/{n}] foo: make queue {i} ring size configurable",
                         body, msgid, start + timedelta(seconds=i), reply_to=(cover_id,)))
        if i % 4 == 0:
            reviewer = REVIEWERS[i % len(REVIEWERS)]
            tag = "Acked-by" if i % 8 == 0 else "Reviewed-by"
            reply = (f"On Mon, Nov 02, 2026 at 10:00:{i:02d}AM +0000, Jane Developer wrote:\n"
                     f"> Queue {i} allocates its ring with the compile-time FOO_RING_SIZE, so the\n"
                     "> ethtool ring parameters are ignored for it.\n>\n"
                     f"> +\terr = foo_alloc_ring(priv, ring, priv->ring_size_{i});\n\n"
                     "Looks right to me.\n\n"
                     f"{tag}: {reviewer}")
            out.append(_mail(f"Re: [PATCH net-next v2 {i:02d}/{n}] foo: make queue {i} ring size configurable",
                             reply, f"reply-{i}@example.net", start + timedelta(hours=2, seconds=i),
                             sender=reviewer, reply_to=(cover_id, msgid)))
    out.append(_mail(f"Re: [PATCH net-next v2 00/{n}] foo: configurable ring sizes",
                     "> This series makes every foo queue's ring size configurable\n\n"
                     "Fifty patches is well over the limit of 15 per series; please split.",
                     "reply-cover@kernel.org", start + timedelta(hours=3),
                     sender="Jakub Kicinski <kuba@kernel.org>", reply_to=(cover_id,)))
    return "".join(out)


def _executable(name: str) -> str:
    """The console script installed next to this Python (pyenv-style shims add their own cost)."""
    local = Path(sys.executable).parent / name
    found = str(local) if local.is_file() else shutil.which(name)
    if not found:
        sys.exit(f"bench_check: `{name}` is not installed")
    return found


def _time(cmd: list[str], env: dict[str, str], cwd: Path) -> tuple[float, float, subprocess.CompletedProcess]:
    """Wall time, and CPU time (user + system, the command and every process it waited for):
    on a shared machine CPU time moves less with other people's load than wall time does."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, env=env, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, proc


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:7.1f} ms"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--patches", type=int, default=50)
    ap.add_argument("--repeat", type=int, default=9, help="timed runs per command (after one warm-up)")
    ap.add_argument("--keep", type=Path, help="also write the generated mbox here")
    ap.add_argument("--check", action="store_true", help=f"exit 1 when the ratio is over {TARGET_RATIO}")
    args = ap.parse_args(argv)

    with tempfile.TemporaryDirectory(prefix="bench-check-") as tmp_name:
        tmp = Path(tmp_name)
        mbox = tmp / f"series-{args.patches}.mbox"
        mbox.write_text(generate_thread(args.patches), encoding="utf-8")
        if args.keep:
            shutil.copyfile(mbox, args.keep)
        env = {**os.environ, "XDG_CACHE_HOME": str(tmp / "cache"), "XDG_DATA_HOME": str(tmp / "data"),
               "XDG_CONFIG_HOME": str(tmp / "config"), "GIT_CONFIG_GLOBAL": os.devnull,
               "GIT_CONFIG_NOSYSTEM": "1", "NO_COLOR": "1",
               # Both tools run from bytecode, as installed packages do: the warm-up round compiles
               # them into a private cache (an editable checkout under PYTHONDONTWRITEBYTECODE would
               # otherwise recompile reviewtool on every run, while b4's .pyc files exist).
               "PYTHONPYCACHEPREFIX": str(tmp / "pycache")}
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        work = tmp / "cwd"  # outside any git repository: neither tool reads a .b4-config
        for d in (work, tmp / "am", tmp / "mbox"):
            d.mkdir()
        commands = {
            "reviewtool check --format json": [_executable("reviewtool"), "check", str(mbox), "--format", "json"],
            "reviewtool check (text)": [_executable("reviewtool"), "check", str(mbox)],
            "b4 --offline-mode am": [_executable("b4"), "--offline-mode", "am", "-m", str(mbox),
                                     "-o", str(tmp / "am")],
            "b4 --offline-mode mbox": [_executable("b4"), "--offline-mode", "mbox", "-m", str(mbox),
                                       "-o", str(tmp / "mbox"), "20261102100000.4242-0-jane@example.org"],
        }
        times: dict[str, list[float]] = {name: [] for name in commands}
        cpu: dict[str, list[float]] = {name: [] for name in commands}
        last: dict[str, subprocess.CompletedProcess] = {}
        for round_ in range(args.repeat + 1):  # round 0 warms the page cache and .pyc files
            for name, cmd in commands.items():
                elapsed, used, last[name] = _time(cmd, env, work)
                ok = last[name].returncode in ((0, 1) if name.startswith("reviewtool") else (0,))
                if not ok:  # a failed run would be timed as a fast one
                    sys.exit(f"bench_check: `{name}` failed with exit {last[name].returncode}: "
                             f"{last[name].stderr.decode(errors='replace')[-400:]}")
                if round_:
                    times[name].append(elapsed)
                    cpu[name].append(used)

        review = last["reviewtool check --format json"]
        if review.returncode not in (0, 1):
            sys.exit(f"bench_check: reviewtool failed ({review.returncode}): {review.stderr.decode()[:300]}")
        data = json.loads(review.stdout)
        am = last["b4 --offline-mode am"]
        if am.returncode != 0 or not list((tmp / "am").glob("*.mbx")):
            sys.exit(f"bench_check: b4 am failed ({am.returncode}): {am.stderr.decode()[-300:]}")

        size = mbox.stat().st_size
        messages = generate_thread(args.patches).count(SEPARATOR)
        print(f"input: {args.patches}-patch thread, {messages} messages, {size / 1024:.0f} KiB (mboxrd)")
        print(f"reviewtool saw {len(data['patches'])} patches, {len(data['findings'])} findings; "
              f"b4 am wrote {len(list((tmp / 'am').glob('*.mbx')))} .mbx file")
        print(f"{args.repeat} interleaved runs per command after one warm-up; python {sys.version.split()[0]}, "
              f"{os.cpu_count()} CPUs\n")
        print(f"{'wall time':34} {'median':>10} {'min':>10} {'max':>10}   {'CPU median':>10}")
        for name, values in times.items():
            print(f"{name:34} {_ms(statistics.median(values)):>10} {_ms(min(values)):>10} "
                  f"{_ms(max(values)):>10}   {_ms(statistics.median(cpu[name])):>10}")
        ours, b4am = "reviewtool check --format json", "b4 --offline-mode am"
        ratio = statistics.median(times[ours]) / statistics.median(times[b4am])
        cpu_ratio = statistics.median(cpu[ours]) / statistics.median(cpu[b4am])
        verdict = "meets" if ratio <= TARGET_RATIO else "MISSES"
        print(f"\nratio reviewtool check --format json / b4 am (median wall time): {ratio:.2f}x "
              f"({verdict} the {TARGET_RATIO}x target); CPU time: {cpu_ratio:.2f}x")
        return 1 if args.check and ratio > TARGET_RATIO else 0


if __name__ == "__main__":
    sys.exit(main())
