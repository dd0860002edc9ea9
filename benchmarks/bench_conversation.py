"""What triage makes of whole real lists, and whether the threads agree: the conversation issue's table.

For each stretch of ../shared/corpus/lists/ (every mail of a list for months, as a maintainer's
inbox holds it), `reviewtool triage STRETCH --no-store -f json --now END` (END: a day after the
stretch's last mail, so a series is judged as the maintainer saw it then) gives every series a
status. This prints, per stretch:
- the count of each status, and of each reply act the statuses rest on (the state a trusted reply
  settled, by form; a reviewer's request in words; a state settled for an earlier posting; a
  reply's claim not taken because its sender may not settle it);
- a sample of up to 20 series per status over all stretches (the same on every run: the lowest
  sha1 of stretch and message-id), each with what benchmarks/hand_checked.tsv records of its
  thread, read by hand: whether the thread agrees with the status shown, and what it shows.
  Agreement per status is counted over the hand-checked rows whose status is still the one shown.

    python3 benchmarks/bench_conversation.py > benchmarks/bench_conversation.txt
    python3 benchmarks/bench_conversation.py --sample-tsv /tmp/sample.tsv   # the rows to check by hand
    python3 benchmarks/bench_conversation.py --show linux-wireless-2024-03 MSGID  # a series' conversation
"""

from __future__ import annotations

import argparse
import collections
import csv
import gzip
import hashlib
import json
import shutil
import subprocess
import sys
import tempfile
from datetime import datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LISTS = ROOT.parent / "shared" / "corpus" / "lists"
HAND = Path(__file__).with_name("hand_checked.tsv")
PER_STATUS = 20


def unpacked(stretch: Path, scratch: Path) -> Path:
    out = scratch / stretch.name.removesuffix(".gz")
    if not out.exists():
        with gzip.open(stretch) as src, open(out, "wb") as dst:
            shutil.copyfileobj(src, dst)
    return out


def last_date(mbox: Path) -> datetime:
    from reviewtool.sources.index import index_file

    return datetime.fromtimestamp(max(h.date or 0.0 for h in index_file(mbox)))


def triage(reviewtool: str, mbox: Path, now: datetime) -> dict:
    res = subprocess.run([reviewtool, "triage", str(mbox), "--no-store", "-f", "json", "--jobs", "2",
                          "--now", now.strftime("%Y-%m-%dT%H:%M")], capture_output=True, text=True)
    if res.returncode not in (0, 1):
        sys.exit(f"reviewtool triage {mbox} failed ({res.returncode}): {res.stderr.strip()[:400]}")
    return json.loads(res.stdout)


def acts(report: dict) -> collections.Counter:
    """{act: count} over the report's series: what its statuses rest on."""
    out: collections.Counter = collections.Counter()
    for s in report["series"]:
        for r in s.get("reasons", []):
            if r.get("code") == "state":
                out[f"settled {r['state']} ({r.get('form')})"] += 1
            elif r.get("code") == "earlier-state":
                out[f"earlier posting settled {r['state']['state']}"] += 1
            elif r.get("code") == "asked-for-changes":
                out["a reviewer asked for changes in words"] += 1
        out["claims not taken"] += sum("not taken as the series' state" in n for n in s.get("notes", []))
    return out


def reason_line(s: dict) -> str:
    """One line: the first reason of the series, as the text report words it in short."""
    for r in s.get("reasons", []):
        code = r.get("code")
        if code == "state":  # the patches it is said of, and a partial apply, as templates/_state.j2 words them
            on = f" on patches {', '.join(map(str, r['patches']))}" if r.get("patches") and r["state"] != "applied" else ""
            also = f"; patches {', '.join(map(str, r['applied']))} applied" if r.get("applied") and r["state"] != "applied" else ""
            return (f"{r['state']}{on} {r.get('tree') or r.get('tree_words') or ''} by {r.get('by', '')} "
                    f"({r.get('form')}){also}")
        if code == "stale":  # and why it was what it was, as the report's next reason says
            why = next((x for x in s["reasons"][1:] if x.get("code") not in ("reviewed", "unreviewed", "apply-not-checked")), None)
            because = f" ({why['code']}{': ' + ', '.join(why['rules']) if why.get('rules') else ''})" if why else ""
            return f"stale: {r['days']} days without mail, was {r['was']}{because}"
        if code == "unreviewed" and r.get("reviewed"):
            return f"{r['reviewed']} of {r['total']} patches reviewed; next: {s.get('next_step', '')}"
        if code in ("asked-for-changes", "will-revise", "withdrawn", "rejected"):
            return f"{code} by {r.get('by', '')}: \"{r.get('evidence', '')}\""
        if code not in ("reviewed", "unreviewed", "apply-not-checked"):
            return code + (": " + ", ".join(r["rules"]) if r.get("rules") else "")
    return (s.get("next_step") or (s.get("verdict") or {}).get("next_step", ""))[:90]


def sample(reports: dict[str, dict]) -> dict[str, list[tuple[str, dict]]]:
    """{status: [(stretch, series)]}: up to PER_STATUS per status, chosen by hash, not by taste."""
    pool: dict[str, list[tuple[str, str, dict]]] = collections.defaultdict(list)
    for name, report in reports.items():
        for s in report["series"]:
            key = hashlib.sha1(f"{name} {s['msgid']}".encode()).hexdigest()
            pool[s["status"]].append((key, name, s))
    return {st: [(n, s) for _, n, s in sorted(rows, key=lambda r: r[0])[:PER_STATUS]] for st, rows in pool.items()}


