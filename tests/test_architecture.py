"""The house rules that keep the layers apart, tested on the source (AST), plus regressions of the re-plan.

- symbolic/ imports SymPy only (no numpy, mpmath, torch, flint);
- no module imports upward: symbolic -> numeric/proofs/CLI, numeric -> proofs/CLI, proofs -> CLI;
- no module of the library imports another package's private module (`local2global.X._y` from outside X);
- the torch witness imports nothing from symbolic/ (see test_fullmodel);
- generated files are ordinary files (0666 & ~umask, 0644 with the usual umask), not mkstemp's 0600.
"""
from __future__ import annotations

import ast
import os
from fractions import Fraction
from pathlib import Path

import pytest
import sympy as sp

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = {"symbolic": "local2global.symbolic", "numeric": "local2global.numeric", "proofs": "local2global.proofs",
            "src/local2global": "local2global", "notebooks": "local2global.notebooks"}
#: which top-level layers a layer may import (besides itself); `local2global` alone is the CLI package
ALLOWED = {"symbolic": {"symbolic"}, "numeric": {"symbolic", "numeric"},
           "proofs": {"symbolic", "numeric", "proofs"}, "cli": {"symbolic", "numeric", "proofs", "cli"},
           "notebooks": {"symbolic", "numeric", "proofs"}}


def _modules():
    for folder, pkg in PACKAGES.items():
        for path in sorted((ROOT / folder).rglob("*.py")):
            rel = path.relative_to(ROOT / folder).with_suffix("")
            yield folder, pkg + "." + ".".join(rel.parts), path


def _imports(path: Path):
    tree = ast.parse(path.read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            yield node.module
            for a in node.names:
                yield f"{node.module}.{a.name}"


def _layer(module: str) -> str | None:
    if not module.startswith("local2global") or module == "local2global":
        return None
    parts = module.split(".")
    if len(parts) == 1 or parts[1] in ("cli", "commands", "__main__"):
        return "cli"
    return parts[1] if parts[1] in ALLOWED else "cli"


def test_symbolic_imports_sympy_only():
    banned = ("numpy", "mpmath", "torch", "flint", "gmpy2", "matplotlib", "scipy")
    bad = [(p.name, m) for folder, _, p in _modules() if folder == "symbolic"
           for m in _imports(p) if m.split(".")[0] in banned]
    assert not bad, bad


def test_no_module_imports_upward():
    bad = []
    for folder, mod, path in _modules():
        own = "cli" if folder == "src/local2global" else folder
        for m in _imports(path):
            layer = _layer(m)
            if layer is not None and layer not in ALLOWED[own]:
                bad.append((mod, m))
    assert not bad, bad


def test_no_module_imports_another_packages_private_module():
    bad = []
    for folder, mod, path in _modules():
        for m in _imports(path):
            parts = m.split(".")
            for i, part in enumerate(parts):
                if part.startswith("_") and not part.startswith("__"):
                    owner = ".".join(parts[:i])          # the package the private module belongs to
                    if not mod.startswith(owner + ".") and mod != owner:
                        bad.append((mod, m))
                    break
    assert not bad, "\n".join(map(str, bad))


def test_structure_of_a_numeric_chain_does_not_recurse():
    """Regression: `symbolic.attention._structure(MarkovChain(1/3, 1/4))` used to recurse forever."""
    from local2global.symbolic import MarkovChain, canonical_model, structure
    chain = MarkovChain(sp.Rational(1, 3), sp.Rational(1, 4))
    st = structure(chain)
    assert sp.simplify(st["A_star"] - sp.log(sp.Rational(2, 3) * sp.Rational(3, 4) / (sp.Rational(1, 3) * sp.Rational(1, 4)))) == 0
    names = [cs.name for cs in canonical_model(True, chain).critical_sets()]
    assert names == ["Theta_star", "Theta_min", "Theta_max", "Theta_sad", "Theta_station"]


def test_the_attention_model_at_a_zero_is_the_model_without_attention():
    from local2global.symbolic import canonical_model, symbols as S
    m, ma = canonical_model(), canonical_model(True)
    assert type(m) is type(ma)
    for name in ("A", "offset"):
        assert sp.expand(getattr(ma, name).subs(S.a, 0) - getattr(m, name)) == 0
    assert sp.expand(ma.energy.subs(S.a, 0) - m.energy) == 0


def test_generated_files_are_ordinary_files(tmp_path):
    from local2global.numeric.infra.atomic import atomic_write
    umask = os.umask(0o022)
    try:
        for name, data in (("a.txt", "text"), ("b.png", b"\x89PNG")):
            path = atomic_write(tmp_path / name, data)
            assert (path.stat().st_mode & 0o777) == 0o644, oct(path.stat().st_mode)
    finally:
        os.umask(umask)


def test_numeric_chain_is_validated_once_and_knows_its_regime():
    from local2global.numeric.chain import NumericChain
    c = NumericChain("9/10", Fraction(1, 2))
    assert c.regime == 1 and NumericChain.of(c) is c
    assert NumericChain("1/10", "1/10").regime == -1 and NumericChain("1/2", "1/2").regime == 0
    for p, q in (("0", "1/2"), ("1", "1/2"), ("3/2", "1/2")):
        with pytest.raises(ValueError):
            NumericChain(p, q)
    with pytest.raises(TypeError):
        NumericChain(0.5, 0.5)


def test_every_package_folder_is_listed_in_pyproject_so_a_built_wheel_has_it():
    """A package folder missing from `[tool.setuptools] packages` works in the editable install and is absent
    from the wheel that CI builds (it happened to proofs/outputs/document)."""
    import tomllib
    root = Path(__file__).resolve().parent.parent
    cfg = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]
    listed, dirs = set(cfg["packages"]), cfg["package-dir"]
    found = set()
    for name, folder in dirs.items():
        for init in (root / folder).rglob("__init__.py"):
            rel = init.parent.relative_to(root / folder).parts
            found.add(".".join((name,) + rel))
    assert sorted(found - listed) == []


