"""Acceptance of the maintainers' reply states on whole stretches of a real list.

For each stretch (../shared/corpus/lists/*.mbox.gz with its *.states.tsv: what the wireless
maintainers' patchwork script said of each series), run `reviewtool triage STRETCH --no-store
-f json` and check that every series the TSV lists gets that state (the status it shows: a NAK
is changes-requested), and for `applied` that tree
(the TSV's tree kind, wireless or wireless-next). A series is found where the report shows it:
a triaged entry (its cover letter or patches), a superseded posting, an earlier posting named in
a triaged entry's reasons ("earlier-state"), or a reply whose patch is not in the archive. Then
every mail of the stretch is read with the reply forms (reviewtool/mail/replies.py) and the
forms it holds are counted: the ones the TSV lists and the others (b4 ty, plain Applied, the
kernel.org bot, NAKs...).

    python3 benchmarks/bench_reply_states.py                    # both stretches
    python3 benchmarks/bench_reply_states.py --reviewtool /work/venv-x/bin/reviewtool -v
    python3 benchmarks/bench_reply_states.py --check            # exit 1 unless every series agrees

Prints per stretch: series listed, agreeing, and each disagreement (-v); the reply forms found,
by form and state, with how many count only from someone who applies for the tree.
"""

from __future__ import annotations

import argparse
import collections
import csv
import gzip
import json
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LISTS = ROOT.parent / "shared" / "corpus" / "lists"


def _status(st: dict) -> str:
    """The status a settled state shows (a NAK is changes-requested: reviewtool/settled_verdict.py)."""
    from reviewtool.settled_verdict import STATE_STATUS

    return STATE_STATUS.get(st["state"], st["state"])


def expected(tsv: Path) -> tuple[dict[str, tuple[str, str]], dict[str, list[str]]]:
    """({series: (state, tree)}, {series: the message-ids of its mails})."""
    want: dict[str, tuple[str, str]] = {}
    members: dict[str, list[str]] = collections.defaultdict(list)
    with open(tsv, encoding="utf-8") as fh:
        for row in csv.DictReader(fh, delimiter="\t"):
            want[row["series"]] = (row["state"], row["tree"])
            members[row["series"]].append(row["msgid"])
    return want, members


def where_shown(report: dict) -> dict[str, list[tuple[str, dict | None]]]:
    """{message-id: [(where, state)]} for every place the report shows a posting."""
    out: dict[str, list[tuple[str, dict | None]]] = collections.defaultdict(list)
    for s in report["series"]:
        ids = [s["msgid"], s.get("cover_msgid")] + [p["msgid"] for p in s.get("patches", [])]
        for m in dict.fromkeys(i for i in ids if i):
            out[m].append((s["status"], s.get("state")))
        for r in s.get("reasons", []):
            if r.get("code") == "earlier-state":
                out[r["msgid"]].append(("earlier", r["state"]))
    for o in report["orphans"]:
        for m in o.get("answers", []):
            out[m].append(("orphan", o.get("state")))
    return out


def agreement(report: dict, tsv: Path) -> tuple[int, list[str]]:
    """(series that agree, a line per series that does not)."""
    want, members = expected(tsv)
    shown = where_shown(report)
    ok, bad = 0, []
    for series, (state, tree) in want.items():
        places = [p for m in [series, *members[series]] for p in shown.get(m, ())]
        stated = [st for _, st in places if st]
        if not places:
            bad.append(f"{series}: {state} {tree}: not in the report")
            continue
        good = [st for st in stated if _status(st) == state and (state != "applied" or (st.get("tree") or "") == tree)]
        if good and all(_status(st) == state for st in stated):
            ok += 1
            continue
        got = "; ".join(f"{w}: {st['state']} {st.get('tree') or st.get('tree_words') or ''}" if st else f"{w}: none"
                        for w, st in places)
        bad.append(f"{series}: expected {state} {tree}; shown as {got}")
    return ok, bad


