"""Interrupting a command (Ctrl-C, `kill`, `timeout`, a job scheduler) at several moments: every process it started
ends with it, it exits 130 (SIGINT) or 143 (SIGTERM) with exactly one line on stderr and no traceback, and what it
wrote is whole or marked: `l2g all`'s manifest says complete or not, a figure's PDF and PNG exist together, the
report appears with its records, the suite's JSON is whole, and no temporary file is left.

Each command is interrupted at three moments (early: while it starts or forks its workers; mid and late: events
of its own run, e.g. the first figure on disk, the notebook kernels started), and the three ways to interrupt
(SIGINT to the process group, as the terminal's Ctrl-C; SIGINT or SIGTERM to the `l2g` process alone, as `kill`
or `timeout`) are spread so that every command and every moment meets each way once. A moment that the command
outlives is a failed test, never a skipped check. Processes are found by a marker in their environment (which
the pool workers, the Jupyter kernels, coqc and pdflatex inherit), whatever became of their parents."""
from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

import pytest

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")]

MARK = "L2G_INTERRUPT_TEST"
#: the longest a moment may take to come (the machine may be loaded)
PATIENCE_S = 240


def _marked(token: str) -> list[int]:
    """Live processes (not zombies) whose environment carries the marker `token`."""
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            env = Path(f"/proc/{name}/environ").read_bytes().split(b"\0")
            stat = Path(f"/proc/{name}/stat").read_text()
        except OSError:
            continue
        if f"{MARK}={token}".encode() in env and stat[stat.rfind(")") + 2] not in "ZX":
            found.append(int(name))
    return found


def _cmdlines(pids) -> list[str]:
    out = []
    for p in pids:
        try:
            out.append(Path(f"/proc/{p}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")[:160])
        except OSError:
            pass
    return out


class Run:
    """One `python -m local2global ARGV` in a session of its own (its process group is the terminal's job)."""

    def __init__(self, argv, env):
        self.token = uuid.uuid4().hex
        self.proc = subprocess.Popen([sys.executable, "-m", "local2global", *argv], stdout=subprocess.DEVNULL,
                                     stderr=subprocess.PIPE, start_new_session=True,
                                     env={**os.environ, **env, MARK: self.token})
        self.start = time.monotonic()

    def children(self) -> list[int]:
        return [p for p in _marked(self.token) if p != self.proc.pid]

    def wait_for(self, moment, what: str) -> float:
        """Poll until `moment(self)` is true; the seconds since the start. Fails if the command ends first."""
        while not moment(self):
            assert self.proc.poll() is None, f"the command ended before the moment ({what}): make the moment earlier"
            assert time.monotonic() - self.start < PATIENCE_S, f"no {what} after {PATIENCE_S} s"
            time.sleep(0.05)
        assert self.proc.poll() is None, f"the command ended at the moment ({what})"
        return time.monotonic() - self.start

    def interrupt(self, how: str) -> tuple[int, str]:
        if how == "group SIGINT":
            os.killpg(self.proc.pid, signal.SIGINT)
        else:
            self.proc.send_signal(signal.SIGINT if how == "SIGINT" else signal.SIGTERM)
        try:
            # stderr reaches its end only when every process holding it open is gone
            _, err = self.proc.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            left = _cmdlines(_marked(self.token))
            self.kill()
            pytest.fail(f"still running (or its stderr held open) 60 s after {how}: {left}")
        return self.proc.returncode, err.decode(errors="replace")

    def left(self, within: float = 5.0) -> list[str]:
        """The marked processes still alive `within` seconds after the command ended (zombies excluded)."""
        deadline = time.monotonic() + within
        while _marked(self.token) and time.monotonic() < deadline:
            time.sleep(0.1)
        return _cmdlines(_marked(self.token))

    def kill(self) -> None:
        for p in _marked(self.token):
            try:
                os.kill(p, signal.SIGKILL)
            except OSError:
                pass


def after(seconds: float):
    """`seconds` after the start, and the program's entry has run (see `handlers_installed`)."""
    return lambda run: time.monotonic() - run.start >= seconds and handlers_installed(run)


def workers_started(n: int = 1):
    return lambda run: len(run.children()) >= n


def exists(path: Path, pattern: str = "", at_least: int = 1):
    return lambda run: (len(list(path.glob(pattern))) >= at_least) if pattern else path.exists()


