"""The on-disk cache of derivations: hits give the same results as a fresh derivation, and a corrupted,
edited or truncated file is recomputed, never used."""
from __future__ import annotations

import pickle

import pytest
import sympy as sp

from local2global.symbolic import _cache


def _counter():
    calls = []

    @_cache.derivation
    def cube(n):
        calls.append(n)
        return sp.Integer(n) ** 3 + sp.Symbol("x")
    return cube, calls


def test_a_cached_derivation_is_reused_and_equal(tmp_path, monkeypatch):
    monkeypatch.setenv("L2G_CACHE", str(tmp_path))
    monkeypatch.delenv("L2G_NO_DERIVATION_CACHE", raising=False)
    f, calls = _counter()
    first = f(3)
    g, calls2 = _counter()                      # a fresh process would have an empty lru_cache
    assert g(3) == first and calls == [3] and calls2 == []
    assert sp.srepr(g(3)) == sp.srepr(first)


def test_a_call_with_its_default_arguments_spelled_out_is_the_same_derivation(tmp_path, monkeypatch):
    """structure() and structure(CHAIN) are one derivation: one computation, one file."""
    monkeypatch.setenv("L2G_CACHE", str(tmp_path))
    monkeypatch.delenv("L2G_NO_DERIVATION_CACHE", raising=False)
    calls = []

    @_cache.derivation
    def power(n, k=2):
        calls.append((n, k))
        return sp.Symbol("x") ** (n * k)
    assert power(3) is power(3, 2) is power(n=3, k=2) and calls == [(3, 2)]
    assert power(3, 3) != power(3) and calls == [(3, 2), (3, 3)]
    assert len(list((tmp_path / "derivations").glob("power-*.pickle"))) == 2


def test_a_corrupted_or_truncated_file_is_recomputed(tmp_path, monkeypatch):
    monkeypatch.setenv("L2G_CACHE", str(tmp_path))
    monkeypatch.delenv("L2G_NO_DERIVATION_CACHE", raising=False)
    f, _ = _counter()
    value = f(4)
    (path,) = (tmp_path / "derivations").glob("cube-*.pickle")
    blob = path.read_bytes()
    for bad in (blob[:64] + pickle.dumps(sp.Integer(0)), blob[:30], b"not a pickle"):
        path.write_bytes(bad)
        g, calls = _counter()
        assert g(4) == value and calls == [4]


def test_the_model_is_the_same_with_and_without_the_cache(tmp_path, monkeypatch):
    from local2global.symbolic import model as M
    monkeypatch.setenv("L2G_CACHE", str(tmp_path))
    monkeypatch.delenv("L2G_NO_DERIVATION_CACHE", raising=False)
    with_cache = [str(cs) for cs in M._critical_sets.__wrapped__(M.canonical_model(), False)]
    monkeypatch.setenv("L2G_NO_DERIVATION_CACHE", "1")
    without = [str(cs) for cs in M._critical_sets.__wrapped__(M.canonical_model(), False)]
    assert with_cache == without


# --- the compiled-code cache of numeric.evaluate.lambdify (same files, folder "compiled") -----------------

def _exprs():
    x, y = sp.symbols("x y", real=True)
    e = sp.exp(x) * sp.log(1 + y**2) / 3 + sp.Abs(x - y) + sp.sqrt(2) * x + sp.sign(x) * sp.Rational(5, 7)
    return (x, y), [(e, False), (sp.Matrix([[e, x], [y**2, 1 / (1 + x**2)]]), False), (e, True)]


def _values(fns):
    import mpmath as mp
    with mp.workdps(50):
        return [str(f(mp.mpf(1) / 3, -mp.mpf(2) / 7)) for f in fns]


def test_compiled_code_comes_back_from_the_cache_and_computes_the_same(tmp_path, monkeypatch):
    from local2global.numeric.evaluate import lambdify as L
    monkeypatch.setenv("L2G_CACHE", str(tmp_path))
    monkeypatch.delenv("L2G_NO_DERIVATION_CACHE", raising=False)
    args, exprs = _exprs()
    L._compile.cache_clear()
    fresh = [L.compile_mp(ex, args, cse=c) for ex, c in exprs]
    assert len(list((tmp_path / "compiled").glob("*.src"))) == len(exprs)
    assert all(not f.__code__.co_filename.startswith("<lambdifygenerated-cached") for f in fresh)
    L._compile.cache_clear()                    # a new process: only the files remain
    cached = [L.compile_mp(ex, args, cse=c) for ex, c in exprs]
    assert all(f.__code__.co_filename.startswith("<lambdifygenerated-cached-") for f in cached)
    assert _values(cached) == _values(fresh)
    monkeypatch.setenv("L2G_NO_DERIVATION_CACHE", "1")
    L._compile.cache_clear()
    assert _values([L.compile_mp(ex, args, cse=c) for ex, c in exprs]) == _values(fresh)
    L._compile.cache_clear()