def by_state(report: dict, tsv: Path) -> dict[str, tuple[int, int]]:
    """{state: (series shown so, series listed)}, as the conversation issue's targets count them:
    a changes-requested series also counts where the report shows it superseded and nothing else
    (a newer revision replaced it), and an applied one needs its tree."""
    want, members = expected(tsv)
    shown = where_shown(report)
    out: dict[str, list[int]] = collections.defaultdict(lambda: [0, 0])
    for series, (state, tree) in want.items():
        places = [p for m in [series, *members[series]] for p in shown.get(m, ())]
        stated = [st for _, st in places if st]
        out[state][1] += 1
        if stated:
            good = all(_status(st) == state for st in stated) and (
                state != "applied" or any((st.get("tree") or "") == tree for st in stated))
        else:
            good = state == "changes-requested" and bool(places) and all(w == "superseded" for w, _ in places)
        out[state][0] += good
    return {k: (v[0], v[1]) for k, v in sorted(out.items())}


def triage(reviewtool: str, stretch: Path) -> tuple[dict, float]:
    start = time.perf_counter()
    res = subprocess.run([reviewtool, "triage", str(stretch), "--no-store", "-f", "json"], capture_output=True,
                         text=True)
    took = time.perf_counter() - start
    if res.returncode not in (0, 1):
        sys.exit(f"reviewtool triage {stretch} failed ({res.returncode}): {res.stderr.strip()[:400]}")
    return json.loads(res.stdout), took


def count_forms(stretch: Path) -> collections.Counter:
    """{(form, state, trust): replies} over every mail of the stretch."""
    import mailbox
    import tempfile

    from reviewtool.mail.replies import read_reply

    counts: collections.Counter = collections.Counter()
    with tempfile.NamedTemporaryFile(suffix=".mbox") as tmp:
        with gzip.open(stretch) if stretch.suffix == ".gz" else open(stretch, "rb") as src:
            tmp.write(src.read())
        tmp.flush()
        for _, data in mailbox.mbox(tmp.name, factory=lambda f: f.read()).iteritems():
            action = read_reply(data)
            if action is not None:
                counts[(action.form, action.state, action.trust)] += 1
    return counts


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("stretches", nargs="*", type=Path, help="mbox(.gz) files with a .states.tsv beside them")
    ap.add_argument("--reviewtool", default=str(Path(sys.executable).with_name("reviewtool")))
    ap.add_argument("-v", "--verbose", action="store_true", help="print every disagreement")
    ap.add_argument("--check", action="store_true", help="exit 1 unless every listed series agrees")
    args = ap.parse_args()
    stretches = args.stretches or sorted(LISTS.glob("*.mbox.gz"))
    if not stretches:
        sys.exit(f"no stretches found in {LISTS}")
    failed = False
    for stretch in stretches:
        tsv = stretch.with_name(stretch.name.removesuffix(".gz").removesuffix(".mbox") + ".states.tsv")
        report, took = triage(args.reviewtool, stretch)
        ok, bad = agreement(report, tsv)
        total = ok + len(bad)
        kinds = collections.Counter(state for state, _ in expected(tsv)[0].values())
        print(f"{stretch.name}: {report['totals']['messages']} messages, triage {took:.1f} s")
        print(f"  states.tsv: {total} series ({', '.join(f'{k} {v}' for k, v in sorted(kinds.items()))}); "
              f"agree {ok}/{total}")
        print("  by state (changes-requested also when shown superseded only): " + ", ".join(
            f"{k} {ok_}/{n} ({100 * ok_ / n:.0f}%)" for k, (ok_, n) in by_state(report, tsv).items()))
        for line in bad if args.verbose else bad[:5]:
            print("  - " + line)
        forms = count_forms(stretch)
        print("  reply forms in the stretch (form, state, counts from): replies")
        for (form, state, trust), n in sorted(forms.items(), key=lambda kv: (-kv[1], kv[0])):
            print(f"    {form:20} {state:18} {trust:8} {n}")
        failed |= bool(bad)
    return 1 if args.check and failed else 0


if __name__ == "__main__":
    sys.exit(main())
