"""Shared fixtures: the claim records are computed once per test session (they are the expensive part)."""
import os

import pytest

# an internal error must fail a test with its traceback, not end as `l2g`'s one-line "internal error" message
os.environ.setdefault("L2G_TRACEBACK", "1")


@pytest.fixture(scope="session")
def claim_records():
    """Every claim's record, propagated as `l2g check` writes them (statuses over the uses-closure, trust bases and
    status lines), by id."""
    from local2global.proofs import Context, run_claim, select
    from local2global.proofs._registry import propagate

    return {r.id: r for r in propagate([run_claim(c, Context()) for c in select()])}


@pytest.fixture(scope="module")
def one_torch_thread():
    """The machine is shared: torch's intra-op threads only contend (20x slower under load)."""
    import torch
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)
