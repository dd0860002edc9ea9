"""Data flows one way: mail -> sources -> model -> context -> rules -> review -> render ->
triage/learn -> commands. No module imports from a stage above its own, lazily or not
(benchmarks/layer_climbs.py holds the stage of every part of the package and counts the climbs),
and no modules import one another round a circle."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

import layer_climbs  # noqa: E402


def test_no_module_imports_from_a_higher_stage():
    assert layer_climbs.static_climbs() == []


def test_no_modules_import_each_other_round_a_circle():
    assert layer_climbs.import_circles() == []


def test_the_check_finds_a_circle(tmp_path, monkeypatch):
    """Hit and near miss: a type-only import back to the importer closes a circle; a chain does not."""
    package = tmp_path / "reviewtool"
    (package / "learn").mkdir(parents=True)
    for init in (package / "__init__.py", package / "learn" / "__init__.py"):
        init.write_text("")
    (package / "learn" / "trees.py").write_text("def f():\n    from .paths import g\n    return g\n")
    (package / "learn" / "paths.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .trees import Project\ng = 1\n")
    (package / "learn" / "run.py").write_text("from .trees import f\n")
    monkeypatch.setattr(layer_climbs, "ROOT", tmp_path)
    monkeypatch.setattr(layer_climbs, "PACKAGE", package)
    assert layer_climbs.import_circles() == [["reviewtool.learn.paths", "reviewtool.learn.trees"]]
    (package / "learn" / "paths.py").write_text("g = 1\n")
    assert layer_climbs.import_circles() == []


def test_every_part_of_the_package_has_a_stage():
    for path in (ROOT / "reviewtool").rglob("*.py"):
        layer_climbs.stage_of(layer_climbs.module_name(path))  # KeyError names a part without one


def test_mail_and_sources_stand_on_nothing_above_them():
    mail = ROOT / "reviewtool" / "mail"
    sources = ROOT / "reviewtool" / "sources"
    for folder, below in ((mail, {"mail"}), (sources, {"mail", "sources"})):
        for path in folder.rglob("*.py"):
            for target, line in layer_climbs.imports(path):
                top = target.split(".")[1] if "." in target else ""
                assert top in below or layer_climbs.STAGES[top] == 0, f"{path.name}:{line} imports {target}"


def test_the_check_finds_a_climb(tmp_path, monkeypatch):
    """Near miss and hit: a lazy import of model/ from mail/ is a climb; one of mail/ from model/ is not."""
    package = tmp_path / "reviewtool"
    for part in ("mail", "model"):
        (package / part).mkdir(parents=True)
        (package / part / "__init__.py").write_text("")
    (package / "__init__.py").write_text("")
    (package / "mail" / "up.py").write_text("def f():\n    from ..model.series import Series\n    return Series\n")
    (package / "model" / "series.py").write_text("from ..mail import up\nSeries = object\n")
    monkeypatch.setattr(layer_climbs, "ROOT", tmp_path)
    monkeypatch.setattr(layer_climbs, "PACKAGE", package)
    assert layer_climbs.static_climbs() == ["reviewtool/mail/up.py:2 reviewtool.mail.up -> reviewtool.model.series"]


def test_a_part_without_a_stage_is_refused():
    with pytest.raises(KeyError, match="newpart"):
        layer_climbs.stage_of("reviewtool.newpart.x")
