r"""The basin explorer (`l2g all` -> build/site/explorer.html): gradient flow of the paper in the browser.

One static page, offline (no CDN, no server, nothing fetched): pick (p, q), click a start in the (w, e) plane
and the browser integrates the gradient flow θ' = -∇L(θ) (Dormand-Prince 5(4), adaptive, float64), draws the
trajectory, classifies its limit by the critical sets of Thm 1 and shows, beside it, the class that the basins
of Thm 2 (p+q > 1) / Thm 8 (p+q < 1) predict. Underneath: the basins I_min, I*, the saddle asymptotes
e = ±g(w) (I_sad), the critical sets Θ*, Θmin, Θmax, Θsad, and contours of the energy E (Lemma 9). A second
view is the flow with attention in R^3 (Sec. 4.1): the slice a = a0 of Thms A/B (our result), with the
separatrix S (Airy functions), the race threshold w_c and Θ*, Θ_station in the slice, and the (a, e) plane
with S, C = {1 + ae^2 = 0} and the e-nullcline N. A Gaussian cloud of starts shows the fraction that ends in
each basin next to the certified probability of `l2g prob` (computed here, at build time, for a table of σ:
the probability depends on (p, q) only through the regime, `gaussian.depends_only_on_regime`).

What is generated and what is not. Every expression of the paper the page evaluates (A, ∇L, E, f, g, A*, the
basin conditions, the critical sets, U, V, h, the Airy coordinates and lines, the separatrix, Δ, the race) is
printed at build time from the derived SymPy expressions by `numeric.evaluate.javascript` into one block of
the page (`GENERATED_BEGIN` ... `GENERATED_END`); G'(A) is printed from the float64 engine's stable rewrite
written as SymPy. The sets are data (the pieces of `symbolic.basins.basins`, the critical sets of
`canonical_model().critical_sets()`, Theorems A/B of `symbolic.basins_r3`), read by the page. The hand-written
runtime (`explorer.js`) holds only control flow, the integrator (its tableau is data, checked against the order
conditions in the tests), the Airy functions of a real argument (tabulated at build time by arb, stepped
between nodes by the Taylor series of the Airy equation) and drawing; tests/test_explorer.py scans it for
formulas.
"""
from __future__ import annotations

import json
from fractions import Fraction
from functools import lru_cache
from importlib import resources

import sympy as sp

#: the page's file name inside the site
PAGE = "explorer.html"
#: markers of the generated block (the test regenerates it and scans the rest of the scripts)
GENERATED_BEGIN = "/* GENERATED_BEGIN: printed from the derived SymPy expressions by " \
                  "local2global.numeric.evaluate.javascript; do not edit */"
GENERATED_END = "/* GENERATED_END */"

#: σ of the certified probability table (l2g prob; both regimes)
SIGMAS = ("1/20", "1/10", "1/5", "3/10", "1/2", "7/10", "1", "3/2", "2")
#: digits of the certified probabilities shown (each correctly rounded, with its error bound)
PROB_DIGITS = 8
#: the Airy table: nodes z = Z_LO + k H on [Z_LO, Z_HI] (a_1 = -2.338... lies inside; Bi(100) ~ 1e289 < 2^1024)
AIRY_Z_LO, AIRY_Z_HI, AIRY_H = Fraction(-3), Fraction(100), Fraction(1, 4)

#: Dormand-Prince 5(4) (Dormand & Prince 1980): nodes c, matrix a, weights b (order 5) and b_hat (order 4);
#: a typed table, held to the order conditions by tests/test_explorer.py
F = Fraction
DP_C = (F(0), F(1, 5), F(3, 10), F(4, 5), F(8, 9), F(1), F(1))
DP_A = ((),
        (F(1, 5),),
        (F(3, 40), F(9, 40)),
        (F(44, 45), F(-56, 15), F(32, 9)),
        (F(19372, 6561), F(-25360, 2187), F(64448, 6561), F(-212, 729)),
        (F(9017, 3168), F(-355, 33), F(46732, 5247), F(49, 176), F(-5103, 18656)),
        (F(35, 384), F(0), F(500, 1113), F(125, 192), F(-2187, 6784), F(11, 84)))
DP_B = (F(35, 384), F(0), F(500, 1113), F(125, 192), F(-2187, 6784), F(11, 84), F(0))
DP_BHAT = (F(5179, 57600), F(0), F(7571, 16695), F(393, 640), F(-92097, 339200), F(187, 2100), F(1, 40))

