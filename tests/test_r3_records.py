"""The records of the attention and R^3 claims (claims_30, claims_35, claims_50) are structured and their reasoning
is derived or argued in full (issue 24): no legacy step; Lemma C's bound derived and a false one (D^2 in place of
2D^2) rejected, with Thm 11 no longer certified; the R^3 outcome table (the trichotomy) derived from the Airy facts
that `r3.airy_facts` establishes, a swapped entry rejected by `l2g check`; the limit of every flow derived per sign
datum; Lemma 15's negative control an altered statement of Lemma 15."""
from __future__ import annotations

import dataclasses
import json
import re
from fractions import Fraction

import mpmath as mp
import pytest
import sympy as sp

from local2global.proofs import Context, REGISTRY, load_all, run_claim
from local2global.proofs._registry import run_claims
from local2global.symbolic import basins_r3 as sr3

load_all()
MODULES = ("claims_30_attention", "claims_35_basins_r3", "claims_50_certified")
MINE = sorted(cid for cid, c in REGISTRY.items() if c.check.__module__.rsplit(".", 1)[-1] in MODULES)
#: what a text must not contain outside its mathematics ($...$): Python reprs of booleans, None, objects, dicts, tuples
REPR = re.compile(r"\bTrue\b|\bFalse\b|\bNone\b|Datum\(|Fraction\(|mpf\(|\{'|\[\(|\(\('")


def _repr_in(text: str):
    return REPR.search(re.sub(r"\$[^$]*\$", "", text))


def test_no_record_of_the_attention_and_r3_claims_has_a_legacy_step_or_a_python_repr(claim_records):
    assert len(MINE) == 26
    for cid in MINE:
        rec = claim_records[cid]
        every = rec.steps + rec.printed_steps + rec.control_steps + rec.corroborations
        assert every and not any(s.legacy for s in every), cid
        for s in every:
            assert s.states and not _repr_in(s.states), (cid, s.states)
            for name, text in s.values:
                assert not _repr_in(f"{name} {text}"), (cid, name, text)
            if s.kind == "argued":
                assert len(s.argument) > 200, (cid, s.states)          # written out, not named
            if s.kind == "cited":
                assert s.reference.startswith("DLMF"), (cid, s.reference)


# --- Lemma C -------------------------------------------------------------------------------------------

def _lemma_c_with(monkeypatch, half_the_square: bool):
    """Lemma C re-derived (no cache) with the supremum of the quadratic term of Δ mis-derived as D^2 (a broken
    derivation); returns the claim with its printed form following the derivation, as the issue describes."""
    from local2global.numeric.dynamics import prob_r3 as pr3
    # Thm 11's cells are cached per process: computed first from the true Lemma C, so that no later test sees cells
    # of the broken one
    pr3._lemma_c(), pr3.design_cells(), pr3.design_monotone()
    raw = sr3.lemma_c.__wrapped__.__wrapped__
    real = sr3.box_extremum

    def broken(expr, box, sense):
        out, ends = real(expr, box, sense)
        if half_the_square and sense == "max" and sp.sympify(expr) == 2 * sr3.d_**2:
            out = out / 2
        return out, ends
    monkeypatch.setattr(sr3, "box_extremum", broken)
    derived = raw()
    monkeypatch.setattr(sr3, "lemma_c", lambda: derived)
    import local2global.proofs.claims_35_basins_r3 as C35
    D = C35._D_SYM
    printed = {"D": derived["D"], "Dbar": derived["Dbar_in_D"].subs(derived["D_symbol"], D)}
    return derived, dataclasses.replace(REGISTRY["r3.lemma_c"], printed=lambda: printed)


def test_lemma_c_derives_the_bound_the_statement_prints_and_checks_its_gaps_on_the_derived_expression():
    lc = sr3.lemma_c()
    D, Y, m, a_lo = lc["D_symbol"], sr3.Y, sr3.m_, sr3.a_lo
    assert sp.simplify(lc["Dbar_in_D"] - (Y + 2 * D**2 + 4 * sp.Max(0, -a_lo) * D)) == 0
    assert sp.cancel(lc["D"] - Y**2 / (8 - 16 * m * Y)) == 0
    assert all(lc["checks"].values())
    assert [case for case, _, shown, _ in lc["gaps"] if shown] == ["a_lo >= 0", "a_lo <= 0"]
    rec = run_claim(REGISTRY["r3.lemma_c"], Context())
    assert rec.own_status == "proved" and rec.control_rejected
    assert [s.kind for s in rec.steps].count("argued") == 1
    gap = [s for s in rec.steps if "bounds $\\Delta$" in s.states][0]
    assert gap.ok and [o.relation for o in gap.obligations] == [">= 0", ">= 0"]


def test_a_bound_with_D_squared_in_place_of_2_D_squared_is_refuted_at_a_corner():
    gaps = sr3.lemma_c_gaps(sr3.Y + sr3._D_POS**2 + 4 * sp.Max(0, -sr3.a_lo) * sr3._D_POS, sr3.lemma_c()["Delta_in_d"])
    assert not any(shown for _, _, shown, _ in gaps)
    assert all(corner.is_negative for _, _, _, corner in gaps)       # y0 = Y, a0 = a_lo, d = D: the gap is -D^2


