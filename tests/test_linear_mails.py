"""Whole mails grow linearly (issue 32's table): each shape of hostile mail is written at N and at
4N, and `check` (`triage` and `profile learn` too, for some) reads both in one child process. The
4N run may take at most 6 times the N run's CPU and 5 times its memory; a cost that grows with the
square of the input fails here long before it costs minutes. No absolute time is asserted (the figures at
the table's largest sizes are benchmarks/bench_limits.py's); a run's memory is the rise of the
child's peak resident size over what it held before the run, its peak reset for each run.

N is small (the N run takes a tenth of a second or so): a quadratic cost shows as 10x to 16x at
these sizes, a linear one as 3x to 4.5x. CPU under 0.05 s, and memory under 4 MB, count as that
much: below them a ratio is noise.
"""

from __future__ import annotations

import json
import subprocess
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from mailfactory import Mail, hunk_diff, patch_body, series_mails, thread, write

TIME_GROWTH, MEMORY_GROWTH = 6.0, 5.0
CPU_FLOOR_S, MEMORY_FLOOR_MB = 0.05, 4.0
START = datetime(2026, 11, 2, 10, 0, tzinfo=timezone.utc)

_MEASURE = r"""
import contextlib, io, json, sys, time
from reviewtool.cli import main

def status(key):
    return int([l.split()[1] for l in open("/proc/self/status") if l.startswith(key + ":")][0]) / 1024

command, warm, paths = sys.argv[1], sys.argv[2], sys.argv[3:]
extra = ["--no-store", "--now", "2026-12-01T00:00:00", "--jobs", "1"] if command == "triage" else []

def args(path):
    if command == "learn":  # the profile goes nowhere; what is measured is the reading
        return ["profile", "learn", path, "-o", "/dev/null", "--jobs", "1", "--no-progress"]
    return [command, path, "--format", "json", *extra]

with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
    main(args(warm))  # what reading the shape loads: b4, rules, profiles
out = []
for path in paths:
    with open("/proc/self/clear_refs", "w") as fh:
        fh.write("5")  # the peak resident size starts again from what is held now
    base = status("VmRSS")
    with contextlib.redirect_stdout(io.StringIO()) as text, contextlib.redirect_stderr(io.StringIO()):
        start = time.process_time()
        code = main(args(path))
        cpu = time.process_time() - start
    out.append({"code": code, "cpu": cpu, "mb": status("VmHWM") - base, "json": text.getvalue()})
print(json.dumps(out))
"""


def _mbox(*mails: str) -> str:
    return "\n".join("From mboxrd@z Thu Jan  1 00:00:00 1970\n" + m for m in mails)


def _render(mail: Mail, msgid: str, i: int = 0) -> str:
    return mail.render(msgid, START + timedelta(seconds=i))


def encoded_subject(n: int) -> str:
    return thread(Mail("[PATCH net] foo: " + " ".join("=?utf-8?b?w6Q=?=" for _ in range(n)), patch_body()))


def encoded_cc(n: int) -> str:
    cc = ", ".join(f"=?utf-8?b?w6Q=?= Person{i} <p{i}@example.org>" for i in range(n))
    return thread(Mail("[PATCH net] foo: fix bar", patch_body(), cc=cc))


def encoded_subject_8bit(n: int) -> str:
    """A raw accented letter sends the Subject to the email package's own parser."""
    return thread(Mail("[PATCH net] foo: \u00e9 " + " ".join("=?utf-8?b?w6Q=?=" for _ in range(n)), patch_body()))


def encoded_cc_8bit(n: int) -> str:
    cc = ", ".join(f"=?utf-8?b?w6Q=?= P\u00e9rson{i} <p{i}@example.org>" for i in range(n))
    return thread(Mail("[PATCH net] foo: fix bar", patch_body(), cc=cc))


def plain_cc(n: int) -> str:
    return thread(Mail("[PATCH net] foo: fix bar", patch_body(), cc=", ".join(f"P{i} <p{i}@example.org>" for i in range(n))))


def folded_header(n: int) -> str:
    return thread(Mail("[PATCH net] foo: fix bar", patch_body(), extra_headers={"X-Folded": "a" + "\n b" * n}))


