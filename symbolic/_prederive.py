"""Every derivation the commands use, derived once: what the wheel ships in `symbolic/_derived/` (`_cache`).

`python -m local2global.symbolic._prederive FOLDER` derives into FOLDER (setup.py runs it on the built package
while the wheel is made, with $L2G_CACHE pointing at a scratch folder); `derive_all()` is the list itself.
"""
from __future__ import annotations

import inspect
import os
import shutil
import sys
import tempfile
from pathlib import Path


def derive_all() -> int:
    """Derive both canonical models' critical sets, energies, derivatives and structure, and every registered
    derivation that takes no argument (its defaults are the symbolic chain and the models), into the active cache;
    returns how many derivation functions there are."""
    from . import _cache, basins, basins_r3, basins_untied, bias, canonical, energy  # noqa: F401 - importing registers their derivations
    from .model import canonical_model
    from ._symbols import b
    for attention in (False, True):
        m = canonical_model(attention)
        m.critical_sets(False), m.critical_sets(True), m.energy
        # the model's derivatives that the checks compare with (the Hessian with bias also in Lemma 4's order)
        m.optimal_bias, m.hessian, m.gradient_direct(), m.hessian_direct(), m.gradient_with_bias, m.grad_A_zeros
        m.hessian_with_bias()
        if attention:
            m.station_hessian, m.station_directions()
        else:
            m.hessian_with_bias((b,) + m.params)
    # the untied model (`l2g eval/flow/fullmodel --untied`): its sets, energies, derivatives and Hessians
    mu = canonical_model(untied=True)
    mu.critical_sets(False), mu.critical_sets(True), mu.energy, mu.optimal_bias, mu.hessian, mu.gradient_direct()
    mu.gradient_with_bias, mu.untied_hessians, mu.slope_factors()
    energy.quadratic_invariants(mu)
    bias.G_derivative(1), bias.G_derivative(2), canonical.rank_one_logits(False)
    for fn in _cache.DERIVATIONS:
        params = inspect.signature(fn).parameters.values()
        if all(p.default is not inspect.Parameter.empty for p in params):
            fn()
    return len(_cache.DERIVATIONS)


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python -m local2global.symbolic._prederive FOLDER", file=sys.stderr)
        return 2
    target = Path(argv[0])
    scratch = tempfile.mkdtemp(prefix="l2g-prederive-")
    try:
        os.environ["L2G_CACHE"] = scratch
        os.environ.pop("L2G_NO_DERIVATION_CACHE", None)
        from . import _cache
        _cache.SHIPPED = Path(scratch) / "none"       # derive afresh, even where an installed copy ships results
        n = derive_all()
        files = sorted((Path(scratch) / "derivations").glob("*.pickle"))
        target.mkdir(parents=True, exist_ok=True)
        for f in files:
            shutil.copyfile(f, target / f.name)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    print(f"derived {len(files)} results of {n} derivation functions into {target}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
