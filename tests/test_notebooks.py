"""The walkthrough notebooks run top to bottom (jupytext -> nbclient, python3 kernel, per-cell timeout).

Executed copies go to build/notebooks/ (what `l2g all` also produces). Needs a `python3` kernel spec:
ipykernel provides it when installed in the same environment (else `python -m ipykernel install --user`).
"""
import ast
from pathlib import Path

import pytest

from local2global.proofs.outputs.notebooks import NOTEBOOK_DIR, execute, sources

OUT = Path(__file__).resolve().parent.parent / "build" / "notebooks"
NOTEBOOKS = sources()


def test_the_five_walkthroughs_exist():
    names = [p.name for p in NOTEBOOKS]
    for prefix in ("01_", "02_", "03_", "04_", "05_"):
        assert any(n.startswith(prefix) for n in names), prefix


@pytest.mark.parametrize("source", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_holds_no_reusable_logic(source):
    """Thin notebooks: no function or class is defined in a notebook (logic lives in the package)."""
    tree = ast.parse(source.read_text())
    defined = [n.name for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.ClassDef))]
    assert defined == []
    assert "local2global" in source.read_text()


@pytest.mark.slow
@pytest.mark.parametrize("source", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_runs_top_to_bottom(source):
    run = execute(source, OUT, timeout=300)
    import nbformat
    nb = nbformat.read(run.output, as_version=4)
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert run.cells == len(code) > 0
    assert all(c.execution_count == i + 1 for i, c in enumerate(code))      # in order, none skipped
    outputs = [o for c in code for o in c.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    assert sum(o.output_type in ("stream", "display_data", "execute_result") for o in outputs) >= 2
    assert NOTEBOOK_DIR == source.parent
