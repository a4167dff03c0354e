"""Compile derived SymPy expressions to mpmath callables (cached), with exact-input helpers."""
from __future__ import annotations

import hashlib
import inspect
import linecache
import pickle
from fractions import Fraction
from functools import lru_cache

import mpmath as mp
import sympy as sp


def compile_mp(expr: sp.Basic, args: tuple[sp.Symbol, ...], cse: bool = False):
    """lambdify(args, expr) for mpmath (matrices give mpmath matrices); precision is the caller's
    (mp.workdps): the compiled code holds no float literals, only exact rationals of the expression."""
    if isinstance(expr, sp.MatrixBase):
        expr = sp.ImmutableMatrix(expr)
    return _compile(expr, tuple(args), cse)


@lru_cache(maxsize=None)
def _compile(expr, args, cse):
    # cse=True (common subexpressions computed once) makes the large derived Hessians several times
    # faster to sample, but it may regroup terms so that an exact 0 appears in a denominator where the
    # original expression has none (seen at |A| = 1e4): the evaluation paths keep it off.
    path, source = _cached_source(expr, args, cse)
    if source is not None:
        fn = _from_source(source, args, path.name)
        if fn is not None:
            return fn
    fn = sp.lambdify(args, expr, modules="mpmath", cse=cse, **_NO_DOCSTRING)
    source = _source_of(fn, args) if path is not None else None
    if source is not None:
        from local2global.symbolic import store_verified
        store_verified(path, source)
    return fn


# -- the code lambdify writes, cached on disk ---------------------------------------------------------
# Printing an expression to Python (and to the docstring lambdify attaches) is most of what compiling costs:
# the generated source is kept in $L2G_CACHE/compiled, under the SHA-256 of the pickled (expr, args, cse) and
# the SymPy version, in the digest-checked files of the derivation cache. A hit runs the very source lambdify
# wrote, in a copy of the namespace lambdify gives every mpmath function, so results are identical (a test
# holds to it); a function whose namespace holds anything else is not cached.

#: printing the expression into the docstring lambdify attaches is a third of a mid-sized compile and nothing reads
#: it (SymPy >= 1.13 can leave it out; the code it writes is the same)
_NO_DOCSTRING = {"docstring_limit": 0} if "docstring_limit" in inspect.signature(sp.lambdify).parameters else {}


@lru_cache(maxsize=1)
def _namespace() -> dict:
    return dict(sp.lambdify((), sp.Integer(0), modules="mpmath").__globals__)


def _cached_source(expr, args, cse):
    from local2global.symbolic import verified_file
    try:
        blob = pickle.dumps((expr, args, bool(cse)), protocol=4)
    except Exception:                                  # noqa: BLE001 - an unpicklable expression is not cached
        return None, None
    # a Dummy's pickle carries its per-process index: such keys would never hit again, only pile up. A pickled
    # Dummy names its class (SymPy has no subclass of it), so the bytes tell, without a walk of the tree (atoms)
    if b"Dummy" in blob:
        return None, None
    key = hashlib.sha256(sp.__version__.encode() + b"\0" + blob).hexdigest()[:40]
    path, source = verified_file("compiled", f"{key}.src")
    return path, source if isinstance(source, str) else None


def _arg_names(args) -> dict:
    # lambdify also binds each argument's name to the symbol (shadowed by the parameter of the same name)
    return {str(a): a for a in args}


def _source_of(fn, args) -> str | None:
    """The source lambdify wrote for fn, if fn needs nothing beyond the common mpmath namespace.

    A global named like a parameter is never read (the parameter shadows it in the function's body), whatever
    lambdify bound to it: the argument symbol, an equal symbol unpickled from the derivation cache, or mpmath's
    constant e for an argument called e."""
    ns, params = _namespace(), set(_arg_names(args))
    if any(k != "__builtins__" and k not in params and (k not in ns or ns[k] is not v)
           for k, v in fn.__globals__.items()):
        return None
    lines = linecache.cache.get(fn.__code__.co_filename)
    return "".join(lines[2]) if lines else None


def _from_source(source: str, args, name: str):
    ns = {**_namespace(), **_arg_names(args)}
    scope: dict = {}
    # the source is kept in linecache under a name of its own, as lambdify keeps the code it writes: tracebacks
    # show it, and `mpfr.specialise` reads it back
    filename = f"<lambdifygenerated-cached-{name.split('.')[0][:16]}>"
    try:
        exec(compile(source, filename, "exec"), ns, scope)
    except Exception:                                  # noqa: BLE001 - an unusable entry is a miss
        return None
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    return scope.get("_lambdifygenerated")


def mpf_exact(x) -> mp.mpf:
    """An exact input (Fraction, int, sympy Rational, decimal string) as an mpf at the current precision.

    Floats are refused: a float literal would carry binary noise into a 50-digit computation.
    """
    if isinstance(x, mp.mpf):
        return x
    if isinstance(x, float):
        raise TypeError("pass exact numbers (Fraction, int, str, sympy.Rational), not float")
    if isinstance(x, str):
        x = Fraction(x)
    if isinstance(x, sp.Rational):
        x = Fraction(int(x.p), int(x.q))
    if isinstance(x, int):
        return mp.mpf(x)
    if isinstance(x, Fraction):
        return mp.mpf(x.numerator) / x.denominator
    raise TypeError(f"unsupported exact number {x!r}")
