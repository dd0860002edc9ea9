"""The store keys a directory's files by their real paths, each directory resolved once
(triage/store_files.real_paths): the same answer as os.path.realpath for every file."""

import os
from pathlib import Path

from reviewtool.triage.store_files import real_paths as _real_paths


def test_real_paths_are_realpath_of_each_file(tmp_path, monkeypatch):
    real = tmp_path / "real"
    (real / "new").mkdir(parents=True)
    (real / "new" / "1.mail").write_text("x")
    (tmp_path / "elsewhere.mail").write_text("y")
    (real / "new" / "2.mail").symlink_to(tmp_path / "elsewhere.mail")  # a file that is a link
    (tmp_path / "linked").symlink_to(real)  # a directory reached through a link
    monkeypatch.chdir(tmp_path)
    files = [Path("linked/new/1.mail"), Path("linked/new/2.mail"), tmp_path / "linked" / "new" / "1.mail",
             Path("real/new/../new/1.mail"), Path("linked/new/missing.mail")]
    got = dict(_real_paths(files))
    assert [f for f, _ in _real_paths(files)] == files
    assert got == {f: os.path.realpath(f) for f in files}
    assert got[Path("linked/new/2.mail")] == str(tmp_path / "elsewhere.mail")


def _listed_the_old_way(path: Path) -> list[Path]:
    if all((path / d).is_dir() for d in ("cur", "new", "tmp")):
        found = sorted([*(path / "cur").iterdir(), *(path / "new").iterdir()])
    else:
        found = sorted(p for p in path.iterdir() if p.is_file() and not p.name.startswith("."))
    return [p for p in found if p.is_file()]


def test_a_directory_and_a_maildir_list_their_files_as_pathlib_did(tmp_path):
    from reviewtool.sources.input_files import mail_files

    plain = tmp_path / "plain"
    plain.mkdir()
    for name in ("b.mail", "a.mail", ".hidden", "a-b", "A", "z 1", "é.mail"):
        (plain / name).write_text("x")
    (plain / "sub").mkdir()
    (plain / "link").symlink_to(plain / "a.mail")
    (plain / "dangling").symlink_to(plain / "gone")
    md = tmp_path / "md"
    for d in ("cur", "new", "tmp"):
        (md / d).mkdir(parents=True)
    for d, names in (("new", ["1700000001.M9P1.h", "1700000001.M10P1.h", ".dot"]), ("cur", ["1699.M1P2.h:2,S"])):
        for name in names:
            (md / d / name).write_text("x")
    (md / "new" / "subdir").mkdir()
    for p in (plain, md):
        assert mail_files(p) == _listed_the_old_way(p)
    assert mail_files(md)[0].parent.name == "cur" and len(mail_files(md)) == 4


def test_a_rows_state_text_is_json_dumps_of_it():
    import json

    from reviewtool.limits import limits
    from reviewtool.triage.indexed import single_sig as _single_sig, single_tail as _single_tail, state_text as _state_text
    from reviewtool.triage.store_keys import code_digest

    for state in ({"kind": "single", "sig": [12, 1700000000123456789, 1700000000123456789, 99, 2049]},
                  {"kind": "single", "sig": [0, -1, 2 ** 70, 3, 4]},
                  {"kind": "single", "sig": [True, 1, 2, 3, 4]},
                  {"kind": "single", "sig": [1, 2, 3]},
                  {"kind": "gzip", "sig": [1, 2, 3, 4, 5]},
                  {"kind": "mbox", "end": 10, "digest": "ab", "sig": [1, 2, 3, 4, 5]}):
        text = _state_text(state)
        assert text == json.dumps({**state, "code": code_digest(), "cap": limits().archive_mails})
        assert json.loads(text)["sig"] == state["sig"]
        # the warm run's reading of it: the signature exactly where json reads a single mail's
        # state of this code and cap, else nothing (json reads it)
        read = json.loads(text)
        single = read["kind"] == "single" and len(read["sig"]) == 5 and all(type(v) is int for v in read["sig"])
        assert _single_sig(text, _single_tail()) == (read["sig"] if single else None)
        assert _single_sig(text, _single_tail().replace('"cap": ', '"cap": 1')) is None
        assert _single_sig(text.replace(", ", ",", 1), _single_tail()) is None


def test_real_paths_of_a_large_directory_come_from_its_listing(tmp_path, monkeypatch):
    from reviewtool.triage import store_files

    monkeypatch.setattr(store_files, "READ_AHEAD_FILES", 2)
    test_real_paths_are_realpath_of_each_file(tmp_path, monkeypatch)
