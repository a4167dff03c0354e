"""A verified on-disk cache of derivations: the SymPy results of the expensive derivation functions.

A derivation is a pure function of its arguments and of the code of `symbolic/`, so its result is stored under
a key made of the function's name, the repr of its arguments, the SHA-256 of every source file of this package
and the SymPy version. Each file holds its own digest: a truncated, edited or foreign file is recomputed, never
used; a stale one (other code, other SymPy) has another key and is simply not found. Results are identical with
and without the cache (a pickled SymPy expression unpickles to an equal, identically printed expression), which
a test holds to. Set L2G_NO_DERIVATION_CACHE=1 to bypass it; the folder is $L2G_CACHE/derivations, by default
the user's cache folder ($XDG_CACHE_HOME or ~/.cache, then local2global/derivations), never the working
directory: a command that writes nothing (`l2g check --only ...`, `l2g eval`) leaves no folder behind.

An installed package also carries the derivations themselves: building the wheel runs `_prederive.derive_all`
(setup.py) and ships its files in `_derived/` next to this module, read-only. They are the same digest-checked
files under the same keys, so they are used only by the very code and SymPy version that derived them (a wheel
built with another SymPy than the one it runs with simply misses, and derives into the user's cache); a first
command after `pip install` therefore starts from derived results instead of deriving for seconds. An editable
install has no `_derived/` folder. Only the standard library is used (symbolic/ imports SymPy only).
"""
from __future__ import annotations

import functools
import hashlib
import inspect
import os
import pickle
import tempfile
from pathlib import Path

import sympy as sp

_HERE = Path(__file__).resolve().parent
#: the derivations shipped in the wheel (see the module docstring); absent from a source tree
SHIPPED = _HERE / "_derived"
#: every function decorated with `derivation`, in definition order (what `_prederive.derive_all` covers)
DERIVATIONS: list = []


@functools.lru_cache(maxsize=None)
def code_hash() -> str:
    """SHA-256 over the sources of symbolic/ and the SymPy version."""
    h = hashlib.sha256(sp.__version__.encode())
    for path in sorted(_HERE.glob("*.py")):
        h.update(path.name.encode())
        h.update(path.read_bytes())
    return h.hexdigest()


def cache_folder(kind: str) -> Path:
    """$L2G_CACHE/<kind>, by default the user's cache folder ($XDG_CACHE_HOME or ~/.cache)/local2global/<kind>: the
    one rule for the location of every cache of the package (derivations and compiled code here, training runs and
    basin maps through `numeric.infra.cache`), never the working directory. Only the standard library."""
    if os.environ.get("L2G_CACHE"):
        return Path(os.environ["L2G_CACHE"]) / kind
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "local2global" / kind


def _folder(kind: str = "derivations") -> Path | None:
    """`cache_folder(kind)`; None when L2G_NO_DERIVATION_CACHE is set (the derivations and the compiled code)."""
    if os.environ.get("L2G_NO_DERIVATION_CACHE"):
        return None
    return cache_folder(kind)


def verified_file(kind: str, name: str) -> tuple[Path | None, object]:
    """(path, value) of the entry `name` of the cache folder `kind` (value None on a miss or an unverified
    file; path None when caching is off): the same digest-checked files as the derivations."""
    folder = _folder(kind)
    if folder is None:
        return None, None
    path = folder / name
    return path, _load(path)


def store_verified(path: Path | None, value) -> None:
    """Store `value` at `path` (from `verified_file`), atomically and digest-first; failures are ignored."""
    if path is not None:
        _store(path, value)


def _load(path: Path):
    try:
        blob = path.read_bytes()
    except OSError:
        return None
    digest, payload = blob[:64], blob[64:]
    if hashlib.sha256(payload).hexdigest().encode() != digest:
        return None                                   # truncated, edited or not ours: recompute
    try:
        return pickle.loads(payload)
    except Exception:                                 # noqa: BLE001 - any unreadable payload is a miss
        return None


def _store(path: Path, value) -> None:
    try:
        payload = pickle.dumps(value, protocol=4)
    except Exception:                                 # noqa: BLE001 - an unpicklable result is just not cached
        return
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix="." + path.name + ".", suffix=".tmp")
        umask = os.umask(0)
        os.umask(umask)
        os.fchmod(fd, 0o666 & ~umask)
        with os.fdopen(fd, "wb") as fh:
            fh.write(hashlib.sha256(payload).hexdigest().encode() + payload)
        os.replace(tmp, path)
    except OSError:
        pass                                          # a read-only or missing build folder: no cache, same results


def derivation(fn):
    """Memoise a derivation in memory and on disk (see the module docstring); arguments must have a stable repr.

    Calls are keyed by their arguments *with the defaults filled in*: `structure()` and `structure(CHAIN)` are
    the same derivation, computed (and stored) once."""
    sig = inspect.signature(fn)
    memo: dict = {}

    @functools.wraps(fn)
    def wrapper(*args, **kw):
        try:
            bound = sig.bind(*args, **kw)
        except TypeError:
            return fn(*args, **kw)                    # the function reports its own bad call
        bound.apply_defaults()
        args, kw = bound.args, bound.kwargs
        folder = _folder()
        if folder is None:
            return fn(*args, **kw)                    # cache off: derived afresh, nothing read or kept by repr
        ident = repr((fn.__module__, fn.__qualname__, args, sorted(kw.items()), code_hash()))
        path = folder / f"{fn.__name__}-{hashlib.sha256(ident.encode()).hexdigest()[:32]}.pickle"
        if path not in memo:
            value = _load(path)
            if value is None:
                value = _load(SHIPPED / path.name)
            if value is None:
                value = fn(*args, **kw)
                _store(path, value)
            memo[path] = value
        return memo[path]
    cached = functools.lru_cache(maxsize=None)(wrapper)
    DERIVATIONS.append(cached)
    return cached
