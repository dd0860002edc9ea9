"""`profile learn` claims the paths the list's own applied postings touch, not those of another
project's series Cc'd to it (intel-wired-lan learned netdev's drivers/net/, net/core/ and
drivers/dpll/ from the netdev series Cc'd to it), and no wider than its own files lie."""

from __future__ import annotations

import tomllib
from datetime import timedelta

from listarchive import MAE, START, Posting, archive_of, lab_list


def test_a_series_sent_to_another_projects_list_first_claims_nothing(tmp_path, cli):
    netdev = [Posting(f"net: core: export the helper {i}", path=f"net/core/dev{i}.c", files=["drivers/lab/drv1/main.c"],
                      to="netdev@vger.kernel.org", when=START + timedelta(days=i, hours=6)) for i in range(4)]
    # Near misses: the same kind of series sent to this list first, and one sent to its maintainer
    # with the list in copy (as wireless driver patches go), are the list's own.
    own = [Posting(f"lab: sched: rework {i}", path=f"net/sched/lab{i}.c", when=START + timedelta(days=i, hours=7))
           for i in range(3)]
    to_mae = [Posting(f"lab: extra: tidy {i}", path=f"drivers/lab/extra/x{i}.c", to=MAE,
                      when=START + timedelta(days=i, hours=8)) for i in range(2)]
    ice = [Posting(f"lab: ice: fix {i}", path=f"drivers/net/ethernet/intel/ice/ice{i}.c",
                   when=START + timedelta(days=i, hours=9)) for i in range(3)]
    mbox = archive_of(lab_list() + netdev + own + to_mae + ice, tmp_path / "list.mbox")
    res = cli("profile", "learn", str(mbox), "-o", str(tmp_path / "out.toml"), "--jobs", "1")
    assert res.code == 0, res.err
    text = (tmp_path / "out.toml").read_text()
    data = tomllib.loads(text)
    assert "net/core/" not in data["paths"]
    assert {"drivers/lab/", "net/sched/"} <= set(data["paths"])
    # its own files lie under drivers/net/ethernet/intel/ice/: not the whole of drivers/net/ethernet/
    assert "drivers/net/ethernet/intel/ice/" in data["paths"] and "drivers/net/ethernet/" not in data["paths"]
    assert ("not what the 4 applied postings sent first to another project's list (netdev@vger.kernel.org, this one "
            "in copy) touch as much as the list's own or more: net/core/") in data["evidence"]["paths"]