def hand_checked() -> dict[tuple[str, str], dict]:
    if not HAND.exists():
        return {}
    with open(HAND, encoding="utf-8") as fh:
        rows = [r for r in csv.DictReader((line for line in fh if not line.startswith("#")), delimiter="\t")]
    return {(r["stretch"], r["msgid"]): r for r in rows}


def show(mbox: Path, msgid: str) -> None:
    """Every mail of the series' family (its revisions) and every reply to them, oldest first."""
    from reviewtool.conversation.revisions import patch_families, threads_of
    from reviewtool.mail.message import body_text
    from reviewtool.sources.files import parse_mail
    from reviewtool.sources.index import index_file, raw_mail

    heads = list(index_file(mbox))
    family = next((f for f in patch_families(heads) if any(h.msgid == msgid for t in f for h in t.heads)), None)
    if family is None:
        sys.exit(f"{msgid}: no series holds it")
    ids = {h.msgid for t in family for h in t.heads}
    subjects = {h.subject.split("]", 1)[-1].strip().lower() for t in family for h, _ in t.patches}
    # replies whose patch the archive lacks, but answer one of the family's subjects
    for t in threads_of(heads):
        if not t.patches and any(h.subject.split("]", 1)[-1].strip().lower() in subjects for h in t.heads):
            ids |= {h.msgid for h in t.heads}
    with open(mbox, "rb") as fh:
        for h in sorted((h for h in heads if h.msgid in ids), key=lambda h: h.date or 0.0):
            msg, _ = parse_mail(raw_mail(h.ref, fh))
            when = datetime.fromtimestamp(h.date).isoformat(" ", "minutes") if h.date else "?"
            print(f"=== {when}  {h.sender}\n    {h.subject}\n    <{h.msgid}> in reply to <{h.in_reply_to}>")
            text = body_text(msg) if msg is not None else ""
            if h.has_diff:
                text = text.split("\ndiff --git", 1)[0]
            lines = [line for line in text.splitlines() if not line.startswith(">")]
            cap = 30 if h.has_diff else 60  # a patch: its message and notes; a reply: what it says
            print("    " + "\n    ".join(lines[:cap]) + ("\n    [...]" if len(lines) > cap else ""))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--reviewtool", default="reviewtool")
    ap.add_argument("--sample-tsv", type=Path, help="write the sampled rows (to check by hand) to this file")
    ap.add_argument("--show", nargs=2, metavar=("STRETCH", "MSGID"), help="print a series' conversation")
    args = ap.parse_args()
    stretches = sorted(LISTS.glob("*.mbox.gz"))
    if not stretches:
        sys.exit(f"no stretches in {LISTS}")
    scratch = Path(tempfile.gettempdir()) / "reviewtool-bench-lists"
    scratch.mkdir(exist_ok=True)
    if args.show:
        show(unpacked(LISTS / f"{args.show[0]}.mbox.gz", scratch), args.show[1])
        return 0
    reports = {}
    for stretch in stretches:
        mbox = unpacked(stretch, scratch)
        name = stretch.name.removesuffix(".mbox.gz")
        now = last_date(mbox) + timedelta(days=1)
        report = reports[name] = triage(args.reviewtool, mbox, now)
        counts = {k: v for k, v in report["counts"].items() if v}
        print(f"{name}: {report['totals']['series']} series, --now {now:%Y-%m-%d}; not series: "
              f"{report['totals'].get('not_series', {})}")
        print("  statuses: " + ", ".join(f"{k} {v}" for k, v in counts.items()))
        print("  reply acts: " + ", ".join(f"{k} {v}" for k, v in sorted(acts(report).items())))
    picked = sample(reports)
    hand = hand_checked()
    if args.sample_tsv:
        with open(args.sample_tsv, "w", encoding="utf-8") as out:
            out.write("stretch\tmsgid\tstatus\tsubject\treason\n")
            for status, rows in sorted(picked.items()):
                for name, s in rows:
                    out.write(f"{name}\t{s['msgid']}\t{status}\t{s['subject'][:80]}\t{reason_line(s)[:160]}\n")
    print(f"\nSampled series, up to {PER_STATUS} per status, against their threads read by hand "
          f"({HAND.name}: agrees yes/no, what the thread shows)")
    total = [0, 0]
    for status, rows in sorted(picked.items()):
        checked = [hand[(n, s["msgid"])] for n, s in rows if (n, s["msgid"]) in hand
                   and hand[(n, s["msgid"])]["status"] == status]
        agree = sum(r["agrees"] == "yes" for r in checked)
        total[0] += agree
        total[1] += len(checked)
        share = f"{agree}/{len(checked)} ({100 * agree // max(len(checked), 1)}%)" if checked else "not checked"
        print(f"\n{status}: {len(rows)} sampled, thread agrees {share}")
        for n, s in rows:
            r = hand.get((n, s["msgid"]))
            mark = "?" if r is None or r["status"] != status else ("ok" if r["agrees"] == "yes" else "NO")
            print(f"  {mark:3} {n[:22]:22} {s['subject'][:58]:58} {reason_line(s)[:60]}")
            if r is not None and r["status"] == status and r.get("found"):
                print(f"      {r['found'][:150]}")
    print(f"\nall statuses: the thread agrees on {total[0]}/{total[1]} hand-checked series")
    return 0


if __name__ == "__main__":
    sys.exit(main())
