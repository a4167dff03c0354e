"""Atomic file output: every generated file is written to a temporary sibling and renamed into place,
so an interrupted or failed run leaves the previous file or the new one, never half a file."""
from __future__ import annotations

import os
import tempfile
from pathlib import Path


def atomic_write(path, data: str | bytes) -> Path:
    """Write text (UTF-8, LF) or bytes to `path` atomically; the parent folder must exist."""
    path = Path(path)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix="." + path.name + ".", suffix=".tmp")
    try:
        if isinstance(data, bytes):
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
        else:
            with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as fh:
                fh.write(data)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    return path