def test_a_corrupted_compiled_entry_is_recompiled(tmp_path, monkeypatch):
    from local2global.numeric.evaluate import lambdify as L
    monkeypatch.setenv("L2G_CACHE", str(tmp_path))
    monkeypatch.delenv("L2G_NO_DERIVATION_CACHE", raising=False)
    args, [(ex, _), *_] = _exprs()
    L._compile.cache_clear()
    want = _values([L.compile_mp(ex, args)])
    (path,) = (tmp_path / "compiled").glob("*.src")
    blob = path.read_bytes()
    # an edited payload (digest no longer matches), a truncated file, a stored non-string
    for bad in (blob[:64] + blob[64:].replace(b"exp", b"log"), blob[:50], blob[:64] + pickle.dumps(3)):
        path.write_bytes(bad)
        L._compile.cache_clear()
        f = L.compile_mp(ex, args)
        assert not f.__code__.co_filename.startswith("<lambdifygenerated-cached") and _values([f]) == want
    L._compile.cache_clear()


def test_code_needing_more_than_the_mpmath_namespace_or_with_dummies_is_not_cached(tmp_path, monkeypatch):
    from local2global.numeric.evaluate import lambdify as L
    monkeypatch.setenv("L2G_CACHE", str(tmp_path))
    monkeypatch.delenv("L2G_NO_DERIVATION_CACHE", raising=False)
    x = sp.Symbol("x")
    f = sp.lambdify((x,), sp.Function("h")(x), modules=[{"h": lambda t: 2 * t}, "mpmath"])
    assert L._source_of(f, (x,)) is None
    d = sp.Dummy("d")
    L._compile.cache_clear()
    L.compile_mp(d + 1, (d,))
    assert not (tmp_path / "compiled").exists()
    L._compile.cache_clear()


# --- the derivations shipped in the wheel (symbolic/_derived, written by setup.py) ---------------------------

def test_a_shipped_derivation_is_used_read_only_when_the_users_cache_misses(tmp_path, monkeypatch):
    """A file in the shipped folder under a derivation's key is used as is (nothing derived, nothing written to the
    user's cache); an unverified shipped file is a miss; L2G_NO_DERIVATION_CACHE ignores the shipped folder too."""
    user, shipped = tmp_path / "user", tmp_path / "shipped"
    monkeypatch.setenv("L2G_CACHE", str(user))
    monkeypatch.delenv("L2G_NO_DERIVATION_CACHE", raising=False)
    f, calls = _counter()
    f(5)
    (made,) = (user / "derivations").glob("cube-*.pickle")
    shipped.mkdir()
    blob = made.read_bytes()
    # the shipped entry holds another value than a derivation would give: seeing it proves it was read
    payload = pickle.dumps(sp.Integer(-1))
    import hashlib
    (shipped / made.name).write_bytes(hashlib.sha256(payload).hexdigest().encode() + payload)
    made.unlink()
    monkeypatch.setattr(_cache, "SHIPPED", shipped)
    g, calls = _counter()
    assert g(5) == -1 and calls == [] and not list((user / "derivations").glob("*.pickle"))
    (shipped / made.name).write_bytes(blob[:40])                       # truncated: derived and stored instead
    g, calls = _counter()
    assert g(5) == 125 + sp.Symbol("x") and calls == [5] and list((user / "derivations").glob("*.pickle"))
    monkeypatch.setenv("L2G_NO_DERIVATION_CACHE", "1")
    (shipped / made.name).write_bytes(hashlib.sha256(payload).hexdigest().encode() + payload)
    g, calls = _counter()
    assert g(5) == 125 + sp.Symbol("x") and calls == [5]


@pytest.mark.slow
def test_the_install_time_derivation_covers_every_derivation_function(tmp_path):
    """`_prederive` (what setup.py ships) leaves at least one result of every function decorated `derivation`, so
    no derivation is left for a user's first command."""
    import subprocess
    import sys
    done = subprocess.run([sys.executable, "-m", "local2global.symbolic._prederive", str(tmp_path / "out")],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    names = {p.name.rsplit("-", 1)[0] for p in (tmp_path / "out").glob("*.pickle")}
    import importlib
    import pkgutil
    import local2global.symbolic as S
    for mod in pkgutil.iter_modules(S.__path__):
        importlib.import_module(f"{S.__name__}.{mod.name}")       # every module's derivations are registered
    ours = {fn.__name__ for fn in _cache.DERIVATIONS if fn.__module__.startswith(S.__name__ + ".")}
    assert len(ours) >= 20 and names == ours


@pytest.mark.slow
def test_an_installed_package_starts_from_its_shipped_derivations(tmp_path):
    """The wheel (as CI installs it) carries `_derived/`, every file verified, and a first `l2g eval` with an
    empty user cache derives nothing (no file appears in $L2G_CACHE/derivations)."""
    import os
    import subprocess
    import sys
    from pathlib import Path
    source_tree = Path(__file__).resolve().parents[1] / "symbolic"
    if Path(_cache.__file__).resolve().parent == source_tree:
        pytest.skip("editable install: the source tree has no shipped derivations (the wheel has)")
    files = sorted(_cache.SHIPPED.glob("*.pickle"))
    assert files and all(_cache._load(f) is not None for f in files)
    env = dict(os.environ, L2G_CACHE=str(tmp_path))
    env.pop("L2G_NO_DERIVATION_CACHE", None)
    done = subprocess.run([sys.executable, "-m", "local2global", "eval", "--p", "0.3", "--q", "0.4", "--e", "0.5",
                           "--w", "0.2"], capture_output=True, text=True, env=env, timeout=600)
    assert done.returncode == 0, done.stderr
    assert not list((tmp_path / "derivations").glob("*.pickle"))
