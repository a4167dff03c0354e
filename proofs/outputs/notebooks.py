"""Run the walkthrough notebooks (`notebooks/*.py`, jupytext percent format) top to bottom.

`run_notebooks(out_dir)` converts each source with jupytext, executes it with nbclient in a fresh
`python3` kernel (per-cell timeout) from the `notebooks/` folder, and writes the executed `.ipynb` into
`out_dir` (e.g. build/notebooks/). The executed files are deterministic: cell ids are derived from the
cell position, no execution timings are recorded, and the notebooks themselves use fixed inputs.
"""
from __future__ import annotations

import importlib
import os
from dataclasses import dataclass
from pathlib import Path

#: The notebooks' source folder: `notebooks/` of the repository, installed as `local2global.notebooks`.
NOTEBOOK_DIR = Path(importlib.import_module("local2global.notebooks").__file__).resolve().parent


@dataclass(frozen=True)
class NotebookRun:
    """One executed notebook: its source, where the executed copy was written, and its code-cell count."""

    source: Path
    output: Path
    cells: int


def sources(notebook_dir=None) -> list[Path]:
    """The notebook sources (`NN_name.py`) in order."""
    folder = Path(notebook_dir) if notebook_dir else NOTEBOOK_DIR
    return sorted(p for p in folder.glob("[0-9][0-9]_*.py"))


def execute(source, out_dir, *, timeout: int = 600, kernel_name: str = "python3") -> NotebookRun:
    """Execute one jupytext notebook top to bottom; write `<out_dir>/<stem>.ipynb`; return what ran.

    A failing cell raises `nbclient.exceptions.CellExecutionError` (with the cell's traceback); the
    executed copy is then not written.
    """
    import jupytext
    import nbformat
    from nbclient import NotebookClient

    source = Path(source).resolve()
    nb = jupytext.read(source)
    for i, cell in enumerate(nb.cells):          # deterministic ids (nbformat would draw random ones)
        cell["id"] = f"cell-{i:03d}"
    nb.metadata["kernelspec"] = {"display_name": "Python 3", "language": "python", "name": kernel_name}
    nb.metadata.pop("jupytext", None)
    env_backup = os.environ.get("MPLBACKEND")
    os.environ["MPLBACKEND"] = "module://matplotlib_inline.backend_inline"   # inherited by the kernel
    from local2global.numeric.infra.atomic import scratch_folder
    try:
        # the kernel's own start-up warnings (e.g. about its local TCP transport) are not ours to show
        client = NotebookClient(nb, timeout=timeout, kernel_name=kernel_name, record_timing=False,
                                extra_arguments=["--IPKernelApp.log_level=ERROR"],
                                resources={"metadata": {"path": str(source.parent)}})
        with scratch_folder("l2g-kernel-") as runtime:      # its connection file: an interruption removes it
            client.create_kernel_manager().connection_file = os.path.join(runtime, "kernel.json")
            _run_client(client)
    finally:
        if env_backup is None:
            os.environ.pop("MPLBACKEND", None)
        else:
            os.environ["MPLBACKEND"] = env_backup
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs = _coalesce_streams(cell.outputs)
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    target = out_dir / f"{source.stem}.ipynb"
    from local2global.numeric.infra.atomic import atomic_write
    text = nbformat.writes(nb)
    atomic_write(target, text if text.endswith("\n") else text + "\n")
    return NotebookRun(source, target, sum(c.cell_type == "code" for c in nb.cells))


def _run_client(client) -> None:
    """`client.execute()`; under an `l2g` program in a thread of its own: in the main thread nbclient turns SIGINT
    and SIGTERM into a kernel shutdown and carries on (its handlers replace the interruption's, then leave SIGINT
    raising KeyboardInterrupt), while the interruption contract (`numeric.infra.interrupt`) is that this process
    exits at once and its parent ends the kernel. Outside the main thread nbclient installs no handler."""
    from local2global.numeric.infra.interrupt import under_contract
    if not under_contract():
        client.execute()
        return
    from concurrent.futures import ThreadPoolExecutor
    with ThreadPoolExecutor(1) as runner:
        runner.submit(client.execute).result()


def _coalesce_streams(outputs: list) -> list:
    """Merge consecutive stdout (stderr) chunks: how the kernel splits a stream depends on timing."""
    merged: list = []
    for out in outputs:
        if (out.get("output_type") == "stream" and merged and merged[-1].get("output_type") == "stream"
                and merged[-1].get("name") == out.get("name")):
            merged[-1]["text"] = "".join(merged[-1]["text"]) + "".join(out["text"])
        else:
            merged.append(out)
    return merged


def run_notebooks(out_dir, *, notebook_dir=None, timeout: int = 600, progress=None,
                  workers: int | None = None) -> list[NotebookRun]:
    """Execute every notebook of `notebooks/` into `out_dir`, `workers` at a time (default: one per CPU
    core; each notebook has its own kernel and output file, so the results do not depend on it);
    `progress(name)` is called as each one finishes. A failing notebook raises its CellExecutionError."""
    from functools import partial

    from local2global.numeric.infra.executor import make_executor

    srcs = sources(notebook_dir)
    runs = []
    # spawn: each worker a clean process for its kernel (no inherited ZMQ or thread state)
    with make_executor(1 if len(srcs) < 2 else workers, start_method="spawn") as ex:
        for run in ex.map(partial(execute, out_dir=out_dir, timeout=timeout), srcs):
            runs.append(run)
            if progress is not None:
                progress(run.source.name)
    return runs