def bracket_subject(n: int) -> str:
    return thread(Mail("[" * n + "PATCH net] foo: fix bar", patch_body()))


def bracket_reply(n: int) -> str:
    return thread(Mail("[PATCH net] foo: fix bar", patch_body()),
                  Mail("Re: [PATCH " + "[" * n, "Looks fine.\n\nReviewed-by: Rob Reviewer <rob@example.net>\n",
                       sender="Rob Reviewer <rob@example.net>"))


def long_tag(n: int) -> str:
    return thread(Mail(f"[PATCH {'n' * n}] foo: fix bar", patch_body()))


def trailers(n: int) -> str:
    lines = "\n".join(f"Reviewed-by: Person {i} <p{i}@example.org>" for i in range(n))
    return thread(Mail("[PATCH net] foo: fix bar", patch_body(trailers=lines + "\nSigned-off-by: Jane Developer <jane@example.org>")))


def _replies(n: int, reply, to: int | None = None) -> str:
    """A three-patch series and n replies, each `reply(i)` -> (sender, body), spread over the
    patches, or all to mail `to` (0: the cover letter)."""
    mails = [_render(m, f"s{i}@example.org", i) for i, m in enumerate(series_mails(3))]
    mails[1:] = [m.replace("\nTo:", "\nIn-Reply-To: <s0@example.org>\nReferences: <s0@example.org>\nTo:", 1)
                 for m in mails[1:]]
    for i in range(n):
        sender, body = reply(i)
        parent = f"s{i % 3 + 1 if to is None else to}@example.org"
        mails.append(_render(Mail("Re: [PATCH net 1/3] foo: fix thing", body, sender=sender, in_reply_to=parent),
                             f"r{i}@example.org", 10 + i))
    return _mbox(*mails)


def replies_asking(n: int) -> str:
    """Every reply asks for a change (each request is checked against the later replies)."""
    return _replies(n, lambda i: (f"R{i % 7} <r{i % 7}@example.net>",
                                  "> quoted\n\nPlease split this patch, and could you rebase it?\n"))


def replies_reviewing(n: int) -> str:
    """Every reply to patch 1 gives three review trailers of its own sender (b4 collects them all)."""
    return _replies(n, lambda i: (f"Person {i} <p{i}@example.net>", "> quoted\n\nLooks good.\n\n" + "".join(
        f"{key}: Person {i} <p{i}@example.net>\n" for key in ("Reviewed-by", "Acked-by", "Tested-by"))), to=1)


def replies_to_the_cover(n: int) -> str:
    return _replies(n, lambda i: (f"Person {i} <p{i}@example.net>", f"Reviewed-by: Person {i} <p{i}@example.net>\n"),
                    to=0)


def replies_relaying(n: int) -> str:
    """Every reply carries trailers of other people (b4 lists each as a mismatch)."""
    return _replies(n, lambda i: (f"Relay {i} <relay{i}@example.net>", "".join(
        f"Reviewed-by: Person {i}-{k} <p{i}.{k}@example.net>\n" for k in range(3))))


def replies_applying(n: int) -> str:
    """Every reply is an applier's script reply naming a patch and its commit (what profile learn
    reads in every reply)."""
    return _replies(n, lambda i: ("Kalle Valo <kvalo@kernel.org>", "> quoted\n\nPatch applied to wireless-next.git, "
                                  f"thanks.\n\n0123456789ab foo: fix thing number {i % 3 + 1}\n"))


def replies_malformed(n: int) -> str:
    return _replies(n, lambda i: (f"Someone {i} <s{i}@example.net>", f"Reviewed-by: Rob Reviewer{i % 50} <rob@rob@x>\n"))


def patches_unnumbered(n: int) -> str:
    """n patches without counters in one thread (each answering the first), each on 20 files of its
    own: every patch of the thread may be its first, and keys the thread by the thread's files."""
    mails = []
    for k in range(1, n + 1):
        diff = "".join(hunk_diff(f"drivers/net/foo{k}/f{j}.c", ["\treturn 0;"], [f"\treturn bar({k});"])
                       for j in range(20))
        mails.append(_render(Mail(f"[PATCH net-next] foo{k}: fix part {k}", patch_body(diff=diff),
                                  in_reply_to="p1@example.org" if k > 1 else None), f"p{k}@example.org", k))
    return _mbox(*mails)


