"""Interruption of an `l2g` command (Ctrl-C, `kill`, `timeout`, a job scheduler): how it ends, whatever it was doing.

The contract: on SIGINT or SIGTERM the command ends with every process it started (pool workers, notebook kernels,
coqc, pdflatex, a Dask cluster: its whole process tree), prints exactly one line on stderr ("l2g: interrupted")
and exits with 128 + the signal number (130, 143). No traceback, neither its own nor a worker's, and no file
half-written: every generated file is written through `atomic.atomic_write`, whose temporary files the
interruption removes, and files that belong together (a figure's PDF and PNG, the report) are renamed into place
inside `deferred()`, which an interruption waits for.

How: `install()` (the program's entry, `local2global._entry`, before the CLI imports) turns both signals into
`_finish` in the main process: snapshot the process tree below it, SIGTERM to all of it, SIGKILL to what is
left after `GRACE_S`, run the cleanups (`on_interrupt`: the temporary files), write the line, `os._exit`.
Workers never act on SIGINT (it reaches them too when the terminal interrupts the process group): a forked
worker ignores it from the moment of the fork, a spawned one starts with both signals held (`spawn_guard`) until
`worker_init` ignores SIGINT; on SIGTERM a worker runs its cleanups and exits silently. On Linux a worker also
receives SIGTERM when its parent dies (PR_SET_PDEATHSIG), so even a SIGKILLed `l2g` leaves no pool behind.
"""
from __future__ import annotations

import os
import signal
import sys
import threading
import time
from contextlib import contextmanager

#: seconds the processes of the tree have, after SIGTERM, before SIGKILL
GRACE_S = 2.0
#: the one line an interrupted command prints
MESSAGE = "l2g: interrupted"

_SIGNALS = (signal.SIGINT, signal.SIGTERM)
_main_pid: int | None = None          # the process `install` ran in (a forked worker inherits the handler, not this)
_contract = False                     # this process is the `l2g` program or one of its workers
_pending: int | None = None           # the exit code of an interruption waiting for `deferred()` sections to end
_deferred = 0
_lock = threading.Lock()
_once = threading.Lock()
_fork_from_main = [True]
_cleanups: list = []


def under_contract() -> bool:
    """Whether this process is an `l2g` program (`install` ran) or one of its workers; not a library user's."""
    return _contract


def install() -> None:
    """Make SIGINT and SIGTERM end this process (the `l2g` program) by `_finish`; from the main thread."""
    global _main_pid, _contract
    _main_pid, _contract = os.getpid(), True
    for sig in _SIGNALS:
        signal.signal(sig, _handler)


def _before_fork() -> None:
    _fork_from_main[0] = threading.current_thread() is threading.main_thread()


def _after_fork_child() -> None:
    global _pending, _deferred, _lock, _once, _forked
    _forked = True
    _pending, _deferred = None, 0       # the parent's other threads (in a deferred section) are not in the child
    _lock, _once = threading.Lock(), threading.Lock()
    if not _contract:
        return                          # a library user's process: its signals are its own
    # at once, before the child runs anything: a Ctrl-C to the process group must not raise KeyboardInterrupt here
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if _fork_from_main[0]:              # PDEATHSIG fires when the forking *thread* ends: only the main thread's
        _die_with_parent()


_forked = False
if hasattr(os, "register_at_fork"):
    os.register_at_fork(before=_before_fork, after_in_child=_after_fork_child)


def worker_init(contract: bool) -> None:
    """The initializer of every pool worker. Under an `l2g` program (`contract`): SIGINT ignored, SIGTERM a silent
    exit, death with the parent (a forked worker has that from the fork already)."""
    global _contract
    if contract:
        _contract = True
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, _handler)
        if not _forked:
            _die_with_parent()
    signal.pthread_sigmask(signal.SIG_UNBLOCK, _SIGNALS)    # held by `spawn_guard` while it started


def _die_with_parent() -> None:
    if not sys.platform.startswith("linux"):
        return
    try:
        import ctypes
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, int(signal.SIGTERM), 0, 0, 0)          # PR_SET_PDEATHSIG = 1
    except (OSError, AttributeError):                       # pragma: no cover - no libc prctl: no watchdog
        pass


@contextmanager
def spawn_guard():
    """Hold SIGINT and SIGTERM in this thread while it starts processes: a spawned interpreter inherits the mask,
    so a Ctrl-C during its start-up (before `worker_init`) cannot print a KeyboardInterrupt traceback. A signal
    that arrives meanwhile is delivered when the block ends."""
    old = signal.pthread_sigmask(signal.SIG_BLOCK, _SIGNALS)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