#: colours as in Fig. 1 (`figures.fig_flow.COLORS`) and the R^3 figure
CLASS_COLOURS = {"local_min": "#c6dbef", "global_min": "#fdd0a2", "local_max": "#9ecae1", "saddle": "#000000",
                 "station": "#756bb1", "unbounded": "#e7298a"}


# ---------------------------------------------------------------------------------------------
# the generated block
# ---------------------------------------------------------------------------------------------

class _Module:
    """The functions and constants of the generated block, in order, and the names the data refers to."""

    def __init__(self):
        self.parts: list[str] = []
        self.names: list[str] = []
        self.sources: dict = {}

    def fn(self, name, args, exprs, doc="", stages=()):
        from local2global.numeric.evaluate import javascript as J
        if name in self.names:
            raise ValueError(f"two generated functions named {name}")
        self.parts.append(J.function(name, args, exprs, doc, stages))
        self.names.append(name)
        self.sources[name] = (tuple(args), exprs, tuple(stages))
        return name

    def const(self, name, expr, doc=""):
        from local2global.numeric.evaluate import javascript as J
        self.parts.append(J.constant(name, expr, doc))
        self.names.append(name)
        self.sources[name] = ((), expr, ())
        return name


def _gradient_with_stable_G1(model):
    r"""The model's derived gradient ∇L = G'(A)∇A with its factor G'(A) replaced by a call of the printed stable
    G1(p, q, A): what the page integrates. Raises if the derived gradient does not have that factor."""
    from local2global.symbolic import symbols as S
    G1 = sp.Function("G1")
    Gp = model.G_prime.subs(S.A, model.A)
    out = model.gradient.subs(Gp, G1(S.p, S.q, model.A))
    if out.has(sp.exp) or not all(x.has(G1) or x == 0 for x in out):
        raise AssertionError("the derived gradient is not G'(A) times grad A")
    return list(out)


def _set_conditions(mod: _Module, prefix: str, conditions, args) -> list:
    """[function name, op] for each sign condition `expr op 0` (printed once each)."""
    out = []
    for k, (ex, op) in enumerate(conditions):
        out.append([mod.fn(f"{prefix}_{k}", args, ex), op])
    return out


def _critical_sets(mod: _Module, model, tag: str, args) -> list:
    """The critical sets of Thm 1 (tag "r2") / Thm 10 (tag "r3") as data: their equations as residual
    functions, their condition (expression, op) and, for a set of two equations, its points solved here
    (functions of the remaining variables: none in R^2, a in R^3)."""
    from local2global.symbolic import symbols as S
    from local2global.symbolic.sets import relation_of
    out = []
    for cs in model.critical_sets():
        eqs = [x for x in cs.equations if isinstance(x, sp.Eq)]
        entry = {"name": cs.name, "class": cs.classification,
                 "eqs": [mod.fn(f"{tag}_{cs.name}_eq{k}", args, x.lhs - x.rhs) for k, x in enumerate(eqs)],
                 "cond": None, "points": None}
        if cs.condition is not sp.true:
            rel = cs.condition
            entry["cond"] = [mod.fn(f"{tag}_{cs.name}_cond", args, rel.lhs - rel.rhs), relation_of(rel).op]
        if len(eqs) == 2:
            sols = []
            for wb in (S.w_pos, S.w_neg):
                sub = [sp.Eq(x.lhs.subs(S.w, wb), x.rhs) for x in eqs]
                sols += [{S.e: s[S.e], S.w: s[wb]} for s in sp.solve(sub, [S.e, wb], dict=True)]
            if not sols:
                raise AssertionError(f"{cs.name}: no point solved")
            free = tuple(x for x in args if x not in (S.p, S.q, S.e, S.w))
            entry["points"] = mod.fn(f"{tag}_{cs.name}_points", free,
                                     [v for s in sols for v in (s[S.e], s[S.w])],
                                     doc=f"{cs.name}: its points (e, w) in pairs")
        out.append(entry)
    return out


def generated() -> tuple[str, dict]:
    """(the generated JavaScript block, the data it comes with): deterministic, derived on first use."""
    block, data, _ = _build()
    return block, data


def generated_sources() -> dict:
    """name -> (arguments, SymPy expression or list of them, stages) of every generated function or constant:
    what the page's GEN.<name> was printed from (the tests evaluate both and compare)."""
    return dict(_build()[2])