# shape: (its generator, N, the commands that read it)
SHAPES = {
    "subject of N encoded words": (encoded_subject, 2500, ("check",)),
    "Cc of N encoded names": (encoded_cc, 500, ("check",)),
    "Cc of N plain names": (plain_cc, 2000, ("check",)),
    "subject of N encoded words and an accented letter": (encoded_subject_8bit, 2500, ("check",)),
    "Cc of N encoded names with an accented letter": (encoded_cc_8bit, 500, ("check", "triage")),
    "a header folded N times": (folded_header, 100_000, ("check", "learn")),
    "a subject opening with N [": (bracket_subject, 4000, ("check",)),
    "a reply subject of N [": (bracket_reply, 4000, ("check",)),
    "a subject tag of N characters": (long_tag, 250_000, ("check",)),
    "N trailers in one patch": (trailers, 2500, ("check",)),
    "N replies asking for changes": (replies_asking, 250, ("check", "triage", "learn")),
    "N replies applying a patch": (replies_applying, 250, ("check", "learn")),
    "N replies with review trailers": (replies_reviewing, 250, ("check", "triage")),
    "N review trailers to the cover letter": (replies_to_the_cover, 300, ("check",)),
    "N replies relaying others' trailers": (replies_relaying, 250, ("check",)),
    "N replies with malformed trailers": (replies_malformed, 300, ("check",)),
    "N patches without counters in one thread": (patches_unnumbered, 100, ("check", "triage", "learn")),
}
CASES = [(shape, command) for shape, (_, _, commands) in SHAPES.items() for command in commands]


def _measure(command: str, *paths: Path) -> list[dict]:
    try:
        proc = subprocess.run([sys.executable, "-c", _MEASURE, command, *map(str, paths)],
                              capture_output=True, text=True, timeout=300)
    except subprocess.TimeoutExpired:
        pytest.fail(f"{command} of {[p.name for p in paths]} ran for over five minutes")
    assert proc.returncode == 0, proc.stderr[-2000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("shape, command", CASES, ids=[f"{c}: {s}" for s, c in CASES])
def test_a_shape_at_four_times_the_size_costs_at_most_linearly_more(tmp_path, shape, command):
    make, n, _ = SHAPES[shape]
    warm = write(tmp_path, make(8), "8.mbox")  # the shape, small: its code loaded, its caches hardly filled
    small = write(tmp_path, make(n), "n.mbox")
    large = write(tmp_path, make(4 * n), "4n.mbox")
    one, four = _measure(command, warm, small, large)
    for run in (one, four):
        assert run["code"] in (0, 1), run["json"][-500:]  # a review (a profile), not a refusal or an error
        if command == "learn":
            continue
        report = json.loads(run["json"])
        named = report["series"]["subject"] if command == "check" else report["series"][0]["subject"]
        assert "foo" in named or "PATCH" in named, named  # the review still names the series
    time_growth = max(four["cpu"], CPU_FLOOR_S) / max(one["cpu"], CPU_FLOOR_S)
    if time_growth > TIME_GROWTH:  # a busy machine (the suite's other worker) slows one run: measure once more
        again_one, again_four = _measure(command, warm, small, large)
        one["cpu"], four["cpu"] = min(one["cpu"], again_one["cpu"]), min(four["cpu"], again_four["cpu"])  # undisturbed
        time_growth = max(four["cpu"], CPU_FLOOR_S) / max(one["cpu"], CPU_FLOOR_S)
    memory_growth = max(four["mb"], MEMORY_FLOOR_MB) / max(one["mb"], MEMORY_FLOOR_MB)
    figures = f"N={n}: {one['cpu']:.2f} s, {one['mb']:.0f} MB; 4N: {four['cpu']:.2f} s, {four['mb']:.0f} MB"
    assert time_growth <= TIME_GROWTH, f"{shape}: time grew {time_growth:.1f}x ({figures})"
    assert memory_growth <= MEMORY_GROWTH, f"{shape}: memory grew {memory_growth:.1f}x ({figures})"
