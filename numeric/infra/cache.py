"""The on-disk caches of the package: where each lives, and a JSON cache that is never used corrupted or stale.

Every cache lives in `cache_folder(kind)` = $L2G_CACHE/<kind> (by default the user's cache folder, never the
working directory; the rule is `symbolic.cache_folder`, which the derivation cache reads too), and each kind has
one owner, the module that reads and writes it (`KINDS`).

`cached_json(folder, key, code, compute)` returns `compute()` (a JSON-able value) or the stored copy of
an earlier call. The file name is a hash of (key, code); inside, the file repeats both and carries the
sha256 of its payload, so a truncated or edited file, a file written by other code (`code` changed) or
for other parameters is detected, recomputed and rewritten (atomically: a crash leaves the old file or
the new one). Both paths return the value as it reads back from JSON, so a first run and a cached run
give identical results.
"""
from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any, Callable, Iterable

from local2global.symbolic import cache_folder

#: the caches, each with its one owner (the module that reads and writes it) and what it holds
KINDS = {
    "derivations": "symbolic._cache: the SymPy results of the derivations (digest-checked pickles)",
    "compiled": "numeric.evaluate.lambdify: the Python source generated for the derived expressions",
    "fullmodel": "numeric.transformer.experiments: the training runs of Figs. 3, 4, 6 (`cached_json`)",
    "weight_tying": "numeric.transformer.weight_tying: the tied and untied training runs (`cached_json`)",
    "sweep": "numeric.transformer.sweep: the points and manifests of `l2g sweep` (`cached_json`)",
    "attention": "proofs.outputs.figures.fig_attention: the basin slices with attention (`cached_json`)",
    "coq": "proofs.kernel.compile: whether each Coq certificate compiled, by the hash of its text and of coqc",
}

__all__ = ["KINDS", "cache_folder", "cached_json", "source_hash"]


def source_hash(files: Iterable[Path], extra: Iterable[str] = ()) -> str:
    """A short hash of the code that determines a cached result: the bytes of `files` and `extra` strings."""
    h = hashlib.sha256()
    for f in sorted(Path(x) for x in files):
        h.update(f.name.encode())
        h.update(f.read_bytes())
    for s in extra:
        h.update(s.encode())
    return h.hexdigest()[:16]


def code_digest(*sources, extra: Iterable[str] = ()) -> str:
    """A short hash of code by what it does: each source (a file path, or a function or class) parsed, its
    docstrings dropped, and its syntax tree hashed, so that editing a docstring or a comment leaves the digest (and
    the hours of training cached under it) alone, while any change to the code itself changes it."""
    import ast
    import inspect
    import textwrap

    h = hashlib.sha256()
    for src in sources:
        text = Path(src).read_text(encoding="utf-8") if isinstance(src, (str, Path)) else \
            textwrap.dedent(inspect.getsource(src))
        tree = ast.parse(text)
        for node in ast.walk(tree):
            body = getattr(node, "body", None)
            if (isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and body
                    and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant)
                    and isinstance(body[0].value.value, str)):
                node.body = body[1:] or [ast.Pass()]
        h.update(ast.dump(tree, include_attributes=False).encode())
    for s in extra:
        h.update(s.encode())
    return h.hexdigest()[:16]


def cached_json(folder, key: str, code: str, compute: Callable[[], Any]) -> Any:
    """`compute()` (JSON-able), reusing `folder/<hash(key, code)>.json` when key, code and digest all match."""
    name = hashlib.sha256(f"{key}|{code}".encode()).hexdigest()[:24]
    path = os.path.join(folder, f"{name}.json")
    try:
        with open(path, encoding="utf-8") as fh:
            stored = json.load(fh)
        payload = json.dumps(stored["result"], sort_keys=True)
        if (stored["key"] == key and stored["code"] == code
                and stored["digest"] == hashlib.sha256(payload.encode()).hexdigest()):
            return json.loads(payload)
    except (OSError, ValueError, KeyError, TypeError):
        pass                                   # missing, corrupted or stale: recompute
    payload = json.dumps(compute(), sort_keys=True)
    from local2global.numeric.infra.atomic import atomic_write
    atomic_write(path, json.dumps({"key": key, "code": code, "digest": hashlib.sha256(payload.encode()).hexdigest(),
                                   "result": json.loads(payload)}, sort_keys=True), make_parents=True)
    return json.loads(payload)