@lru_cache(maxsize=None)
def _build():
    from local2global.numeric.evaluate import javascript as J
    from local2global.symbolic import basins as sb
    from local2global.symbolic import basins_r3 as r3
    from local2global.symbolic import energy as en
    from local2global.symbolic import landscape as sl
    from local2global.symbolic import symbols as S
    from local2global.symbolic.markov import MarkovChain
    from local2global.symbolic.model import canonical_model

    p, q, e, w, a = S.p, S.q, S.e, S.w, S.a
    m2, m3 = canonical_model(False), canonical_model(True)
    mod = _Module()
    data: dict = {}

    # -- the chain and G'(A) (shared by both models: L = G(A))
    mod.fn("regime", (p, q), sp.sign(MarkovChain().switching_factor - 1),
           "sign(p + q - 1): +1 Thm 2, -1 Thm 8 (p + q = 1: the theorems do not apply)")
    P, Q, Dd = sp.symbols("P Q D", positive=True)
    mod.fn("regime_decimal", (P, Q, Dd),
           sp.sign(sp.factor_terms(sp.expand(Dd * (MarkovChain().switching_factor - 1).subs({p: P / Dd, q: Q / Dd})))),
           "sign(p + q - 1) at p = P/D, q = Q/D (exact for integers below 2^53)")
    mod.fn("A_star", (p, q), sl.A_star(), "A* = log((1-p)(1-q)/(pq)), solved from grad F = 0")
    gp, stages = J.G_prime_stable()
    mod.fn("G1", (p, q, S.A), gp, "G'(A) = pi_1 (sigma(A + c*) - P_11): the engine's stable rewrite", stages)

    # -- R^2
    mod.fn("A", (e, w), m2.A, "the slope A(e, w) = z_1 - z_0")
    mod.fn("gradA", (e, w), list(m2.grad_A), "grad A")
    mod.fn("gradL", (p, q, e, w), _gradient_with_stable_G1(m2), "grad L = G'(A) grad A (R^2)")
    mod.fn("E", (e, w), m2.energy, "the energy of the flow (Eq. 11), w != 0")
    ew = en.energy_on_w_axis()
    mod.fn("f_neg", (w,), ew["f_w<0"].subs(S.w_neg, w), "f(w) = E(0, w) on w < 0")
    mod.fn("f_pos", (w,), ew["f_w>0"].subs(S.w_pos, w), "f(w) = E(0, w) on w > 0")
    mod.fn("g", (w,), en.g_of_w().subs(S.w_neg, w), "g(w), w < 0: e = +-g(w) is E = E_sad")
    mod.const("E_sad", ew["E_sad"], "E_sad = E(0, w_sad)")
    mod.const("w_sad", ew["w_sad"], "the saddle's w")
    basins = {}
    for regime in sb.REGIMES:
        rows = []
        for bi, b in enumerate(sb.basins(regime)):
            pieces = None if b.pieces is None else [
                _set_conditions(mod, f"basin{'P' if regime == 'p+q>1' else 'M'}{bi}_{k}", pc.conditions, (e, w))
                for k, pc in enumerate(b.pieces)]
            rows.append({"name": b.name, "class": b.limit_class, "pieces": pieces})
        basins[regime] = rows
    data["basins"] = basins
    data["critical2"] = _critical_sets(mod, m2, "r2", (p, q, e, w))

    # -- R^3 (attention)
    mod.fn("A3", (e, w, a), m3.A, "the slope with attention")
    mod.fn("gradA3", (e, w, a), list(m3.grad_A), "grad A with attention")
    mod.fn("gradL3", (p, q, e, w, a), _gradient_with_stable_G1(m3), "grad L = G'(A) grad A (R^3)")
    mod.fn("E3", (e, w, a), m3.energy, "the energy with attention (Eq. 12), w != 0")
    data["critical3"] = _critical_sets(mod, m3, "r3", (p, q, e, w, a))
    sets3 = {cs.name: [x.lhs - x.rhs for x in cs.equations if isinstance(x, sp.Eq)] for cs in m3.critical_sets()}
    mod.fn("station_distance", (p, q, e, w, a),
           sp.Abs(sets3["Theta_min"][0]) * sp.sqrt(sum(x**2 for x in sets3["Theta_station"])),
           "distance-like measure to Theta_station (as ReducedFlow.distances): |e| |(its residuals)|")
    sf = r3.slope_factors()
    mod.fn("U", (e, a), sf["U"], "A = U(e, a) V(w)")
    mod.fn("V", (w,), sf["V"], "A = U(e, a) V(w)")
    mod.fn("N", (e, a), sp.cancel(sf["grad_U"][0] / e), "the e-nullcline N: dU/de = 0 off e = 0")
    ar, li, se, rc = r3.airy_reduction(), r3.linearisation(), r3.separatrix(), r3.race()
    z, ell = r3.z, r3.ell
    mod.fn("z_of", (e, a), ar["z_of"], "Airy coordinate z")
    mod.fn("ell_of", (a,), ar["ell_of"], "Airy coordinate l")
    mod.fn("y_of", (z, ell), ar["y_of"], "y = e^2 from (z, l)")
    mod.fn("e_of", (z, ell), sp.sqrt(ar["y_of"]), "e >= 0 from (z, l): the root of y = e^2")
    mod.fn("alpha0", (r3.z0, r3.ell0), li["alpha0"], "the line through (z0, l0): phi = alpha Ai + beta Bi")
    mod.fn("beta0", (r3.z0, r3.ell0), li["beta0"], "the line through (z0, l0): beta")
    mod.fn("beta_scale", (r3.z0, r3.ell0), sp.Add(*[sp.Abs(t) for t in sp.Add.make_args(sp.expand(li["beta0"]))]),
           "the sum of the magnitudes of beta's terms: |beta| relative to it measures the cancellation")
    mod.fn("phi", (r3.alpha, r3.beta, z), list(li["phi_values"]), "(phi, phi') on the line")
    pz = (r3.Phi, r3.dPhi, z)
    mod.fn("q_phi", pz, li["q_in_phi"], "q = phi'^2 - z phi^2 (q' = -phi^2)")
    mod.fn("a_phi", pz, li["a_in_phi"], "a on the line")
    mod.fn("y_phi", pz, li["y_in_phi"], "y = e^2 on the line")
    mod.fn("ell_S", (z,), se["ell_S"], "the separatrix: l_S(z) = Ai'(z)/Ai(z)")
    mod.fn("a_S", (z,), se["a_S"], "the separatrix: a_S(z)")
    mod.fn("y_S", (z,), se["y_S"], "the separatrix: y_S(z) = e^2")
    mod.fn("e_S", (z,), sp.sqrt(se["y_S"]), "the separatrix: e_S(z) = sqrt(y_S(z)) >= 0")
    mod.fn("race", (e, w, a, r3.a_inf), sp.expand(ew["f_w<0"].subs(S.w_neg, w) - (ew["E_sad"] - rc["Delta"])),
           "f(w0) - (E_sad - Delta), w0 < 0: the race (> 0: V vanishes before the axis)")
    from local2global.symbolic.basins import W_SIDES, contour_facts
    names = r3.condition_names()
    data["r3"] = {"theorems": {"1": _theorem(r3.theorem_sets(1), names), "-1": _theorem(r3.theorem_sets(-1), names)},
                  "f_sign": {k: int(v) for k, v in contour_facts()["f_sign"].items()}, "w_sides": list(W_SIDES)}

    # -- the runtime's other numerics, as expressions too (no transcendental function in the hand-written part)
    u1, u2, err = sp.symbols("u_1 u_2 err", positive=True)
    mod.fn("normal", (u1, u2), sp.sqrt(-2 * sp.log(u1)) * sp.cos(2 * sp.pi * u2),
           "a standard normal draw from two uniforms (Box-Muller)")
    mod.fn("step_factor", (err,), sp.Rational(9, 10) * err ** sp.Rational(-1, 5),
           "step-size controller of the 5(4) pair: 0.9 err^(-1/5)")
    hits, starts, P_cert = sp.symbols("hits starts P_cert", positive=True)
    mod.fn("z_score", (hits, starts, P_cert),
           (hits / starts - P_cert) / sp.sqrt(sp.Max(P_cert * (1 - P_cert), 1 / starts) / starts),
           "the cloud's z-score: (k/n - P) over the binomial standard error sqrt(P(1-P)/n), floored at 1/n")
    block = "\n".join([GENERATED_BEGIN, "const GEN = {};"] + mod.parts + [GENERATED_END])
    data["generated"] = mod.names
    return block, data, mod.sources