def handlers_installed(run) -> bool:
    """The program's entry has run: SIGTERM is caught (Python's own start-up, before it, leaves SIGTERM alone and
    makes SIGINT a KeyboardInterrupt; no program can act before its interpreter has started)."""
    try:
        status = Path(f"/proc/{run.proc.pid}/status").read_text()
    except OSError:
        return False
    caught = int(status.split("SigCgt:")[1].split()[0], 16)
    return bool(caught >> (signal.SIGTERM - 1) & 1)


def kernel_running(run) -> bool:
    return any("ipykernel" in c for c in _cmdlines(run.children()))


def _interrupt(argv, moment, what: str, how: str, env=None) -> tuple[float, int, str]:
    """Start `l2g ARGV`, wait for `moment`, interrupt it `how`; check the process tree, exit code and stderr.
    Returns (seconds at the interrupt, exit code, stderr)."""
    scratch = Path(tempfile.mkdtemp(prefix="l2g-interrupt-"))        # its TMPDIR: coqc, pdflatex, kernel files
    run = Run(argv, {**(env or {}), "TMPDIR": str(scratch)})
    try:
        at = run.wait_for(moment, what)
        workers = len(run.children())
        code, err = run.interrupt(how)
        ended = time.monotonic() - run.start - at
        left = run.left()
    finally:
        run.kill()
    if os.environ.get("L2G_INTERRUPT_LOG"):          # the moments met, for the notes (not an assertion)
        with open(os.environ["L2G_INTERRUPT_LOG"], "a") as fh:
            fh.write(f"{argv[0]}: {what}: at {at:.1f} s, {workers} processes below, {how}, ended {ended:.2f} s later\n")
    assert left == [], f"{argv} interrupted at {at:.1f} s ({what}) by {how} left {left}"
    stray = sorted(os.listdir(scratch))
    shutil.rmtree(scratch)
    assert stray == [], f"{argv} interrupted at {at:.1f} s ({what}) by {how} left in TMPDIR: {stray}"
    assert code == (143 if how == "SIGTERM" else 130), (argv, what, how, code, err)
    # the interruption adds exactly one line; what the command said before it (its notes) stays
    lines = err.splitlines()
    assert "Traceback" not in err and lines and lines[-1] == "l2g: interrupted", (argv, what, how, err)
    assert all(ln.startswith("l2g: note: ") for ln in lines[:-1]), (argv, what, how, err)
    return at, code, err


def _no_debris(folder: Path) -> None:
    """No temporary file or folder of an atomic write, a figure's PDF and PNG together."""
    if not folder.exists():
        return
    stray = [str(p.relative_to(folder)) for p in folder.rglob(".*")]
    assert stray == [], stray
    for pdf in folder.rglob("fig*.pdf"):
        assert pdf.with_suffix(".png").is_file(), f"{pdf.name} without its PNG"
    for png in folder.rglob("fig*.png"):
        assert png.with_suffix(".pdf").is_file(), f"{png.name} without its PDF"


def _whole_or_marked(out: Path) -> str:
    """`l2g all`'s folder: absent or empty (interrupted before it wrote anything), marked incomplete, or complete
    with every listed file as listed."""
    import hashlib
    _no_debris(out)
    if not out.exists() or not any(out.iterdir()):
        return "empty"
    manifest = out / "manifest.json"
    assert manifest.is_file(), f"{sorted(p.name for p in out.iterdir())} without a manifest"
    data = json.loads(manifest.read_text())
    if data["complete"] is not True:
        assert data["complete"] is False
        return "marked incomplete"
    for rel, meta in data["files"].items():                # pragma: no cover - a finished run is not interrupted
        assert hashlib.sha256((out / rel).read_bytes()).hexdigest() == meta["sha256"], rel
    return "complete"


@pytest.fixture()
def cold_cache(tmp_path):
    """An empty L2G_CACHE: the command does its real work (derivations, training), not a cache lookup."""
    return {"L2G_CACHE": str(tmp_path / "cache")}


# --------------------------------------------------------------------------------------------------------------
# l2g all: a few checks so that the later steps come within seconds; each step's processes are met
# --------------------------------------------------------------------------------------------------------------

ALL_ONLY = ["--only", "lemma5.b_star", "thm1.critical_points"]