def test_the_issues_line_with_Y_one_tenth_breaks_the_D_squared_bound_and_keeps_the_derived_one():
    """Y = 1/10, a_lo = a0 = 0, m = 1/100: the integrated line from e0^2 = Y (to 40 digits) has Δ - Y = 3.1e-6 > D^2."""
    from local2global.numeric.dynamics import basins_r3 as nr3
    Y, m = Fraction(1, 10), Fraction(1, 100)
    D = Y**2 / (8 - 16 * m * Y)
    with mp.workdps(60):
        e0 = nr3.frac_of(mp.sqrt(mp.mpf(1) / 10) - mp.mpf(10) ** -45)     # e0^2 <= Y, within 10^-44
        ainf = nr3.a_inf(e0, Fraction(0), dps=40)
        delta = mp.mpf(e0.numerator) ** 2 / e0.denominator**2 + 2 * ainf**2     # Δ = e0^2 - 2 a0^2 + 2 a_inf^2
        excess = delta - mp.mpf(Y.numerator) / Y.denominator
        Dm = mp.mpf(D.numerator) / D.denominator
        assert mp.mpf("3.0e-6") < excess < mp.mpf("3.2e-6")
        assert excess > Dm**2                       # Y + D^2 is not a bound
        assert excess <= 2 * Dm**2                  # Y + 2 D^2 (a_lo = 0) is
    hyp = sr3.lemma_c()
    args = {sr3.Y: sp.Rational(1, 10), sr3.m_: sp.Rational(1, 100), sr3.a_lo: 0}
    assert hyp["hypothesis_rate"].subs(args) > 0 and hyp["hypothesis_reach"].subs(args) > 0


def test_a_derivation_that_gives_D_squared_is_rejected_and_thm_11_is_no_longer_certified(monkeypatch):
    derived, lemma_c = _lemma_c_with(monkeypatch, half_the_square=True)
    assert sp.simplify(derived["Dbar_in_D"] - (sr3.Y + derived["D_symbol"]**2
                                               + 4 * sp.Max(0, -sr3.a_lo) * derived["D_symbol"])) == 0
    assert not derived["checks"]["Dbar_bounds_Delta"]
    recs = {r.id: r for r in run_claims([lemma_c, REGISTRY["thm11.precise"]], Context(), workers=1, dependencies=False)}
    assert recs["r3.lemma_c"].status == "failed"
    bad = [s for s in recs["r3.lemma_c"].steps if not s.ok]
    assert bad and "bounds $\\Delta$" in bad[0].states and any("the bound is false" in v for _, v in bad[0].values)
    assert recs["thm11.precise"].status != "certified" and recs["thm11.precise"].weakest == "r3.lemma_c"


# --- the trichotomy and the limit of every flow ---------------------------------------------------------

def test_the_trichotomy_is_derived_from_the_airy_facts_r3_airy_facts_establishes():
    import local2global.proofs.claims_35_basins_r3 as C35
    airy = C35.airy_established()
    assert set(airy) == set(sr3.AIRY_FACTS) and all(airy.values())
    derived = {case: sr3.fate_rule(*case, airy) for case in sr3.TRICHOTOMY_CASES}
    assert derived == sr3.TRICHOTOMY
    assert sr3.side_fates(airy) == {-1: "axis", 0: "S", 1: "C"}
    for fact in sr3.AIRY_FACTS:            # every fact is needed by some case; without it that case is not derived
        missing = {**airy, fact: False}
        with pytest.raises(ValueError):
            for case in sr3.TRICHOTOMY_CASES:
                sr3.fate_rule(*case, missing)
                sr3.S_side_rule(*case, missing)


def test_an_airy_fact_that_is_not_established_fails_the_trichotomy(monkeypatch):
    import local2global.proofs.claims_35_basins_r3 as C35
    airy = C35.airy_established()
    monkeypatch.setattr(C35, "airy_established", lambda: {**airy, "Bi/Ai->oo": False})
    rec = run_claim(REGISTRY["r3.trichotomy"], Context())
    assert rec.status == "failed"
    assert any(not s.ok and "not derived" in dict(s.values) for s in rec.steps)


def test_a_swapped_entry_of_the_r3_outcome_table_is_rejected_by_l2g_check(monkeypatch, tmp_path):
    """TRICHOTOMY with the fates of beta > 0 and beta < 0 (z0 > a_1) swapped: `l2g check` fails r3.trichotomy,
    and Thm A, which rests on it, with it."""
    from local2global.cli import main
    swapped = {**sr3.TRICHOTOMY, (True, 1): "C", (True, -1): "axis"}
    monkeypatch.setattr(sr3, "TRICHOTOMY", swapped)
    out = tmp_path / "check"
    assert main(["check", "--only", "r3.trichotomy", "r3.basins_A", "--workers", "1", "--out", str(out)]) == 1
    recs = {r["id"]: r for r in json.loads((out / "checks.json").read_text())}
    assert recs["r3.trichotomy"]["status"] == "failed" and recs["r3.basins_A"]["status"] == "failed"
    wrong = [s for s in recs["r3.trichotomy"]["steps"] if not s["ok"]]
    assert len(wrong) == 2 and all(s["kind"] == "exact" for s in wrong)