def _theorem(sets, names: dict) -> list:
    """Theorem A or B (`basins_r3.theorem_sets`) as data: each condition [name of its expression, op], the page
    reading the named quantities off the sign datum of a start."""
    return [{"name": b.name, "class": b.limit_class, "pieces": None if b.pieces is None else
             [[[names[ex], op] for ex, op in pc.conditions] for pc in b.pieces]} for b in sets]


# ---------------------------------------------------------------------------------------------
# the data: Airy table, certified probabilities, the integrator's tableau
# ---------------------------------------------------------------------------------------------

def _float_text(x) -> str:
    """The float64 nearest to an arb ball's midpoint (the balls here are far narrower than 2^-53), as the
    shortest decimal that reads back to it."""
    import flint
    return repr(float(flint.arb(x.mid()).str(40, radius=False)))


@lru_cache(maxsize=None)
def airy_table() -> dict:
    """Ai, Ai', Bi, Bi' at the nodes z = AIRY_Z_LO + k AIRY_H (python-flint, 128 bits), rounded to float64,
    and a_1 (the largest zero of Ai): the page evaluates the Airy functions from these by the Taylor series of
    Ai'' = z Ai about the nearest node."""
    import flint
    n = int((AIRY_Z_HI - AIRY_Z_LO) / AIRY_H)
    old = flint.ctx.prec
    flint.ctx.prec = 128
    try:
        cols = ([], [], [], [])
        for k in range(n + 1):
            zk = AIRY_Z_LO + k * AIRY_H
            vals = flint.arb(flint.fmpq(zk.numerator, zk.denominator)).airy()
            for col, v in zip(cols, vals):
                col.append(_float_text(v))
        a1 = _float_text(flint.arb.airy_ai_zero(1))
    finally:
        flint.ctx.prec = old
    return {"z0": str(AIRY_Z_LO), "h": str(AIRY_H), "n": n, "ai": cols[0], "aip": cols[1], "bi": cols[2],
            "bip": cols[3], "a1": a1}


