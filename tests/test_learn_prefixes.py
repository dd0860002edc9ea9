"""`profile learn`'s required prefix is the list's, never one driver's: intel-wired-lan's commonest
prefix, `ice:`, leads a third to a half of what the Intel queues take, with many areas after it
(`ice: dpll:`, `ice: ptp:`), and the other drivers (igc:, i40e:) go without it."""

from __future__ import annotations

import tomllib
from datetime import timedelta

from listarchive import START, Posting, archive_of


def learn(cli, tmp_path, postings, name):
    mbox = archive_of(postings, tmp_path / name)
    res = cli("profile", "learn", str(mbox), "-o", str(tmp_path / (name + ".toml")), "--jobs", "1")
    assert res.code == 0, res.err
    text = (tmp_path / (name + ".toml")).read_text()
    return tomllib.loads(text), " ".join(text.replace("\n# ", " ").split())


def test_a_drivers_prefix_with_many_areas_is_not_the_lists(tmp_path, cli):
    areas = ["ptp", "dpll", "sched", "vf", "lag"]
    ice = [Posting(f"ice: {areas[i % 5]}: rework {i}", path=f"drivers/lab/ice/{areas[i % 5]}.c",
                   when=START + timedelta(days=i, hours=1)) for i in range(24)]
    others = [Posting(f"{d}: rework {i}", path=f"drivers/lab/{d}/main.c", when=START + timedelta(days=i, hours=2))
              for i in range(8) for d in ("igc", "i40e")]
    data, text = learn(cli, tmp_path, ice + others, "ice.mbox")
    assert "required_prefixes" not in data
    assert "a required prefix: 'ice:' patches lie under drivers/lab/ice/, one part of where the project's go" in text
    # Near miss: the list's own prefix before every driver's is required.
    listed = [Posting(f"lab: {p.summary}", path=p.path, when=p.when) for p in ice + others]
    data, _ = learn(cli, tmp_path, listed, "lab.mbox")
    assert data["required_prefixes"][0]["prefix"] == "lab:"


def test_a_prefix_most_patches_go_without_is_not_required(tmp_path, cli):
    """`core:` before patches of every driver, but fewer than half of them: the others' own
    prefixes (alpha:, beta:, ...) are not exemptions from a rule most patches do not follow."""
    core = [Posting(f"core: drv{i % 4}: rework {i}", path=f"drivers/lab/drv{i % 4}/main.c",
                    when=START + timedelta(days=i, hours=1)) for i in range(16)]
    own = [Posting(f"{('alpha', 'beta', 'gamma', 'delta')[i % 4]}: tidy {i}", path=f"drivers/lab/drv{i % 4}/util.c",
                   when=START + timedelta(days=i, hours=2)) for i in range(20)]
    data, text = learn(cli, tmp_path, core + own, "core.mbox")
    assert "required_prefixes" not in data
    assert "a required prefix: 'core:' starts 44% of 36 applied patches since 2026-03 where it is used, not most" in text
