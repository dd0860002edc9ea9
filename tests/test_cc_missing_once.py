"""cc-missing in `check`: patches that miss the same people are told once, for the series;
patches that miss different people keep a finding each."""

from __future__ import annotations

from lintrepo import kernel_repo
from mailfactory import hunk_diff, patch_body, series_mails, thread, write


def _series(tmp_path, paths: dict[int, str]):
    bodies = {i: patch_body(diff=hunk_diff(p, [f"int x{i};"], [f"long x{i};"])) for i, p in paths.items()}
    mails = series_mails(len(paths), tree="net-next", bodies=bodies)
    for m in mails:
        m.to, m.cc = "netdev@vger.kernel.org", ""
    return write(tmp_path, thread(*mails))


def cc_findings(check_json, box, repo):
    return [f for f in check_json(box, "--repo", str(repo.path), "--select", "cc-missing").json["findings"]]


def test_the_same_people_missed_on_every_patch_is_one_finding(tmp_path, check_json):
    repo = kernel_repo(tmp_path / "linux")
    box = _series(tmp_path, {1: "net/core/dev.c", 2: "net/core/dev.c", 3: "net/core/dev.c"})
    (f,) = cc_findings(check_json, box, repo)
    assert f["patch"] is None and "on every patch" in f["message"]
    assert f["message"].count("Dave Net") == 1 and len(f["evidence"]) == 2


def test_other_people_missed_on_another_patch_stay_apart(tmp_path, check_json):
    repo = kernel_repo(tmp_path / "linux")
    box = _series(tmp_path, {1: "net/core/dev.c", 2: "drivers/net/ethernet/foo/foo_main.c",
                             3: "net/core/dev.c"})
    found = cc_findings(check_json, box, repo)
    assert sorted((f["patch"] is None, "patches 1, 3" in f["message"]) for f in found) == [(False, False), (True, True)]
    assert next(f for f in found if f["patch"] == 2)["message"].count("Foo Owner") == 1
