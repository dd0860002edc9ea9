"""The benchmarks' memory reading (benchmarks/bench_triage.py): a forked child with memory of its
own is counted, a child that still holds its parent's memory is not counted twice."""

import subprocess
import sys
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

from bench_triage import _same_memory, held_tree_kb  # noqa: E402

CHILD = """
import os, sys, time
x = bytearray(40 << 20)
for i in range(0, len(x), 4096):
    x[i] = 1
if os.fork() == 0:
    y = bytearray(30 << 20)
    for i in range(0, len(y), 4096):
        y[i] = 1
    print("ready", flush=True)
    time.sleep(5)
    os._exit(0)
time.sleep(5)
"""


@pytest.mark.skipif(not Path("/proc/self/smaps_rollup").exists(), reason="needs Linux /proc")
def test_a_forked_child_with_its_own_memory_is_counted_and_a_process_is_its_own_memory():
    proc = subprocess.Popen([sys.executable, "-c", CHILD], stdout=subprocess.PIPE)
    try:
        assert proc.stdout.readline().strip() == b"ready"
        time.sleep(0.2)
        child = int(Path(f"/proc/{proc.pid}/task/{proc.pid}/children").read_text().split()[0])
        assert held_tree_kb(proc.pid) >= (40 + 30) * 1024
        assert not _same_memory(proc.pid, child, None, None)
        rollup = Path(f"/proc/{proc.pid}/smaps_rollup").read_text()
        assert _same_memory(proc.pid, proc.pid, rollup, rollup)
    finally:
        proc.kill()
        proc.wait()