@lru_cache(maxsize=None)
def probability_table() -> dict:
    """`l2g prob`'s certified P(I_min), P(I*) for θ0 ~ N(0, σ^2 I_2), σ in SIGMAS, both regimes, each the
    correctly rounded value to at most PROB_DIGITS significant digits with an error bound (every digit
    guaranteed by the arb enclosure). The chain enters only through its regime (`depends_only_on_regime`:
    checked here, else no table)."""
    from local2global.numeric.dynamics import gaussian
    from local2global.numeric.evaluate.arb import correct_digits, precision
    if not gaussian.depends_only_on_regime()["free_of_p_q"]:
        return {}
    rep = {"p+q>1": ("9/10", "9/10"), "p+q<1": ("1/10", "1/10")}
    out = {}
    for regime, (p, q) in rep.items():
        rows = {}
        for s in SIGMAS:
            pr = gaussian.certified_probabilities(Fraction(p), Fraction(q), Fraction(s), dps=30)
            with precision(pr["prec"]):
                rows[s] = {k: correct_digits(pr[k], PROB_DIGITS) for k in ("local_min", "global_min")}
        out[regime] = rows
    return out


def tableau() -> dict:
    """The Dormand-Prince pair as float64 (exact fractions rounded once)."""
    def f(x):
        return repr(float(x))
    return {"c": [f(x) for x in DP_C], "a": [[f(x) for x in row] for row in DP_A], "b": [f(x) for x in DP_B],
            "bhat": [f(x) for x in DP_BHAT]}


def runtime() -> str:
    """The hand-written runtime (control flow, integrator, Airy stepping, drawing): `explorer.js`."""
    return resources.files("local2global.proofs.outputs").joinpath("explorer.js").read_text(encoding="utf-8")


# ---------------------------------------------------------------------------------------------
# the page
# ---------------------------------------------------------------------------------------------

