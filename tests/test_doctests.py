"""The examples in the docstrings run and print what they say: every module of the package whose source holds a
`>>>` example is found here (no list to keep up to date) and run by `doctest`."""
from __future__ import annotations

import doctest
import importlib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
#: source folder -> the package it installs as (pyproject.toml's package-dir)
PACKAGES = {"symbolic": "local2global.symbolic", "numeric": "local2global.numeric", "proofs": "local2global.proofs",
            "src/local2global": "local2global", "notebooks": "local2global.notebooks"}
#: modules whose examples are known to fail, with the reason; strict, so a fixed example fails until it is removed
KNOWN_FAILING: dict[str, str] = {}


def modules_with_examples() -> list[str]:
    found = []
    for folder, package in PACKAGES.items():
        for path in sorted((ROOT / folder).rglob("*.py")):
            if ">>> " in path.read_text(encoding="utf-8"):
                rel = path.relative_to(ROOT / folder).with_suffix("").parts
                found.append(".".join((package,) + tuple(p for p in rel if p != "__init__")))
    return found


MODULES = modules_with_examples()


def test_the_finder_finds_the_documented_examples():
    assert {"local2global.symbolic.model", "local2global.symbolic.latex"} <= set(MODULES)


@pytest.mark.parametrize("name", [pytest.param(m, marks=pytest.mark.xfail(reason=KNOWN_FAILING[m], strict=True))
                                  if m in KNOWN_FAILING else m for m in MODULES])
def test_the_docstring_examples_print_what_they_show(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE, report=True)
    assert result.attempted > 0, f"{name} has '>>> ' in its source but no example doctest can run"
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples of {name} fail (see the output above)"