def test_the_limit_of_every_flow_is_derived_per_sign_datum_and_a_swapped_fate_is_rejected(monkeypatch):
    import local2global.proofs.claims_35_basins_r3 as C35
    facts = sr3.r3_facts().expressions
    fates = sr3.side_fates(C35.airy_established())
    with pytest.raises(ValueError):
        sr3.derive_limit_r3(1, sr3.sign_data()[0], facts, None)        # never a default table
    for regime in (1, -1):
        for d in sr3.sign_data():
            der = sr3.derive_limit_r3(regime, d, facts, fates)
            assert der.cls == sr3.set_class_r3(regime, d, facts=facts)
            assert set(der.arguments) <= set(sr3.ARGUMENTS) and der.arguments
    # the derivation with the fates of the two sides of S swapped: Thm A's sets no longer match
    C35._derivations.cache_clear()
    monkeypatch.setattr(sr3, "side_fates", lambda airy: {-1: "C", 0: "S", 1: "axis"})
    try:
        rec = run_claim(REGISTRY["r3.basins_A"], Context())
        assert rec.status == "failed"
        assert any(not s.ok and s.states.startswith("On every one of the 42 sign data") for s in rec.steps
                   + rec.printed_steps)
    finally:
        C35._derivations.cache_clear()


# --- the Airy tail and the statuses that rest on it -----------------------------------------------------

def test_the_dlmf_tail_bounds_hold_where_mpmath_evaluates_them():
    """A transcription check of the cited bounds (DLMF 9.7.5-9.7.7 with §9.7(iv), n = 1) at a few z >= 1."""
    tail = sr3.airy_tail()
    s = tail["s"]
    f = {k: sp.lambdify(s, tail[k], "mpmath") for k in ("Ai_lower", "Ai_upper", "minus_Aip_lower", "minus_Aip_upper",
                                                        "Bi_lower")}
    with mp.workdps(40):
        for z in (1, mp.mpf(3) / 2, 2, 5, 12):
            r = mp.sqrt(z)
            assert f["Ai_lower"](r) <= mp.airyai(z) <= f["Ai_upper"](r)
            assert f["minus_Aip_lower"](r) <= -mp.airyai(z, 1) <= f["minus_Aip_upper"](r)
            assert f["Bi_lower"](r) <= mp.airybi(z)


def test_the_statuses_resting_on_the_airy_tail_say_what_they_cite_and_argue(claim_records):
    from local2global.proofs._registry import propagate
    recs = {r.id: r for r in propagate([dataclasses.replace(claim_records[c]) for c in claim_records])}
    for cid in ("r3.trichotomy", "r3.basins_A", "r3.basins_B", "thm11.precise", "r3.lemma15_thm3"):
        line = recs[cid].status_line
        assert "cites" in line and "DLMF §9.7(iv)" in line and "argued step" in line, (cid, line)
    assert recs["r3.airy_facts"].status_line.startswith("certified, cites")
    assert recs["thm11.precise"].status == "certified" and recs["r3.lemma15_thm3"].status == "erratum"


# --- Lemma 15 -----------------------------------------------------------------------------------------

def test_lemma_15s_negative_control_is_lemma_15_as_the_paper_prints_it(claim_records):
    cl = REGISTRY["lemma15.convergence"]
    assert cl.printed() == {"starts": "sampled"} and cl.mutant() == {"starts": "every"}
    rec = claim_records["lemma15.convergence"]
    assert rec.own_status == "sampled" and rec.control_rejected
    (ctrl,) = rec.control_steps
    assert ctrl.kind == "sampled" and not ctrl.ok and "every start" in ctrl.states
    vals = dict(ctrl.values)
    assert vals["converged"] == "5 of 6" and "status t_max" in vals["the start near S x [0, oo) (p = q = 9/10)"]


# --- methods follow what ran ------------------------------------------------------------------------------

def test_lemma_14_is_sampled_when_its_identity_falls_back_to_sampling():
    """A form equal to Lemma 14's energy that the exact normal form cannot decide (sin^2 + cos^2 - 1 added): the
    sub-identity falls back to sampling, and the outcome says sampled, not proved."""
    import local2global.proofs.claims_30_attention as C30
    cl = REGISTRY["lemma14.energy"]
    form = C30.E_RECON + sp.sin(sr3.e) ** 2 + sp.cos(sr3.e) ** 2 - 1
    out = cl.check(form, Context(points=6))
    assert out.ok and out.level == "sampled" and "sampled" in out.method
    assert any(s.kind == "sampled" and "the exact decision stopped" in s.states for s in out.steps)
    assert cl.check(cl.printed(), Context(points=6)).level == "proved"
