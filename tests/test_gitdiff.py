"""The one-pass reader of plain git diffs (model/gitdiff.py) against unidiff's reading, which it
replaces where it answers: every corpus diff, hand-made odd ones (renames, modes, binary,
quoted names, CR, markers, short and long hunks) and generated ones. Each is read whole by
model/diff.py both ways (the reader on, and off so that unidiff reads it): the Basements,
problems included, must be equal."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reviewtool.model import diff
from reviewtool.model.gitdiff import read_git_diff
from test_diff_lines import corpus_diffs


def by_unidiff(text: str, monkeypatch) -> diff.Basement:
    with monkeypatch.context() as m:
        m.setattr(diff, "read_git_diff", lambda _text: None)
        return diff._parse_basement(text)


def both(text: str, monkeypatch) -> tuple[diff.Basement, diff.Basement]:
    return diff._parse_basement(text), by_unidiff(text, monkeypatch)


def test_every_corpus_diff_reads_the_same(monkeypatch):
    diffs = corpus_diffs()
    assert len(diffs) > 200
    read = 0
    for text in diffs:
        ours, theirs = both(text, monkeypatch)
        assert ours == theirs
        read += read_git_diff(diff._TAIL_INFO_RE.sub("", text)) is not None
    assert read > 0.9 * len(diffs)  # the one-pass reading is the common path


HEAD = "diff --git a/f.c b/f.c\nindex 1111111..2222222 100644\n--- a/f.c\n+++ b/f.c\n"
ODD = {
    "plain": HEAD + "@@ -1,3 +1,3 @@\n a\n-b\n+c\n d\n-- \n2.39.0\n\n",
    "two files, a blank after a hunk": HEAD + "@@ -1 +1 @@\n-a\n+b\n\n" + HEAD.replace("f.c", "g.c")
        + "@@ -1,2 +1 @@\n-x\n y\n",
    "a second hunk after a blank": HEAD + "@@ -1 +1 @@\n-a\n+b\n\n@@ -9 +9 @@\n-c\n+d\n",
    "no newline markers": HEAD + "@@ -1 +1 @@\n-a\n\\ No newline at end of file\n+b\n"
        "\\ No newline at end of file\n",
    "pure rename": "diff --git a/old.c b/new.c\nsimilarity index 100%\nrename from old.c\nrename to new.c\n"
        "-- \n2.39.0\n",
    "rename with a hunk": "diff --git a/old.c b/new.c\nsimilarity index 90%\nrename from old.c\n"
        "rename to new.c\nindex 1..2 100644\n--- a/old.c\n+++ b/new.c\n@@ -1 +1 @@\n-a\n+b\n",
    "copy": "diff --git a/a.c b/b.c\nsimilarity index 100%\ncopy from a.c\ncopy to b.c\n",
    "mode only": "diff --git a/run.sh b/run.sh\nold mode 100644\nnew mode 100755\n",
    "mode and hunk": "diff --git a/run.sh b/run.sh\nold mode 100644\nnew mode 100755\nindex 1..2\n"
        "--- a/run.sh\n+++ b/run.sh\n@@ -1 +1 @@\n-a\n+b\n",
    "new file": "diff --git a/n.c b/n.c\nnew file mode 100644\nindex 0000000..1111111\n--- /dev/null\n"
        "+++ b/n.c\n@@ -0,0 +1,2 @@\n+a\n+b\n",
    "empty new file": "diff --git a/n.c b/n.c\nnew file mode 100644\nindex 0000000..e69de29\n",
    "deleted file": "diff --git a/d.c b/d.c\ndeleted file mode 100644\nindex 1111111..0000000\n"
        "--- a/d.c\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-a\n-b\n",
    "added by hunk, no mode line": HEAD + "@@ -0,0 +1 @@\n+a\n",
    "removed by hunk": HEAD + "@@ -1 +0,0 @@\n-a\n",
    "header without hunk": HEAD,
    "header, then a next file": HEAD + "diff --git a/g.c b/g.c\n--- a/g.c\n+++ b/g.c\n@@ -1 +1 @@\n-a\n+b\n",
    "binary": "diff --git a/fw.bin b/fw.bin\nnew file mode 100644\nindex 0..1\nGIT binary patch\n"
        "literal 3\nKcmZ?wVgLXE2><@\n\nliteral 0\nHcmV?d00001\n\n",
    "binary files differ": "diff --git a/x.bin b/x.bin\nindex 1..2 100644\nBinary files a/x.bin and b/x.bin differ\n",
    "binary, then a text file": "diff --git a/WHENCE b/WHENCE\nindex 1..2 100644\n--- a/WHENCE\n+++ b/WHENCE\n"
        "@@ -1 +1,2 @@\n a\n+File: fw.bin\ndiff --git a/fw.bin b/fw.bin\nnew file mode 100644\nindex 0..1\n"
        "GIT binary patch\nliteral 3\nKcmZ?wVgLXE2><@\n\nliteral 0\nHcmV?d00001\n\n"
        "diff --git a/g.c b/g.c\n--- a/g.c\n+++ b/g.c\n@@ -1 +1 @@\n-a\n+b\n-- \n2.39.0\n",
    "binary patch as the unfinished last line": "diff --git a/fw.bin b/fw.bin\nindex 0..1\nGIT binary patch",
    "binary patch after a hunk": HEAD + "@@ -1 +1 @@\n-a\n+b\nGIT binary patch\nliteral 0\n",
    "binary patch, a hunk after it": "diff --git a/fw.bin b/fw.bin\nGIT binary patch\nliteral 0\n@@ -1 +1 @@\n-a\n+b\n",
    "binary file has changed": "diff --git a/x.bin b/x.bin\nBinary file x.bin has changed\n",
    "binary line of another form": "diff --git a/x.bin b/x.bin\nBinary blob\n--- a/x.bin\n+++ b/x.bin\n",
    "deleted binary": "diff --git a/x.bin b/x.bin\ndeleted file mode 100644\nindex 1..0\n"
        "Binary files a/x.bin and /dev/null differ\n",
    "quoted names": 'diff --git "a/sp ace.c" "b/sp ace.c"\n--- "a/sp ace.c"\n+++ "b/sp ace.c"\n@@ -1 +1 @@\n-a\n+b\n',
    "blank in a name": "diff --git a/sp ace.c b/sp ace.c\n--- a/sp ace.c\n+++ b/sp ace.c\n@@ -1 +1 @@\n-a\n+b\n",
    "one name only": "diff --git a/f.c\n--- a/f.c\n+++ b/f.c\n@@ -1 +1 @@\n-a\n+b\n",
    "other target": "diff --git a/f.c b/f.c\n--- a/f.c\n+++ b/g.c\n@@ -1 +1 @@\n-a\n+b\n",
    "target with a tab": "diff --git a/f.c b/f.c\n--- a/f.c\n+++ b/f.c\t2020-01-01\n@@ -1 +1 @@\n-a\n+b\n",
    "short hunk": HEAD + "@@ -1,3 +1,3 @@\n a\n-b\n",
    "long hunk": HEAD + "@@ -1,2 +1,2 @@\n-a\n+b\n+c\n x\n",
    "an added line after a full hunk": HEAD + "@@ -1 +1 @@\n-a\n+b\n+c\n",
    "odd line in a hunk": HEAD + "@@ -1,2 +1,2 @@\n-a\nx\n+b\n",
    "empty hunk": HEAD + "@@ -0,0 +0,0 @@\n\\ No newline at end of file\n",
    "empty hunk, context after": HEAD + "@@ -0,0 +0,0 @@\n a\n",
    "empty hunk at the end": HEAD + "@@ -0,0 +0,0 @@",
    "hunk after patch info": HEAD + "@@ -1 +1 @@\n-a\n+b\n-- \n@@ -3 +3 @@\n-c\n+d\n",
    "marker in the header": HEAD + "\\ No newline at end of file\n@@ -1 +1 @@\n-a\n+b\n",
    "stray marker after patch info": HEAD + "@@ -1 +1 @@\n-a\n+b\nnote\n\\ No newline at end of file\n",
    "other marker": HEAD + "@@ -1 +1 @@\n-a\n+b\n\\ something\n",
    "unified sides after the hunks": HEAD + "@@ -1 +1 @@\n-a\n+b\n--- a/g.c\n+++ b/g.c\n@@ -1 +1 @@\n-c\n+d\n",
    "new file mode after the hunks": HEAD + "@@ -1 +1 @@\n-a\n+b\nnew file mode 100644\n",
    "odd new file mode": "diff --git a/n.c b/n.c\nnew file mode 10064x\n--- /dev/null\n+++ b/n.c\n@@ -0,0 +1 @@\n+a\n",
    "new and deleted": "diff --git a/n.c b/n.c\nnew file mode 100644\ndeleted file mode 100644\n",
    "combined diff": HEAD + "@@@ -1,1 -1,1 +1,1 @@@\n- a\n +b\n",
    "carriage returns": HEAD + "@@ -1,3 +1,3 @@\n a\r\n-b\r\n+c\r\n\r\n",
    "lone CR lines": HEAD + "@@ -1,3 +1,3 @@\n\r\n-b\rx\n+c\r\n\rz\n",
    "form feed, line separator": HEAD + "@@ -1,2 +1,2 @@\n-a\x0cb\n+c\u2028d\n \x1ce\n",
    "unicode digits in a hunk header": HEAD + "@@ -\u0661,2 +1,2 @@\n-a\n+b\n c\n",
    "no final newline": HEAD + "@@ -1 +1 @@\n-a\n+b",
    "dashes after the diff": HEAD + "@@ -1 +1 @@\n-a\n+b\n---\nmore\n",
    "index line of no mode": "diff --git a/f.c b/f.c\nindex 1..2\n--- a/f.c\n+++ b/f.c\n@@ -1 +1 @@\n-a\n+b\n",
    "a blank in the header": "diff --git a/f.c b/f.c\n\n--- a/f.c\n+++ b/f.c\n@@ -1 +1 @@\n-a\n+b\n",
    "source side of another name": "diff --git a/f.c b/f.c\n--- a/other.c\n+++ b/f.c\n@@ -1 +1 @@\n-a\n+b\n",
    "unsafe names": "diff --git a/../x b/../x\n--- a/../x\n+++ b/../x\n@@ -1 +1 @@\n-a\n+\x1b[31mb\n"
        "diff --git a//etc/p b//etc/p\n--- a//etc/p\n+++ b//etc/p\n@@ -1 +1 @@\n-a\n+b\n",
    "diffstat and notes above": "v2: fixed\n\n f.c | 2 +-\n 1 file changed, 1 insertion(+), 1 deletion(-)\n\n"
        + HEAD + "@@ -1 +1 @@\n-a\n+b\n-- \n2.39.0\n\nbase-commit: 0123456789abcdef\n",
}


@pytest.mark.parametrize("name", sorted(ODD))
def test_odd_diffs_read_the_same(name, monkeypatch):
    ours, theirs = both(ODD[name], monkeypatch)
    assert ours == theirs


def test_odd_diffs_take_both_paths():
    """The hand-made cases exercise the reader and its hand-overs to unidiff alike."""
    read = {name for name, text in ODD.items()
            if text.startswith("diff") and read_git_diff(text) is not None}
    assert {"plain", "pure rename", "mode only", "new file", "deleted file", "no newline markers",
            "carriage returns", "header without hunk", "empty hunk", "binary", "binary files differ",
            "binary, then a text file", "deleted binary"} <= read
    assert not read & {"binary patch as the unfinished last line", "binary patch after a hunk", "quoted names", "short hunk", "long hunk", "other target",
                       "hunk after patch info", "new and deleted"}


def test_a_file_reads_as_unidiff_reads_it():
    f = read_git_diff(ODD["rename with a hunk"])[0]
    assert (f.source_file, f.target_file, len(f), f.added, f.removed) == ("a/old.c", "b/new.c", 1, 1, 1)
    assert f.is_rename and not f.is_added_file and not f.is_removed_file
    assert "".join(f.patch_info).startswith("diff --git a/old.c b/new.c\nsimilarity index 90%\n")


LINE = st.one_of(
    st.builds(lambda t: "+" + t, st.text(max_size=6)), st.builds(lambda t: "-" + t, st.text(max_size=6)),
    st.builds(lambda t: " " + t, st.text(max_size=6)), st.text(max_size=6),
    st.sampled_from(["", "\r", "\\ No newline at end of file", "-- ", "2.39.0", "@@ -1 +1 @@", "@@ -0,0 +1 @@",
                     "@@ -1,2 +1 @@", "@@ -1 +0,0 @@", "@@ -0,0 +0,0 @@", "@@ x", "--- a/f", "+++ b/f",
                     "+++ b/g", "--- /dev/null", "+++ /dev/null", "diff --git a/f b/f", "diff --git a/g b/h",
                     "diff --git a/f", "new file mode 100644", "deleted file mode 100644", "old mode 100644",
                     "new mode 100755", "index 1..2 100644", "similarity index 100%", "rename from f",
                     "GIT binary patch", "Binary files a/f and b/f differ", "Binary file f has changed",
                     "literal 3", "KcmZ?wVgLXE2><@", "base-commit: abc"]))


@settings(max_examples=600, deadline=None, derandomize=True)
@given(st.lists(LINE, max_size=16), st.booleans())
def test_generated_diffs_read_the_same(body, final_newline):
    """Any sequence of lines under a `diff --git` header: equal Basements, problems included."""
    text = "diff --git a/f b/f\n" + "\n".join(body) + ("\n" if final_newline else "")
    with pytest.MonkeyPatch.context() as mp:
        ours, theirs = both(text, mp)
    assert ours == theirs
