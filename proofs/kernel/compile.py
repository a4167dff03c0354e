"""Compiling certificates with the installed ``coqc``: in parallel, each result cached by the hash of the file.

The cache (``$L2G_CACHE/coq``, the one cache rule of `symbolic.cache_folder`) maps the SHA-256 of a certificate's
text and of ``coqc --version`` to whether it compiled and the first line of Coq's complaint: a certificate
compiled once is not compiled again, and a changed statement, script or Coq is a new key. A cached "compiled"
is only ever written after ``coqc`` exited 0 on that very text.
"""
from __future__ import annotations

import functools
import hashlib
import os
import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from local2global.numeric.infra.atomic import scratch_folder
from local2global.symbolic import store_verified, verified_file

__all__ = ["Compiled", "coqc", "coq_version", "compile_all", "TIMEOUT_S"]

#: a certificate that takes more CPU seconds than this is counted as not compiled (a slow tactic, not a proof):
#: CPU time, not wall time, so that a loaded machine judges the same certificates as an idle one
TIMEOUT_S = 20
#: the wall-clock limit, a backstop for a coqc that waits on nothing
WALL_S = 20 * TIMEOUT_S


def _limit_cpu():
    import resource
    resource.setrlimit(resource.RLIMIT_CPU, (TIMEOUT_S, TIMEOUT_S + 1))


@dataclass(frozen=True)
class Compiled:
    """What ``coqc`` said of one certificate: compiled or not, Coq's first error line, and whether the result
    came from the cache."""

    ok: bool
    message: str = ""
    cached: bool = False


def coqc() -> str | None:
    """The path of ``coqc``, or None when Coq is not installed."""
    return shutil.which("coqc")


@functools.lru_cache(maxsize=None)
def coq_version() -> str:
    """``coqc --version``'s version number ("8.16.1"), or "" without Coq."""
    exe = coqc()
    if exe is None:
        return ""
    out = subprocess.run([exe, "--version"], capture_output=True, text=True, timeout=30).stdout
    words = out.split()
    return words[words.index("version") + 1] if "version" in words else out.strip()


def _key(text: str) -> str:
    return hashlib.sha256((coq_version() + "\n" + text).encode()).hexdigest()


def _error_line(out: str) -> str:
    lines = [ln.strip() for ln in out.splitlines() if ln.strip()]
    for k, ln in enumerate(lines):
        if ln.startswith("Error:"):
            rest = ln[len("Error:"):].strip() or (lines[k + 1] if k + 1 < len(lines) else "")
            return rest[:200]
    return (lines[-1] if lines else "no output")[:200]


def _compile_one(text: str, name: str) -> Compiled:
    """Compile `text` as ``name.v`` in a private temporary folder (coqc writes .vo/.glob beside it)."""
    with scratch_folder("l2g-coq-") as tmp:           # an interruption removes it
        path = Path(tmp) / f"{name}.v"
        path.write_text(text)
        try:
            done = subprocess.run([coqc(), "-q", path.name], cwd=tmp, capture_output=True, text=True,
                                  timeout=WALL_S, preexec_fn=_limit_cpu)
        except subprocess.TimeoutExpired:
            return Compiled(False, f"coqc ran past {WALL_S} s")
        if done.returncode < 0 or done.returncode in (128 + 9, 128 + 24):    # SIGXCPU / SIGKILL at the CPU limit
            return Compiled(False, f"coqc ran past {TIMEOUT_S} s of CPU time")
        return Compiled(True) if done.returncode == 0 else Compiled(False, _error_line(done.stdout + done.stderr))


def compile_all(texts: dict[str, str], workers: int | None = None, progress=None) -> dict[str, Compiled]:
    """Compile every certificate (name -> text; a name is a Coq module name), cached results first, the others
    with `workers` parallel ``coqc`` processes (default: one per core). `progress(done, total)` is called as
    results arrive."""
    if coqc() is None:
        raise FileNotFoundError("coqc is not installed")
    out: dict[str, Compiled] = {}
    todo = []
    for name, text in texts.items():
        path, hit = verified_file("coq", _key(text) + ".pickle")
        if isinstance(hit, dict) and hit.get("text_sha") == hashlib.sha256(text.encode()).hexdigest():
            out[name] = Compiled(hit["ok"], hit["message"], cached=True)
        else:
            todo.append((name, text, path))
    done = len(out)
    if progress:
        progress(done, len(texts))
    with ThreadPoolExecutor(max(1, workers or os.cpu_count() or 1)) as pool:
        futures = {pool.submit(_compile_one, text, name): (name, text, path) for name, text, path in todo}
        for fut, (name, text, path) in futures.items():
            res = fut.result()
            out[name] = res
            store_verified(path, {"ok": res.ok, "message": res.message,
                                  "text_sha": hashlib.sha256(text.encode()).hexdigest()})
            done += 1
            if progress:
                progress(done, len(texts))
    return {name: out[name] for name in texts}
