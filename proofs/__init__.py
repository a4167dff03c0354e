"""Registry of the paper's claims and their machine checks (`l2g check`).

Claim modules are the `claims_NN_*.py` files of this package; NN orders them as the paper does.
"""
from local2global.proofs._registry import REGISTRY as REGISTRY, Claim as Claim, Context as Context, Outcome as Outcome
from local2global.proofs._registry import Record as Record, STATUSES as STATUSES, run_claim as run_claim, run_claims as run_claims
from local2global.proofs._registry import select as select
from local2global.proofs._registry import load_all as load_all