@contextmanager
def deferred():
    """A section an interruption waits for (it ends within microseconds: renaming files into place)."""
    global _deferred
    with _lock:
        _deferred += 1
    try:
        yield
    finally:
        with _lock:
            _deferred -= 1
            fire = _deferred == 0 and _pending is not None
        if fire:
            _finish(_pending)


def ending() -> bool:
    """Whether an interruption is ending this process (its other threads must start nothing new)."""
    return _once.locked()


def on_interrupt(cleanup) -> None:
    """Run `cleanup()` when an interruption ends this process, after its process tree (`atomic` registers the
    removal of its temporary files)."""
    _cleanups.append(cleanup)


def _run_cleanups() -> None:
    for cleanup in _cleanups:
        try:
            cleanup()
        except Exception:  # noqa: BLE001 - ending anyway: a cleanup that fails must not stop the others
            pass


def _handler(signum, frame) -> None:
    global _pending
    if os.getpid() != _main_pid and signum == signal.SIGINT:
        return                          # a worker: the parent ends it
    _pending = 128 + signum
    if _deferred == 0:
        _finish(_pending)


def _finish(code: int) -> None:
    if not _once.acquire(blocking=False):
        return                          # another thread is already ending the process
    if os.getpid() != _main_pid:        # a worker: silently, its parent says what happened
        _run_cleanups()
        os._exit(code)
    try:
        line = os.dup(2)
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 2)             # whatever this process's other threads still print is not the user's
        os.dup2(devnull, 1)
    except OSError:
        line = None
    try:
        end_tree()
        _run_cleanups()
    finally:
        if line is not None:
            try:
                tty = os.isatty(line)
                os.write(line, (("\r\x1b[K" if tty else "") + MESSAGE + "\n").encode())
            except OSError:
                pass
        os._exit(code)


# ---------------------------------------------------------------------------------------------------------
# The process tree below this process (Linux: /proc; elsewhere the multiprocessing children)
# ---------------------------------------------------------------------------------------------------------

def _table() -> dict[int, tuple[int, str, str]]:
    """pid -> (parent pid, start time, state) of every process, from /proc."""
    out = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as fh:
                stat = fh.read().decode(errors="replace")
        except OSError:
            continue
        fields = stat[stat.rfind(")") + 2:].split()
        out[int(name)] = (int(fields[1]), fields[19], fields[0])
    return out


def descendants(pid: int | None = None) -> dict[int, str]:
    """The processes below `pid` (default: this one), pid -> start time (which tells a reused pid apart)."""
    root = os.getpid() if pid is None else pid
    table = _table()
    kids: dict[int, list[int]] = {}
    for p, (ppid, _, _) in table.items():
        kids.setdefault(ppid, []).append(p)
    found, todo = {}, [root]
    while todo:
        for k in kids.get(todo.pop(), []):
            if k not in found:
                found[k] = table[k][1]
                todo.append(k)
    return found


def _alive(procs: dict[int, str]) -> dict[int, str]:
    table = _table()
    return {p: st for p, st in procs.items() if p in table and table[p][1] == st and table[p][2] not in "ZX"}


def _ignores_sigterm(pid: int) -> bool:
    """Whether `pid` ignores SIGTERM (multiprocessing's resource tracker does): it gets SIGKILL at once."""
    try:
        with open(f"/proc/{pid}/status") as fh:
            for line in fh:
                if line.startswith("SigIgn:"):
                    return bool(int(line.split()[1], 16) >> (signal.SIGTERM - 1) & 1)
    except (OSError, ValueError):
        pass
    return False


def _signal_all(procs, sig) -> None:
    for p in procs:
        try:
            os.kill(p, sig)
        except OSError:
            pass


def end_tree(grace: float = GRACE_S) -> None:
    """End every process below this one: SIGTERM, then SIGKILL to those left after `grace` seconds (at once to one
    that ignores SIGTERM, like multiprocessing's resource tracker). The tree is snapshotted before the first signal
    and rescanned meanwhile, so a child whose parent ends first (a notebook kernel) or one started meanwhile is not
    missed."""
    if not os.path.isdir("/proc"):      # pragma: no cover - not Linux
        import multiprocessing
        for child in multiprocessing.active_children():
            child.terminate()
        return
    seen: dict[int, str] = {}
    deadline = time.monotonic() + grace
    while True:
        new = {p: st for p, st in descendants().items() if p not in seen}
        if new:
            seen.update(new)
            _signal_all([p for p in new if _ignores_sigterm(p)], signal.SIGKILL)
            _signal_all(new, signal.SIGTERM)
        left = _alive(seen)
        if not left or time.monotonic() > deadline:
            break
        time.sleep(0.02)
    _signal_all(_alive(seen), signal.SIGKILL)
