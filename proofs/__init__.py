"""Registry of the paper's claims and their machine checks (`l2g check`).

Claim modules are the `claims_NN_*.py` files of this package; NN orders them as the paper does.
"""
import importlib
import pkgutil

from local2global.proofs._registry import REGISTRY as REGISTRY, Claim as Claim, Context as Context, Outcome as Outcome
from local2global.proofs._registry import Record as Record, STATUSES as STATUSES, run_claim as run_claim, run_claims as run_claims
from local2global.proofs._registry import select as select

_loaded = False


def load_all() -> None:
    """Import every claim module once (registration happens at import)."""
    global _loaded
    if _loaded:
        return
    for mod in sorted(m.name for m in pkgutil.iter_modules(__path__) if m.name.startswith("claims_")):
        importlib.import_module(f"{__name__}.{mod}")
    _loaded = True
