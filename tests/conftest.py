"""Shared fixtures: the claim records are computed once per test session (they are the expensive part)."""
import os

import pytest

# an internal error must fail a test with its traceback, not end as `l2g`'s one-line "internal error" message
os.environ.setdefault("L2G_TRACEBACK", "1")


@pytest.fixture(scope="session")
def claim_records():
    from local2global.proofs import Context, run_claim, select

    return {c.id: run_claim(c, Context()) for c in select()}
