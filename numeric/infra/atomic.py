"""Atomic file output: every generated file is written to a temporary sibling and renamed into place,
so an interrupted or failed run leaves the previous file or the new one, never half a file."""
from __future__ import annotations

import os
import tempfile
from pathlib import Path


def _file_mode() -> int:
    """0666 minus the umask (0644 with the usual 022): what `open` would give; mkstemp's 0600 is not."""
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


def atomic_write(path, data: str | bytes, make_parents: bool = False) -> Path:
    """Write text (UTF-8, LF) or bytes to `path` atomically, as an ordinary file (mode 0666 & ~umask).

    The one writer of every generated file. The parent folder must exist unless `make_parents`."""
    path = Path(path)
    if make_parents:
        path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix="." + path.name + ".", suffix=".tmp")
    os.fchmod(fd, _file_mode())
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
