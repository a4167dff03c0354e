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