CSS = """\
.xp-controls { display: flex; flex-wrap: wrap; gap: 0.4em 1.6em; align-items: center; margin: 0.6em 0; }
.xp-controls fieldset { border: 1px solid #d5d5cd; padding: 0.3em 0.7em; margin: 0; }
.xp-controls legend { font-size: 0.85em; color: #444; }
.xp-controls input[type=number] { width: 6.5em; }
.xp-panes { display: flex; flex-wrap: wrap; gap: 1.2em; align-items: flex-start; }
.xp-plot { position: relative; width: 620px; height: 620px; border: 1px solid #d5d5cd; background: #fff; }
.xp-plot canvas { position: absolute; left: 0; top: 0; }
.xp-side { max-width: 34em; }
.xp-side table { font-size: 0.88em; }
#xp-ae-box { position: relative; width: 320px; height: 320px; border: 1px solid #d5d5cd; background: #fff; }
#xp-ae-box canvas { position: absolute; left: 0; top: 0; }
.xp-legend span.sw { display: inline-block; width: 1.4em; height: 0.8em; border: 1px solid #777;
                     vertical-align: middle; margin-right: 0.3em; }
.xp-legend li { list-style: none; }
.xp-legend ul { padding-left: 0; margin: 0.3em 0; }
.xp-agree { font-weight: bold; color: #1b6e20; }
.xp-disagree { font-weight: bold; color: #b3261e; }
"""


