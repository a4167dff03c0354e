r"""Where the gradient flow of the untied model ends (our result; the paper's premise of weight tying dropped).

The untied canonical model (`canonical_model(untied=True)`, θ = (e, w, h), A = eh(1 + 2w|w|)) has two conserved
quantities (`energy.derive_energy`: its ansatz leaves the multiplier of h² free): with f(w) = E(0, w) =
-(w² + sign(w) log|w|), the function of Lemma 12,

    E_e = 2e² + f(w),    E_h = 2h² + f(w)       (E_e - E_h = 2(e² - h²): the charge of the rescaling
                                                  symmetry (e, h) -> (λe, h/λ), `energy.quadratic_invariants`).

A trajectory off w = 0 therefore stays on a level set {E_e = E_1, E_h = E_2}. This module derives what the
basin theorem rests on, each fact exactly:

* the level sets are regular curves except at the points where ∇E_e, ∇E_h are parallel, and those are exactly
  the non-global critical points (the saddle sets Θ_0, Θ_sad^e, Θ_sad^h of `critical_sets`);
* along a regular level curve A is strictly monotone: D = det[∇A, ∇E_e, ∇E_h] vanishes only on those sets;
* along a level set, A² = (E_1 - f)(E_2 - f) Q(w)²/4 with Q = 1 + 2w|w|, which tends to +∞ at both ends of
  every component (w -> 0⁻, w -> ±∞; w -> 0⁺ is not on any level set, f -> +∞ there);
* the values of (E_e, E_h) on the saddle sets: only levels with E_1 = E_2 or min(E_1, E_2) = E_sad meet them.

Hence (the argument of `proofs/claims_60_untied.py`) a start off w = 0 whose levels avoid those values ends at
the one point of its level-curve component where A = A*: a global minimum.
"""
from __future__ import annotations

import sympy as sp

from . import energy as _energy
from ._cache import derivation
from ._result import Result
from ._symbols import e, h, w, w_neg, w_pos
from .model import canonical_model

#: the levels of the two conserved quantities along one trajectory
E1, E2 = sp.symbols("E_1 E_2", real=True)
_s = sp.Symbol("s", positive=True)


def _model():
    return canonical_model(untied=True)


@derivation
def untied_flow_facts() -> Result:
    r"""The conserved pair (E_e, E_h) of the untied flow and the facts about its level sets (module docstring)."""
    m = _model()
    fam = _energy.derive_energy(m)
    (k,) = fam["free_multipliers"]
    E_fam = fam["E_family"]
    E_e = sp.expand(2 * E_fam.subs(k, 0))
    E_h = sp.expand(2 * sp.diff(E_fam, k))
    f_glued = sp.expand(_energy.derive_energy()["E"].subs(e, 0))
    if sp.expand(E_e - 2 * e**2 - f_glued) != 0 or sp.expand(E_h - 2 * h**2 - f_glued) != 0:
        raise AssertionError("the untied energies are not 2e^2 + f(w), 2h^2 + f(w) with Lemma 12's f")
    if sp.expand(E_e - E_h - 2 * (e**2 - h**2)) != 0:
        raise AssertionError("E_e - E_h is not twice the rescaling charge e^2 - h^2")
    theta = m.params
    branches = {"w>0": w_pos, "w<0": w_neg}
    per = {}
    for lab, wb in branches.items():
        sub = {w: wb}
        vars_ = [wb if v == w else v for v in theta]
        Ee, Eh, A = E_e.subs(sub), E_h.subs(sub), m.A.subs(sub)
        gE = sp.Matrix([[sp.diff(x, v) for v in vars_] for x in (Ee, Eh)])
        minors = [sp.factor(gE[:, [i, j]].det()) for i, j in ((0, 1), (0, 2), (1, 2))]
        singular = sp.solve(minors, vars_, dict=True)
        D = sp.factor(sp.Matrix([[sp.diff(A, v) for v in vars_]]).col_join(gE).det())
        f_b = sp.expand(E_e.subs(sub) - 2 * e**2)
        Q = sp.expand(A / (e * h))
        A2_level = sp.expand((E1 - f_b) * (E2 - f_b) * Q**2 / 4)
        per[lab] = {"minors": minors, "singular": singular, "D": D, "f": f_b, "Q": Q, "A2_on_level": A2_level,
                    "A2_check": sp.expand(A**2 - A2_level.subs({E1: Ee, E2: Eh}))}
        if per[lab]["A2_check"] != 0:
            raise AssertionError(f"A^2 on the level set is not (E1 - f)(E2 - f)Q^2/4 on {lab}")
    ends = {
        "w->0-": sp.limit(per["w<0"]["A2_on_level"].subs(w_neg, -_s), _s, 0, "+"),
        "w->-oo": sp.limit(per["w<0"]["A2_on_level"].subs(w_neg, -_s), _s, sp.oo),
        "w->+oo": sp.limit(per["w>0"]["A2_on_level"].subs(w_pos, _s), _s, sp.oo),
        "f(0+)": sp.limit(per["w>0"]["f"].subs(w_pos, _s), _s, 0, "+"),
    }
    E_sad = _energy.E_sad()
    w_sad = _energy.energy_on_w_axis()["w_sad"]
    at_sets = {}
    for cs in m.critical_sets(False):
        if cs.name == "Theta_star":
            continue
        fixed = {eq.lhs: eq.rhs for eq in cs.equations if isinstance(eq, sp.Eq)}
        at_sets[cs.name] = tuple(sp.expand(sp.expand_log(x.subs(fixed), force=True)) for x in (E_e, E_h))
    return Result(
        ref="Sec. 2 ([23]), untied", title="The level sets of the untied flow",
        assumptions=("(p, q) in (0,1)^2", "w != 0", "E_1, E_2 the levels of E_e, E_h"),
        expressions={"E_e": E_e, "E_h": E_h, "f": f_glued, "E_sad": E_sad, "w_sad": w_sad,
                     "branches": per, "ends": ends, "at_saddle_sets": at_sets},
        derivation="E_e, E_h from the free multiplier of the energy ansatz; 2x2 minors of their Jacobian solved on each "
                   "half-space; D = det[grad A, grad E_e, grad E_h] factored; A^2 on a level set and its limits at the "
                   "ends of the w-range (sp.limit, levels symbolic); (E_e, E_h) evaluated on the solved saddle sets.",
    )
