"""The records of the R^2 claims (Sec. 2-4, claims_10_landscape and claims_20_flow) are made of steps: no legacy
step, no method or strength typed by hand, statements as sentences, values a reader can read, the exact
decisions carrying their obligations, and every argued step written out in full."""
from __future__ import annotations

import inspect
import re

import pytest

from local2global.proofs import REGISTRY, Context, load_all
from local2global.proofs import claims_10_landscape as C10
from local2global.proofs import claims_20_flow as C20
from local2global.proofs._registry import run_claim

load_all()
MODULES = (C10, C20)
IDS = sorted(cid for cid, c in REGISTRY.items() if c.check.__module__ in {m.__name__ for m in MODULES})
#: a Python repr or a bare truth value in a text meant for a reader
REPR = re.compile(r"\b(True|False|None)\b|\{'|\[\]|Matrix\(|<[a-z_.]+ object")


@pytest.fixture(scope="module")
def records():
    return {cid: run_claim(REGISTRY[cid], Context()) for cid in IDS}


def _all_steps(rec):
    return [*rec.steps, *rec.printed_steps, *rec.control_steps, *rec.corroborations]


def test_the_r2_claims_are_the_expected_ones():
    assert len(IDS) == 48 and {"thm2.basins", "thm8.basins", "icommon", "lemma10.convergence", "thm1.classification"} <= set(IDS)


@pytest.mark.parametrize("cid", IDS)
def test_every_record_is_made_of_steps_with_no_legacy_step(records, cid):
    rec = records[cid]
    assert rec.steps and not any(s.legacy for s in _all_steps(rec)), [s.states for s in _all_steps(rec) if s.legacy]
    assert rec.control_rejected and rec.status in ("proved", "sampled")
    for s in _all_steps(rec):
        assert s.states.strip() and not REPR.search(s.states), s.states
        for name, text in s.values:
            assert not REPR.search(text) and not REPR.search(name), (cid, s.states, name, text)


def test_no_method_or_strength_is_typed_in_the_r2_claims():
    for mod in MODULES:
        src = inspect.getsource(mod)
        assert "strength=" not in src, mod.__name__
        assert not re.search(r"\bOutcome\((?!\.of)", src), mod.__name__        # only Outcome.of builds outcomes
        assert "legacy" not in src


@pytest.mark.parametrize("cid", IDS)
def test_the_exact_decisions_carry_their_obligations(records, cid):
    """Every proved record has exact steps carrying obligations; the steps that decide no identity or sign (names
    compared, Groebner membership, limits, case analyses over sign data, structure flags) are the only exact
    steps without."""
    rec = records[cid]
    exact = [s for s in rec.steps if s.kind == "exact"]
    if rec.status != "proved":
        return
    assert any(s.obligations for s in exact), cid
    bare = [s for s in exact if not s.obligations]
    allowed = ("by name", "ideal", "limit", "sign data", "sign datum", "agrees", "G'' > 0", "$G'(A)$ has the sign",
               "Each printed family", "polynomials", "take the stated values", "cover the line", "p - \\pi_1",
               "decrease of the loss", "first zero", "finite point", "claimed class", "condition is the derived one",
               "printed equation(s) define", "Gaussian mass", "\\to -\\infty")
    assert all(any(a in s.states for a in allowed) for s in bare), [s.states for s in bare if not any(a in s.states for a in allowed)]


def test_the_argued_steps_are_named_and_written_out(records):
    argued = {cid: [s for s in rec.steps if s.kind == "argued"] for cid, rec in records.items()}
    assert {cid for cid, a in argued.items() if a} == {"lemma9.e_axis", "lemma10.convergence"}
    for found in argued.values():
        assert all(len(s.argument) > 300 for s in found)
    cited = {cid: [s.reference for s in rec.steps if s.kind == "cited"] for cid, rec in records.items()}
    assert {cid: refs for cid, refs in cited.items() if refs} == {"lemma9.e_axis": [C20.PICARD_LINDELOF[1]]}


def test_lemma10_is_checked_on_the_loss(records):
    rec = records["lemma10.convergence"]
    lyap = [s for s in rec.steps if "the derivative of the loss" in s.states]
    assert lyap and all(s.kind == "exact" and s.obligations for s in lyap)
    bad = [s for s in rec.control_steps if not s.ok]
    assert bad and all("the derivative of the loss" in s.states for s in bad)