def page_html(site_css_href: str = "style.css") -> str:
    """The explorer page (one file: generated block, data, runtime inline; nothing fetched)."""
    block, data = generated()
    data = dict(data, airy=airy_table(), prob=probability_table(), tableau=tableau(), sigmas=list(SIGMAS),
                colours=CLASS_COLOURS)
    payload = json.dumps(data, sort_keys=True, separators=(",", ":")).replace("</", "<\\/")
    body = f"""<p class="note"><a href="index.html">index</a> \u203a basin explorer</p>
<h1>Basin explorer: where gradient flow goes</h1>
<noscript><p class="none">The explorer computes in the browser: it needs JavaScript. Nothing is fetched; the page
is one file. The blueprint pages (<a href="index.html">index</a>) need no script.</p></noscript>
<p>Pick the chain (p, q), then click a start in the plane (or type it below): your browser integrates the
gradient flow θ&prime; = &minus;&nabla;L(θ) of the reduced loss (adaptive Dormand&ndash;Prince 5(4) in float64),
draws the trajectory, classifies its limit by the critical sets and shows, beside it, the class the basins of
Theorem 2 (p+q &gt; 1) or Theorem 8 (p+q &lt; 1) predict. In the view with attention the slice a = a<sub>0</sub>
of R<sup>3</sup> is shown with the separatrix S and the predictions of Theorems A/B (our result).</p>
<div class="xp-controls" id="xp-controls">
<fieldset><legend>chain</legend>
<label>p <input type="range" id="xp-p-range" min="0.01" max="0.99" step="0.01" value="0.9"></label>
<input type="number" id="xp-p" min="0.001" max="0.999" step="0.01" value="0.9">
<label>q <input type="range" id="xp-q-range" min="0.01" max="0.99" step="0.01" value="0.9"></label>
<input type="number" id="xp-q" min="0.001" max="0.999" step="0.01" value="0.9">
<span id="xp-regime" class="badge"></span> <a id="xp-link" href="?p=0.9&amp;q=0.9&amp;view=r2">link to this view</a></fieldset>
<fieldset><legend>view</legend>
<label><input type="radio" name="xp-view" id="xp-view-r2" value="r2" checked> (w, e) plane, R<sup>2</sup></label>
<label><input type="radio" name="xp-view" id="xp-view-r3" value="r3"> slice a = a<sub>0</sub> of R<sup>3</sup></label>
<label>a<sub>0</sub> <input type="range" id="xp-a0-range" min="-2" max="1.5" step="0.05" value="0"></label>
<input type="number" id="xp-a0" min="-3" max="3" step="0.05" value="0"></fieldset>
<fieldset><legend>start</legend>
<label>e<sub>0</sub> <input type="number" id="xp-e0" step="0.01" value="0.5"></label>
<label>w<sub>0</sub> <input type="number" id="xp-w0" step="0.01" value="-0.5"></label>
<button type="button" id="xp-go">integrate</button>
<button type="button" id="xp-clear">clear</button></fieldset>
<fieldset><legend>Gaussian cloud &theta;<sub>0</sub> ~ N(0, &sigma;<sup>2</sup>I)</legend>
<label>&sigma; <select id="xp-sigma"></select></label>
<label>starts <input type="number" id="xp-n" min="10" max="5000" step="10" value="400"></label>
<label>seed <input type="number" id="xp-seed" min="0" max="4294967295" step="1" value="1"></label>
<button type="button" id="xp-cloud">run cloud</button></fieldset>
</div>
<div class="xp-panes">
<div class="xp-plot" id="xp-plot"><canvas id="xp-base" width="620" height="620"></canvas>
<canvas id="xp-over" width="620" height="620"></canvas></div>
<div class="xp-side">
<div id="xp-ae-wrap"><h3>The (a, e) plane: S, C, N</h3>
<div id="xp-ae-box"><canvas id="xp-ae" width="320" height="320"></canvas><canvas id="xp-ae-over" width="320" height="320"></canvas></div>
<p class="note">S: the separatrix (Airy functions): below it the descending gradient lines of U reach the a-axis;
C = {{1 + ae<sup>2</sup> = 0}}, N: the e-nullcline. The dashed line is the slice a = a<sub>0</sub> (click to move it).</p></div>
<h3>Last start</h3>
<table id="xp-result"><tr><td class="none" colspan="2">click in the plane</td></tr></table>
<h3>Cloud</h3>
<table id="xp-cloud-table"><tr><td class="none">run a cloud</td></tr></table>
<div class="xp-legend" id="xp-legend"></div>
</div></div>
<h2 id="how">How the page computes</h2>
<ul class="links">
<li>Every expression of the paper it evaluates is printed at build time from the derived SymPy expressions by
SymPy's JavaScript code printer (one block of the page, between the markers <code>GENERATED_BEGIN</code> and
<code>GENERATED_END</code>); G&prime;(A) uses the float64 engine's stable rewrite (Lemma 5's root in log space),
written as a SymPy expression. The basins and critical sets are data read off <code>symbolic.basins</code>,
<code>canonical_model().critical_sets()</code> and Theorems A/B.</li>
<li>The flow: Dormand&ndash;Prince 5(4) with error control (relative 10<sup>&minus;9</sup>, absolute
10<sup>&minus;12</sup>), stopped when |&nabla;L| &le; 10<sup>&minus;13</sup> or the distance to a critical set is
&le; 10<sup>&minus;9</sup> and not increasing. The limit's class: Θ<sup>*</sup> if |A &minus; A<sup>*</sup>|/|&nabla;A|
&le; 10<sup>&minus;6</sup>, the line (plane) e = 0 if |e| &le; 10<sup>&minus;6</sup> (saddle within 10<sup>&minus;4</sup>
of w<sub>sad</sub>, else the sign of the derived condition of Θ<sub>min</sub>).</li>
<li>The prediction reads the start's basin off the sets in float64: sets of measure zero (I<sub>sad</sub>,
Θ<sub>max</sub>, S, the station thresholds) hold only for starts exactly on them (type e<sub>0</sub> = 0 to start on the
critical line). In R<sup>3</sup> the Airy functions come from a table of Ai, Ai&prime;, Bi, Bi&prime; (arb, at build
time, z = &minus;3, &minus;2.75, &hellip;, 100) stepped by the Taylor series of Ai&Prime; = zAi; a start whose line
reaches the a-axis beyond z = 100 (next to S) is not predicted.</li>
<li>A view can be linked: <code>explorer.html?p=0.1&amp;q=0.1&amp;view=r3&amp;a0=0.5</code> opens the page at
p = q = 0.1 in the slice a<sub>0</sub> = 0.5 (p and q as decimals or fractions; the link beside the regime follows
the controls). A clicked start is rounded to 1/1000, so the fields show exactly the start integrated.</li>
<li>The cloud's certified probabilities are <code>l2g prob</code>'s (arb enclosures, computed when this page was
built for the &sigma; listed; they depend on (p, q) only through the regime). Only guaranteed digits are shown.
The cloud itself is integrated here with a seeded generator.</li>
</ul>
<script type="application/json" id="xp-data">{payload}</script>
<script id="xp-generated">
{block}
</script>
<script id="xp-runtime">
{runtime()}
</script>"""
    return ("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
            "<title>Basin explorer (local2global)</title>\n<link rel=\"stylesheet\" href=\"%s\">\n"
            "<style>\n%s</style>\n</head>\n<body>\n<header><a href=\"index.html\">local2global blueprint</a>"
            "<span class=\"sub\">basin explorer: Makkuva et al., <i>Local to Global</i> (NeurIPS 2024, arXiv "
            "2406.03072)</span></header>\n<main>\n%s\n</main>\n</body>\n</html>\n") % (site_css_href, CSS, body)


@lru_cache(maxsize=None)
def files() -> dict:
    """{path inside the site: bytes}: the explorer page."""
    return {PAGE: page_html().encode("utf-8")}
