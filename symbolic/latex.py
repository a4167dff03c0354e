r"""The one LaTeX printer of the project: SymPy's `LatexPrinter` with the paper's notation.

Everything that emits LaTeX (derivations document, claim statements, notebooks) goes through
`latex(expr)`. Differences from SymPy's defaults, and why:

- symbol names follow one table, `SYMBOL_NAMES` (SymPy would print ``theta_star`` as
  ``\theta_{star}`` and ``pi0`` as ``\pi_{0}`` but ``s0`` as ``s_{0}`` instead of sigma(c));
- ``Heaviside(x)`` prints as an indicator, not SymPy's ``\theta(x)``, which clashes with the
  paper's parameter theta;
- ``exp(x)`` prints as ``\exp(x)``: the paper's embedding scalar is called e, so ``e^{x}`` would
  be ambiguous;
- ``1/(1 + exp(-z))`` is folded back to ``\sigma(z)`` (the derivations expand sigma(z) into
  exponentials; printing them back keeps the paper's form and the length of gradients small);
- ``Abs(w)`` prints as ``|w|``, ``log`` as ``\log``, ``sign`` as ``\operatorname{sign}``.

Output is deterministic: SymPy orders the terms of sums and products canonically, and this
printer adds no state.

>>> import sympy as sp
>>> latex(sp.Symbol("theta_star"))
'\\theta^{\\star}'
>>> latex(sp.Heaviside(sp.Symbol("x")))
'\\mathbf{1}_{\\{x > 0\\}}'
"""
from __future__ import annotations

import sympy as sp
from sympy.printing.latex import LatexPrinter

#: the paper's notation, by SymPy symbol name. Names not listed print with SymPy's rules.
SYMBOL_NAMES: dict[str, str] = {
    # chain and stationary law (Sec. 2)
    "p": "p", "q": "q",
    "pi0": r"\pi_0", "pi1": r"\pi_1", "pi_0": r"\pi_0", "pi_1": r"\pi_1",
    "X": "X", "Y": "Y",
    # canonical parameters (Sec. 3): e is the embedding scalar, not Euler's number
    "e": "e", "w": "w", "b": "b", "a": "a",
    "A": "A", "c": "c", "u": "u", "K": "K",
    "s0": r"\sigma(c)", "s1": r"\sigma(A+c)",
    "f1": "f_1", "f2": "f_2",
    # optima and critical sets (Lemma 5, Thms 1, 6, 7)
    "theta": r"\theta", "theta_star": r"\theta^{\star}", "theta_0": r"\theta_0", "theta_lim": r"\theta_{\lim}",
    "A_star": r"A^{\star}", "b_star": r"b^{\star}", "c_star": r"c^{\star}", "u_star": r"u^{\star}",
    "L_star": r"L^{\star}",
    "Theta_star": r"\Theta^{\star}", "Theta_min": r"\Theta_{\min}", "Theta_max": r"\Theta_{\max}",
    "Theta_sad": r"\Theta_{\mathrm{sad}}",
    "Gamma_star": r"\Gamma^{\star}", "Gamma_min": r"\Gamma_{\min}", "Gamma_sad": r"\Gamma_{\mathrm{sad}}",
    "Theta_station": r"\Theta_{\mathrm{station}}", "Gamma_station": r"\Gamma_{\mathrm{station}}",
    # the untied model (head scale h; Sec. 2's premise dropped): its saddle sets and conserved energies
    "h": "h", "Theta_0": r"\Theta_0", "Gamma_0": r"\Gamma_0",
    "Theta_sad_e": r"\Theta_{\mathrm{sad}}^{e}", "Theta_sad_h": r"\Theta_{\mathrm{sad}}^{h}",
    "Gamma_sad_e": r"\Gamma_{\mathrm{sad}}^{e}", "Gamma_sad_h": r"\Gamma_{\mathrm{sad}}^{h}",
    "E_e": "E_e", "E_h": "E_h", "E_1": "E_1", "E_2": "E_2",
    # energy and basins (Sec. 4)
    "E_sad": r"E_{\mathrm{sad}}", "E_0": "E_0",
    "I_star": r"I^{\star}", "I_min": r"I_{\min}", "I_max": r"I_{\max}", "I_sad": r"I_{\mathrm{sad}}",
    "I_common": r"I_{\mathrm{common}}",
    # attention weights of the rank-one transformer (canonical.rank_one_logit)
    "att_1": r"\mathrm{att}_1", "att_2": r"\mathrm{att}_2",
}

#: names of critical sets and similar labels used as plain strings (e.g. CriticalSet.name)
def name(label: str) -> str:
    """LaTeX for a paper label given as a string ("Theta_min" -> \\Theta_{\\min}), else \\mathrm{label}."""
    if label in SYMBOL_NAMES:
        return SYMBOL_NAMES[label]
    return r"\mathrm{" + label.replace("_", r"\_") + "}"