@pytest.mark.parametrize("moment, what, extra, how", [
    (workers_started(2), "the check workers started", [], "group SIGINT"),
    (None, "the first figure on disk: the figure workers drawing", [], "SIGTERM"),
    (kernel_running, "the notebook kernels running, the document and its PDF beside them", ["--no-figures"], "SIGINT"),
], ids=["early", "figures", "notebooks"])
def test_interrupting_l2g_all_leaves_no_process_and_a_marked_folder(tmp_path, moment, what, extra, how):
    out = tmp_path / "build"
    moment = moment or exists(out / "figures", "fig*.png")
    _interrupt(["all", *ALL_ONLY, "--out", str(out), *extra], moment, what, how)
    state = _whole_or_marked(out)
    assert state == "marked incomplete", state
    if state == "marked incomplete":
        # `l2g derive` says so before it works; its first stderr line is all this needs
        derive = Run(["derive", "--out", str(out)], {})
        try:
            line = derive.proc.stderr.readline().decode()
        finally:
            derive.kill()
            derive.proc.wait(timeout=30)
        assert "is incomplete" in line and "interrupted or failed" in line, line


# --------------------------------------------------------------------------------------------------------------
# l2g check: the torch batch and the pool of the other claims, then the report with its records
# --------------------------------------------------------------------------------------------------------------

CHECK_ONLY = ["--only", "sec2", "lemma5.b_star", "full.eq3"]


def report_being_written(out: Path):
    """The records and the report are one group of files: its first temporary file is on disk."""
    return exists(out, ".checks.json.*.tmp")


@pytest.mark.parametrize("moment, what, how", [
    (handlers_installed, "the handlers installed: the CLI importing", "SIGINT"),
    (workers_started(2), "the worker processes started", "SIGTERM"),
    (None, "the report and the records being written", "group SIGINT"),
], ids=["startup", "workers", "report"])
def test_interrupting_l2g_check_leaves_no_process_and_the_report_whole_or_absent(tmp_path, moment, what, how):
    out = tmp_path / "report"
    _interrupt(["check", *CHECK_ONLY, "--out", str(out), "--workers", "2"], moment or report_being_written(out),
               what, how)
    _no_debris(out)
    names = {p.name for p in out.iterdir()} if out.exists() else set()
    assert names == set(), names                # written at the end, all together: none of them yet


# --------------------------------------------------------------------------------------------------------------
# l2g figures: from an empty cache, the figure processes training and drawing
# --------------------------------------------------------------------------------------------------------------

#: quick figures and one that trains the full model (Fig. 3) from the empty cache
FIGURES_ONLY = ["fig1a", "fig1b", "fig1_legend", "fig1d", "fig3_fullmodel"]

@pytest.mark.parametrize("at_least, what, how", [
    (0, "1 s: the imports", "SIGTERM"),
    (1, "the first figure written, the training and the other figures under way", "SIGINT"),
    (3, "three figures written", "group SIGINT"),
], ids=["early", "first", "third"])
def test_interrupting_l2g_figures_leaves_pdf_and_png_together(tmp_path, cold_cache, at_least, what, how):
    out = tmp_path / "figures"
    moment = after(1.0) if at_least == 0 else exists(out, "fig*.png", at_least)
    _interrupt(["figures", "--only", *FIGURES_ONLY, "--out", str(out), "--workers", "2"], moment, what, how,
               cold_cache)
    _no_debris(out)


# --------------------------------------------------------------------------------------------------------------
# l2g flow --suite: the pool of boundary starts
# --------------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("moment, what, how", [
    (after(0.5), "0.5 s: the imports", "group SIGINT"),
    (workers_started(2), "the suite's workers started", "SIGINT"),
    (None, "the workers integrating for 3 s", "SIGTERM"),
], ids=["early", "workers", "integrating"])
def test_interrupting_l2g_flow_suite_leaves_no_process_and_no_partial_json(tmp_path, moment, what, how):
    out = tmp_path / "suite.json"
    started = {}

    def integrating(run):
        if "t" not in started and workers_started(2)(run):
            started["t"] = time.monotonic()
        return "t" in started and time.monotonic() - started["t"] >= 3.0
    _interrupt(["flow", "--suite", "--out", str(out), "--jobs", "2"], moment or integrating, what, how)
    assert not out.exists() or isinstance(json.loads(out.read_text()), (list, dict))
    _no_debris(tmp_path)


# --------------------------------------------------------------------------------------------------------------
# The parent killed outright (SIGKILL cannot be handled): its workers end with it all the same
# --------------------------------------------------------------------------------------------------------------

def test_workers_end_when_l2g_is_killed(tmp_path):
    run = Run(["check", *CHECK_ONLY, "--out", str(tmp_path / "report"), "--workers", "2"], {})
    try:
        run.wait_for(workers_started(2), "the worker processes started")
        os.kill(run.proc.pid, signal.SIGKILL)
        run.proc.wait(timeout=30)
        left = run.left(within=10.0)
    finally:
        run.kill()
    assert left == [], left
