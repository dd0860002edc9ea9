"""A report written to a real stdout (file or pipe) in pieces holds exactly the chunks' text."""

from __future__ import annotations

import subprocess
import sys

import pytest

from conftest import ROOT

WRITER = """
import sys
from reviewtool.render.output import write_stdout
chunks = ['{', *(('\\n  "k%d": "zo\\u00eb \\u2192 %s"' % (i, 'x' * (i % 997))) for i in range(1000)), '\\udcff', '', '}\\n']
write_stdout(iter(chunks), sys.argv[1])
sys.stdout.flush()
sys.stderr.write(str(len(chunks)))
"""


@pytest.mark.parametrize("fmt", ["json", "markdown", "html"])
def test_the_pieces_are_the_chunks(tmp_path, fmt):
    out = tmp_path / "out"
    with open(out, "wb") as fh:
        proc = subprocess.run([sys.executable, "-c", WRITER, fmt], stdout=fh, stderr=subprocess.PIPE, cwd=ROOT,
                              check=True)
    chunks = ["{", *(('\n  "k%d": "zo\u00eb \u2192 %s"' % (i, "x" * (i % 997))) for i in range(1000)), "\udcff", "",
              "}\n"]
    assert proc.stderr == str(len(chunks)).encode()
    data = out.read_bytes()
    assert len(data) > 3 * 65536  # several pieces
    assert data == "".join(chunks).encode("utf-8", "replace")


def test_a_pipe_gets_the_same_bytes():
    proc = subprocess.run([sys.executable, "-c", WRITER, "json"], capture_output=True, cwd=ROOT, check=True)
    direct = subprocess.run([sys.executable, "-c", WRITER.replace("write_stdout(iter(chunks), sys.argv[1])",
                                                                   "sys.stdout.buffer.write(''.join(chunks).encode("
                                                                   "'utf-8', 'replace'))"), "json"],
                            capture_output=True, cwd=ROOT, check=True)
    assert proc.stdout == direct.stdout and len(proc.stdout) > 65536


@pytest.mark.parametrize("text", ["", "plain ascii {\"a\": 1}\n", "zo\u00eb", "\udcff", "a\udcffb\ud800", "\u2192\udc80",
                                  "\x00\x7f", "\U0001f600 emoji"])
def test_printable_is_the_replacement_of_every_surrogate(text):
    import re

    from reviewtool.render.output import printable

    assert printable(text) == re.sub("[\ud800-\udfff]", "\ufffd", text)
    printable(text).encode("utf-8")  # never raises
