"""Atomic file output: every generated file is written to a temporary sibling and renamed into place,
so an interrupted or failed run leaves the previous file or the new one, never half a file.

Files that belong together (a figure's PDF and PNG, the report's files) are written inside `atomic_group()`:
each goes to its temporary sibling, and all are renamed into place at the end of the block, in a section an
interruption waits for (`interrupt.deferred`), so they appear together or not at all. The temporary files of
this process are known (`remove_in_flight`): an interruption removes them."""
from __future__ import annotations

import os
import tempfile
import threading
from contextlib import contextmanager
from pathlib import Path

from local2global.numeric.infra.interrupt import deferred, ending, on_interrupt

_in_flight: set[str] = set()            # temporary files of this process not yet renamed or removed
_groups = threading.local()             # the open `atomic_group` of each thread: [(tmp, path), ...]


def _file_mode() -> int:
    """0666 minus the umask (0644 with the usual 022): what `open` would give; mkstemp's 0600 is not."""
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


def atomic_write(path, data: str | bytes, make_parents: bool = False) -> Path:
    """Write text (UTF-8, LF) or bytes to `path` atomically, as an ordinary file (mode 0666 & ~umask).

    The one writer of every generated file. The parent folder must exist unless `make_parents`. Inside
    `atomic_group()` the file appears when the group ends."""
    path = Path(path)
    if make_parents:
        path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix="." + path.name + ".", suffix=".tmp")
    _register(tmp)
    try:
        os.fchmod(fd, _file_mode())
        if isinstance(data, bytes):
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
        else:
            with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as fh:
                fh.write(data)
        group = getattr(_groups, "files", None)
        if group is not None:
            group.append((tmp, path))
            return path
        os.replace(tmp, path)
        _in_flight.discard(tmp)
    except BaseException:
        _discard(tmp)
        raise
    return path


@contextmanager
def atomic_group():
    """Every `atomic_write` of this thread inside the block appears when the block ends, all together; none
    if the block raises (nested groups join the outermost)."""
    if getattr(_groups, "files", None) is not None:
        yield
        return
    _groups.files = files = []
    try:
        yield
    except BaseException:
        _groups.files = None
        for tmp, _ in files:
            _discard(tmp)
        raise
    _groups.files = None
    with deferred():
        try:
            for tmp, path in files:
                os.replace(tmp, path)
                _in_flight.discard(tmp)
        except BaseException:
            for tmp, _ in files:
                _discard(tmp)
            raise


def _register(tmp: str) -> None:
    """Make `tmp` known to the interruption; a thread that gets here while an interruption ends the process (it
    removed the files it knew) removes its own and waits for the end."""
    _in_flight.add(tmp)
    if ending():
        import shutil
        import time
        shutil.rmtree(tmp, ignore_errors=True) if os.path.isdir(tmp) else _discard(tmp)
        while True:
            time.sleep(1)


def _discard(tmp: str) -> None:
    try:
        os.unlink(tmp)
    except FileNotFoundError:
        pass
    _in_flight.discard(tmp)


def temp_folder(prefix: str, dir=None) -> Path:
    """A new temporary folder (`tempfile.mkdtemp`) that an interruption removes; `release` it once it is gone
    or renamed into place."""
    tmp = tempfile.mkdtemp(prefix=prefix, dir=dir)
    _register(tmp)
    return Path(tmp)


def release(tmp) -> None:
    """`tmp` (a `temp_folder`) was removed or renamed: no longer this process's to remove."""
    _in_flight.discard(os.fspath(tmp))


@contextmanager
def scratch_folder(prefix: str):
    """`tempfile.TemporaryDirectory` that an interruption removes too (a coqc or pdflatex working folder)."""
    import shutil
    tmp = temp_folder(prefix)
    try:
        yield str(tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
        release(tmp)


def remove_in_flight() -> None:
    """Remove the temporary files and folders this process has not renamed into place (an interruption's last
    step)."""
    import shutil
    for tmp in list(_in_flight):
        try:
            if os.path.isdir(tmp) and not os.path.islink(tmp):
                shutil.rmtree(tmp, ignore_errors=True)
            else:
                os.unlink(tmp)
        except OSError:
            pass
    _in_flight.clear()


def forget_in_flight() -> None:
    """In a forked child: the parent's temporary files are not this process's to remove."""
    _in_flight.clear()
    _groups.files = None


on_interrupt(remove_in_flight)
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=forget_in_flight)
