"""The manifest of a folder that `l2g all` writes: `manifest.json`, the mark that says whether the folder is whole.

`l2g all` writes it twice: first, before it writes anything else, as ``{"complete": false}`` (a run stopped
from then on leaves that mark), and last, once every step is done, as ``{"complete": true}`` with every file
the run wrote (path relative to the folder, its size and SHA-256). `l2g derive` and the next `l2g all` read it
(`incomplete`) and say on stderr when the folder is not whole. The file is deterministic (sorted, no dates), so
two runs of the same commit leave it byte-identical.
"""
from __future__ import annotations

import hashlib
import json
from pathlib import Path

#: the manifest's name in the folder
NAME = "manifest.json"


def _text(data: dict) -> str:
    return json.dumps(data, indent=2, sort_keys=True) + "\n"


def begin(out_dir, command: str = "l2g all") -> Path:
    """Mark `out_dir` as being written (``complete: false``); the first file a run writes."""
    from local2global.numeric.infra.atomic import atomic_write
    return atomic_write(Path(out_dir) / NAME, _text({"command": command, "complete": False}))


def _files(out: Path, paths) -> dict:
    listed = {}
    for p in map(Path, paths):
        for f in ([p] if p.is_file() else sorted(q for q in p.rglob("*") if q.is_file()) if p.is_dir() else []):
            rel = f.resolve().relative_to(out.resolve()).as_posix()
            data = f.read_bytes()
            listed[rel] = {"bytes": len(data), "sha256": hashlib.sha256(data).hexdigest()}
    return dict(sorted(listed.items()))


def finish(out_dir, paths, command: str = "l2g all") -> Path:
    """Mark `out_dir` whole (``complete: true``), listing `paths` (files, or folders: their files); the last
    file a run writes."""
    from local2global.numeric.infra.atomic import atomic_write
    out = Path(out_dir)
    return atomic_write(out / NAME, _text({"command": command, "complete": True, "files": _files(out, paths)}))


def incomplete(out_dir) -> str | None:
    """Why `out_dir` is not whole (one clause, e.g. "the `l2g all` that wrote it was interrupted or failed"), or None: no manifest (a folder `l2g all` never wrote), or a
    complete one whose files are all there."""
    path = Path(out_dir) / NAME
    if not path.is_file():
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return f"its {NAME} cannot be read"
    if not isinstance(data, dict) or data.get("complete") is not True:
        command = data.get("command", "l2g all") if isinstance(data, dict) else "l2g all"
        return f"the `{command}` that wrote it was interrupted or failed"
    files = data.get("files")
    missing = [rel for rel in (files if isinstance(files, dict) else {}) if not (Path(out_dir) / rel).is_file()]
    if missing:
        return f"{len(missing)} of the files its {NAME} lists {'is' if len(missing) == 1 else 'are'} missing " \
               f"(e.g. {missing[0]})"
    return None
