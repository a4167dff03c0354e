"""Shared fixtures: the claim records are computed once per test session (they are the expensive part)."""
import pytest


@pytest.fixture(scope="session")
def claim_records():
    from local2global.proofs import Context, run_claim, select

    return {c.id: run_claim(c, Context()) for c in select()}
