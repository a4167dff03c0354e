"""Figure registry and deterministic saving (used by `l2g figures`).

A figure producer is a function returning a matplotlib Figure, registered with `@figure("fig1a")` in a
module `proofs/outputs/figures/fig_*` (discovered with pkgutil); its name is the file stem, and the figure
numbers and captions of the paper are attached to the stems in `proofs.outputs.document.figures`. `save` writes PDF and PNG with the Agg
backend, a fixed size/dpi and no metadata that changes from run to run, so two runs are byte-identical.
"""
from __future__ import annotations

import importlib
import io
import os
import pkgutil
from typing import Callable

import logging

import matplotlib

from local2global.numeric.infra.atomic import atomic_group, atomic_write

# matplotlib embeds subsets of its bundled Computer Modern fonts through fontTools, which warns on stderr that
# those font files carry a header date before 1970: a fact about the font files, not about our figures
logging.getLogger("fontTools.ttLib.tables._h_e_a_d").setLevel(logging.ERROR)
matplotlib.use("Agg")          # no display; also the only backend whose PNG output we pin down
import matplotlib.pyplot as plt  # noqa: E402 - after the backend is chosen

FIGURES: dict[str, Callable[[], "matplotlib.figure.Figure"]] = {}
DPI = 150
#: style fixed here (not from the user's matplotlibrc) so output does not depend on the machine
#: mathematics in Computer Modern, like the derivations document (its star is visible: Θ⋆, I⋆), text in a
#: serif shipped with matplotlib (DejaVu Serif), so no output depends on the fonts of the machine
STYLE = {"svg.hashsalt": "local2global", "pdf.fonttype": 42, "font.family": "DejaVu Serif", "font.size": 9,
         "mathtext.fontset": "cm", "axes.formatter.use_mathtext": True, "axes.titlesize": 9,
         "figure.dpi": DPI, "savefig.dpi": DPI, "path.simplify": True}
PDF_META = {"CreationDate": None, "Creator": None, "Producer": None, "ModDate": None}
PNG_META = {"Software": None}


#: figures that take much longer than the others (started first when figures are drawn in parallel)
HEAVY: set[str] = set()
#: name -> () -> [(function, args), ...]: independent pieces of a figure's data (each computed and cached by
#: a module-level function), which parallel drawing computes as tasks of their own before the figure
PARTS: dict[str, Callable[[], list]] = {}
#: name -> the kind of the cache its producer writes to (`numeric.infra.cache.KINDS`)
CACHES: dict[str, str] = {}


def figure(name: str, heavy: bool = False, parts: Callable[[], list] | None = None, cache: str | None = None):
    """Register a figure producer under `name` (file stem of the outputs); `heavy` if it takes many seconds;
    `parts` lists the cached pieces of its data that may be computed side by side (see `PARTS`); `cache` names
    the cache its data is kept in (a kind of `numeric.infra.cache.KINDS`)."""
    def deco(fn):
        if name in FIGURES and FIGURES[name] is not fn:
            raise ValueError(f"figure {name!r} registered twice")
        FIGURES[name] = fn
        if heavy:
            HEAVY.add(name)
        if parts is not None:
            PARTS[name] = parts
        if cache is not None:
            CACHES[name] = cache
        return fn
    return deco


def discover() -> dict:
    """Import every `fig_*` module of this package (registration happens at import)."""
    from local2global.proofs.outputs import figures
    for m in sorted(pkgutil.iter_modules(figures.__path__), key=lambda m: m.name):
        if m.name.startswith("fig_"):
            importlib.import_module(f"{figures.__name__}.{m.name}")
    return dict(sorted(FIGURES.items()))


def save(fig, out_dir: str, name: str) -> list[str]:
    """Write `name`.pdf and `name`.png into out_dir (deterministic bytes), both or neither; returns the paths."""
    paths = []
    with atomic_group():
        for ext, meta in (("pdf", PDF_META), ("png", PNG_META)):
            buf = io.BytesIO()
            with matplotlib.rc_context(STYLE):
                fig.savefig(buf, format=ext, metadata=meta, dpi=DPI)
            path = os.path.join(out_dir, f"{name}.{ext}")
            atomic_write(path, buf.getvalue(), make_parents=True)
            paths.append(path)
    plt.close(fig)
    return paths


