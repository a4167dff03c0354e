"""The on-disk cache of derivations: hits give the same results as a fresh derivation, and a corrupted,
edited or truncated file is recomputed, never used."""
from __future__ import annotations

import pickle

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
    assert all(f.__code__.co_filename != "<lambdifygenerated-cached>" for f in fresh)
    L._compile.cache_clear()                    # a new process: only the files remain
    cached = [L.compile_mp(ex, args, cse=c) for ex, c in exprs]
    assert all(f.__code__.co_filename == "<lambdifygenerated-cached>" for f in cached)
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
        assert f.__code__.co_filename != "<lambdifygenerated-cached>" and _values([f]) == want
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
