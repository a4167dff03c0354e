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

import matplotlib

matplotlib.use("Agg")          # no display; also the only backend whose PNG output we pin down
import matplotlib.pyplot as plt  # noqa: E402

from local2global.numeric.infra.atomic import atomic_write  # noqa: E402

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


def figure(name: str):
    """Register a figure producer under `name` (file stem of the outputs)."""
    def deco(fn):
        if name in FIGURES and FIGURES[name] is not fn:
            raise ValueError(f"figure {name!r} registered twice")
        FIGURES[name] = fn
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
    """Write `name`.pdf and `name`.png into out_dir (deterministic bytes); returns the paths."""
    paths = []
    for ext, meta in (("pdf", PDF_META), ("png", PNG_META)):
        buf = io.BytesIO()
        with matplotlib.rc_context(STYLE):
            fig.savefig(buf, format=ext, metadata=meta, dpi=DPI)
        path = os.path.join(out_dir, f"{name}.{ext}")
        atomic_write(path, buf.getvalue(), make_parents=True)
        paths.append(path)
    plt.close(fig)
    return paths


def render(out_dir: str, names=None, progress=None) -> list[str]:
    """Produce and save the registered figures (all, or those in `names`); `progress(i, n, name)` is called
    before figure i of n is produced (a step counter for `l2g figures` and `l2g all`)."""
    figs = discover()
    chosen = figs if not names else {n: figs[n] for n in names}
    paths = []
    for i, (name, fn) in enumerate(chosen.items(), 1):
        if progress is not None:
            progress(i, len(chosen), name)
        with matplotlib.rc_context(STYLE):
            fig = fn()
        paths += save(fig, out_dir, name)
    return paths


def cache_folders(names=None) -> list[str]:
    """The cache folders the producers of `names` (default all) write to: the training runs of Figs. 3, 4, 6
    and the basin grids of `fig_attn_basins`. `l2g figures` / `l2g all` validate them before any work, so a
    run cannot fail on its cache after minutes of training."""
    figs = discover()
    chosen = list(figs) if not names else list(names)
    out = []
    for name in chosen:
        module = figs[name].__module__.rsplit(".", 1)[-1]
        if module == "fig_fullmodel":
            from local2global.numeric.transformer import experiments
            out.append(experiments._cache_dir())
        elif name == "fig_attn_basins":
            from local2global.proofs.outputs.figures import fig_attention
            out.append(fig_attention._cache_dir())
    return sorted(set(out))