_sigma = sp.Function("sigma")


def fold_sigmoid(expr):
    r"""Rewrite every $1/(1 + e^{-z})$ as $\sigma(z)$ (display only; the result is not for computing)."""
    if not isinstance(expr, sp.Basic):
        return expr

    def is_logistic(t):
        if not (isinstance(t, sp.Pow) and t.exp == -1 and isinstance(t.base, sp.Add)):
            return False
        args = t.base.args
        return len(args) == 2 and sp.S.One in args and any(isinstance(x, sp.exp) for x in args)

    def to_sigma(t):
        z = -[x for x in t.base.args if isinstance(x, sp.exp)][0].args[0]
        return _sigma(z)

    return expr.replace(is_logistic, to_sigma)


class PaperLatexPrinter(LatexPrinter):
    """SymPy's LaTeX printer with the paper's symbol names and conventions (see module doc)."""

    printmethod = "_paper_latex"

    def __init__(self, settings=None):
        settings = dict(settings or {})
        settings.setdefault("mat_delim", "(")
        super().__init__(settings)

    def _print_Symbol(self, expr, style="plain"):
        if expr.name in SYMBOL_NAMES:
            return SYMBOL_NAMES[expr.name]
        return super()._print_Symbol(expr, style=style)

    def _print_Heaviside(self, expr, exp=None):
        # the indicator of x > 0; SymPy's \theta(x) would collide with the parameter theta
        tex = r"\mathbf{1}_{\{%s > 0\}}" % self._print(expr.args[0])
        return tex if exp is None else r"\left(%s\right)^{%s}" % (tex, exp)

    def _print_Abs(self, expr, exp=None):
        inner = self._print(expr.args[0])
        tex = "|%s|" % inner if expr.args[0].is_Atom else r"\left|%s\right|" % inner
        return tex if exp is None else "%s^{%s}" % (tex, exp)

    def _print_exp(self, expr, exp=None):
        tex = r"\exp\left(%s\right)" % self._print(expr.args[0])
        return tex if exp is None else r"%s^{%s}" % (tex, exp)

    def _print_log(self, expr, exp=None):
        arg = expr.args[0]
        inner = self._print(arg)
        head = r"\log" if exp is None else r"\log^{%s}" % exp
        return ("%s %s" % (head, inner)) if arg.is_Symbol else (r"%s\left(%s\right)" % (head, inner))

    def _print_sign(self, expr, exp=None):
        tex = r"\operatorname{sign}\left(%s\right)" % self._print(expr.args[0])
        return tex if exp is None else r"%s^{%s}" % (tex, exp)

    def _print_Function(self, expr, exp=None):
        if expr.func.__name__ == "sigma":
            tex = r"\sigma\left(%s\right)" % ", ".join(self._print(a) for a in expr.args)
            return tex if exp is None else r"\sigma^{%s}\left(%s\right)" % (exp, ", ".join(self._print(a) for a in expr.args))
        return super()._print_Function(expr, exp=exp)

    # printmethod "_paper_latex" bypasses the constants' own `_latex` methods: print them here
    def _print_Infinity(self, expr):
        return r"\infty"

    def _print_NegativeInfinity(self, expr):
        return r"-\infty"

    def _print_ComplexInfinity(self, expr):
        return r"\tilde{\infty}"

    def _print_Pi(self, expr):
        return r"\pi"

    def _print_ImaginaryUnit(self, expr):
        return r"\mathrm{i}"

    def _print_Exp1(self, expr):
        return r"\mathrm{e}"          # e is the embedding scalar

    def _print_BooleanTrue(self, expr):
        return r"\text{always}"

    def _print_BooleanFalse(self, expr):
        return r"\text{never}"


_PRINTER = PaperLatexPrinter()


def latex(expr, fold: bool = True) -> str:
    r"""LaTeX (math mode, no delimiters) of a SymPy object in the paper's notation.

    `fold` rewrites logistic terms 1/(1+e^{-z}) as \sigma(z) before printing. Dicts print as
    `key \mapsto value` lists, tuples/lists as comma-separated lists.
    """
    if isinstance(expr, dict):
        return r",\quad ".join(r"%s \mapsto %s" % (latex(k, fold), latex(v, fold)) for k, v in expr.items())
    if isinstance(expr, (tuple, list)):
        return ", ".join(latex(x, fold) for x in expr)
    if isinstance(expr, str):
        return name(expr)
    if isinstance(expr, bool):
        expr = sp.true if expr else sp.false
    expr = sp.sympify(expr)
    if fold:
        expr = fold_sigmoid(expr)
    return _PRINTER.doprint(expr)