def render(out_dir: str, names=None, progress=None, workers: int | None = 1, beside=None) -> list[str]:
    """Produce and save the registered figures (all, or those in `names`), `workers` processes at a time
    (None: one per CPU core; each figure is drawn and written by one process, so the files do not depend on
    it); returns the paths in figure order. `progress(i, n, name)` is called as figure `name` is written,
    the i-th of n (a step counter for `l2g figures` and `l2g all`). `beside()` (optional) runs in this
    process while the workers draw (once they have started: no fork happens while it runs); in one process,
    first."""
    figs = discover()
    chosen = list(figs) if not names else list(names)
    if workers == 1 or len(chosen) < 2:
        if beside is not None:
            beside()
        runs = ((name, _render_one(out_dir, name)) for name in chosen)
        return _collect(runs, chosen, progress)
    from local2global.numeric.infra.executor import make_executor
    # fork: the workers inherit the registry as it is (figures registered or replaced at run time included).
    # Submission order: the pieces of the figures that have them, each followed by a quick figure (so the
    # counter moves while they compute), then the costly figures; without pieces, one costly figure first,
    # the quick ones, the other costly ones. A figure with pieces is drawn once they are all cached.
    heavy = [n for n in chosen if n in HEAVY and n not in PARTS]
    quick = [n for n in chosen if n not in HEAVY and n not in PARTS]
    pieces = [(name, fn, args) for name in chosen if name in PARTS for fn, args in PARTS[name]()]
    order: list = []
    if pieces:
        for k in range(max(len(pieces), len(quick))):
            order += [("piece", pieces[k])] if k < len(pieces) else []
            order += [("figure", quick[k])] if k < len(quick) else []
        order += [("figure", n) for n in heavy]
    else:
        order = [("figure", n) for n in heavy[:1] + quick + heavy[1:]]
    with make_executor(workers, start_method="fork") as ex:
        waiting: dict = {name: set() for name in chosen if name in PARTS}
        figures: dict = {}
        for kind, item in order:
            if kind == "piece":
                name, fn, args = item
                waiting[name].add(ex.submit(fn, *args))
            else:
                figures[ex.submit(_render_one, out_dir, item)] = item
        if beside is not None:
            beside()
        return _collect(_as_drawn(ex, out_dir, figures, waiting), chosen, progress)


def _as_drawn(ex, out_dir, figures: dict, waiting: dict):
    """(name, paths) as the figure futures finish; a figure of `waiting` is submitted once its pieces are done."""
    from concurrent.futures import FIRST_COMPLETED, wait
    while figures or waiting:
        wait(set(figures) | {f for fs in waiting.values() for f in fs}, return_when=FIRST_COMPLETED)
        for name, pieces in list(waiting.items()):
            if all(f.done() for f in pieces):
                for f in pieces:
                    f.result()                  # a piece that failed fails the figure here
                del waiting[name]
                figures[ex.submit(_render_one, out_dir, name)] = name
        for f in [f for f in figures if f.done()]:
            yield figures.pop(f), f.result()


def _render_one(out_dir: str, name: str) -> list[str]:
    fn = discover()[name]
    with matplotlib.rc_context(STYLE):
        fig = fn()
    if fig is None:                 # a figure of cached data that is not there (the phase diagram before a sweep)
        return []
    return save(fig, out_dir, name)


def _collect(runs, chosen, progress) -> list[str]:
    done: dict = {}
    for name, paths in runs:
        done[name] = paths
        if progress is not None:
            progress(len(done), len(chosen), name)
    return [p for name in chosen for p in done[name]]


def cache_folders(names=None) -> list[str]:
    """The cache folders the producers of `names` (default all) write to (registered with `figure(cache=...)`: the
    training runs of Figs. 3, 4, 6 and the basin grids of `fig_attn_basins`). `l2g figures` / `l2g all` validate
    them before any work, so a run cannot fail on its cache after minutes of training."""
    from local2global.numeric.infra.cache import cache_folder
    figs = discover()
    chosen = list(figs) if not names else list(names)
    return sorted({str(cache_folder(CACHES[name])) for name in chosen if name in CACHES})