def test_gaussian_starts_of_the_flows_are_drawn_in_one_place():
    """One documented stream of Gaussian starts θ_0 ~ N(0, σ^2 I) (numeric/dynamics/initialisation.py): no other
    module of the library draws normals with the standard library or numpy (the torch training draws its own
    weights, `torch.randn`, which are not starts of the reduced flows)."""
    import re
    pattern = re.compile(r"\.gauss\(|\.normal\(|normalvariate|standard_normal")
    found = sorted(str(p.relative_to(ROOT)) for _, _, p in _modules() if pattern.search(p.read_text()))
    assert found == ["numeric/dynamics/initialisation.py"], found


def test_every_precision_context_of_the_library_is_precision_working():
    """One precision policy (numeric/precision.py): the library sets mpmath's precision only through
    `working(dps, extra=...)`, never with its own `mp.workdps(dps + ...)` or an assignment to `mp.dps`
    (the notebooks, written for a reader, use mpmath's own words)."""
    found = []
    for folder, _, path in _modules():
        if folder == "notebooks" or path.name == "precision.py":
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            call = isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in (
                "workdps", "workprec", "extradps", "extraprec")
            assign = isinstance(node, (ast.Assign, ast.AugAssign)) and any(
                isinstance(t, ast.Attribute) and t.attr in ("dps", "prec") and ast.unparse(t.value) in ("mp", "mp.mp")
                for t in (node.targets if isinstance(node, ast.Assign) else [node.target]))
            if call or assign:
                found.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert found == [], found


# --- import circles, including the imports inside functions that hide them ---------------------------------

def _module_names() -> dict[str, Path]:
    return {mod.removesuffix(".__init__"): path for _, mod, path in _modules()}


def _local_imports(mod: str, path: Path, known: dict) -> set[str]:
    """The modules of the package that `mod` imports anywhere in its source (top level or inside functions):
    `import a.b`, `from a import b` (the module a.b when it is one, else a), relative imports resolved."""
    pkg = mod if path.name == "__init__.py" else mod.rpartition(".")[0]
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = pkg.split(".")
                parent = parent[: len(parent) - (node.level - 1)]
                base = ".".join(parent + ([base] if base else []))
            names = [f"{base}.{a.name}" if f"{base}.{a.name}" in known else base for a in node.names]
        else:
            continue
        for n in names:
            while n and n not in known:
                n = n.rpartition(".")[0]
            if n and n != mod:
                out.add(n)
    return out


def import_circles(known: dict | None = None) -> list[list[str]]:
    """The import circles among the package's modules (strongly connected components of more than one
    module), a package's `__init__` counting as the package. Tarjan's algorithm, in sorted order."""
    known = known or _module_names()
    graph = {m: sorted(_local_imports(m, p, known)) for m, p in known.items()}
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    import sys
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10_000))
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return sorted(out)


def test_the_circle_finder_finds_a_planted_circle(tmp_path):
    a, b, c = tmp_path / "a.py", tmp_path / "b.py", tmp_path / "c.py"
    a.write_text("import pkg.b\n")
    b.write_text("def f():\n    from pkg import c\n")          # hidden inside a function
    c.write_text("from . import a\n")
    known = {"pkg.a": a, "pkg.b": b, "pkg.c": c}
    assert import_circles(known) == [["pkg.a", "pkg.b", "pkg.c"]]
    c.write_text("x = 1\n")
    assert import_circles(known) == []


def test_no_import_circles():
    circles = import_circles()
    assert circles == [], "\n".join(" <-> ".join(c) for c in circles)


def test_the_circle_test_fails_on_a_circle_planted_in_the_package(tmp_path):
    """The package's own graph with one module replaced by a copy that imports, inside a function, a module that
    imports it: the circle test above would fail on it (the two modules the label parser joined, issue 30)."""
    known = _module_names()
    labels = known["local2global.proofs.labels"]
    planted = tmp_path / "labels.py"
    planted.write_text(labels.read_text() + "\n\ndef _planted():\n    from local2global.proofs import selection\n")
    assert import_circles({**known, "local2global.proofs.labels": planted}) == [
        ["local2global.proofs.labels", "local2global.proofs.selection"]]
