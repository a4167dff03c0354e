r"""JavaScript printed from the derived SymPy expressions (the basin explorer's evaluator, `l2g all` -> site).

Nothing here types a formula of the paper: `function` prints a derived expression (or a list of them) as a
JavaScript function with SymPy's JavaScript code printer (`sympy.printing.jscode`), common subexpressions
shared (`sp.cse`). The printer knows `Math.log1p`/`Math.expm1` and maps the Airy functions to the page's
special-function evaluator (`SPECIAL.ai`, ... : tabulated values and the Airy equation, see the runtime);
floats are refused (a derived expression carries exact constants only).

The one numerically delicate piece, G'(A) = F_A(A, c*(A)) (Lemma 5's root inside a sigmoid), is printed from
`G_prime_stable()`: the float64 engine's stable rewrite (`numeric.evaluate.engine`, the same branches in the
same order) written once as a SymPy Piecewise in (p, q, A). Each branch is an identity with the derived root
(`stable_stages` lists them; tests/test_explorer.py checks them exactly where SymPy decides and at 50
digits elsewhere), and the printed function is held against the engine in the browser.
"""
from __future__ import annotations

from functools import lru_cache

import sympy as sp
from sympy.codegen.cfunctions import expm1, log1p
from sympy.printing.jscode import JavascriptCodePrinter

from local2global.symbolic import symbols as S
from local2global.symbolic.markov import MarkovChain

#: |A| at or below which the root is expanded around A = 0 (engine `_A_NEAR`)
A_NEAR = sp.Integer(1)
#: |A| above which e^A would overflow or underflow float64: log space (engine `_A_DIRECT`)
A_DIRECT = sp.Integer(700)

#: the page's special functions (runtime): Airy functions of a real argument
SPECIAL = {"airyai": "SPECIAL.ai", "airyaiprime": "SPECIAL.aip", "airybi": "SPECIAL.bi", "airybiprime": "SPECIAL.bip"}


class Printer(JavascriptCodePrinter):
    """SymPy's JavaScript printer with log1p/expm1, the Airy functions of the page, small integer powers as
    products (x*x is the exactly rounded square, as numpy's x**2), and floats refused."""

    def __init__(self):
        super().__init__({"strict": False, "user_functions": {"log1p": "Math.log1p", "expm1": "Math.expm1", "G1": "GEN.G1",
                                                              **SPECIAL}})

    def _print_Float(self, expr):
        raise TypeError(f"float literal {expr} in a derived expression")

    def _print_Pow(self, expr):
        b, x = expr.base, expr.exp
        if x.is_Integer and 2 <= int(x) <= 4:
            base = self.parenthesize(b, 1000)            # an atom or a parenthesised expression
            return "(" + "*".join([base] * int(x)) + ")"
        if x.is_Integer and -4 <= int(x) <= -1:
            return "(1/%s)" % self._print_Pow(sp.Pow(b, -x, evaluate=False)) if int(x) < -1 else \
                "(1/%s)" % self.parenthesize(b, 1000)
        if x == sp.Rational(1, 3):
            return "Math.cbrt(%s)" % self._print(b)
        if x == sp.Rational(2, 3):
            return "(Math.cbrt(%s)*Math.cbrt(%s))" % (self._print(b), self._print(b))
        return super()._print_Pow(expr)


_PRINTER = Printer()


def js(expr) -> str:
    """One expression as a JavaScript expression."""
    return _PRINTER.doprint(sp.sympify(expr))


def function(name: str, args, exprs, doc: str = "", stages=()) -> str:
    """`GEN.<name> = function(args) {...}`: the expression (or list of expressions: an array is returned)
    printed with its common subexpressions as constants. `stages` are (symbol, expression) pairs bound in
    order before it (each may use the arguments and the symbols bound before it): the structure of a
    computation in steps (as the engine computes A + c*, then the sigmoid), which SymPy would otherwise merge."""
    single = not isinstance(exprs, (list, tuple, sp.MatrixBase))
    items = [sp.sympify(exprs)] if single else [sp.sympify(x) for x in exprs]
    known = set(args)
    names = [str(a) for a in args]
    lines = [f"/** {doc} */" if doc else None, f"GEN.{name} = function({', '.join(names)}) {{"]
    counter = iter(range(10**6))
    for sym, ex in list(stages) + [(None, items)]:
        exs = ex if sym is None else [sp.sympify(ex)]
        for x in exs:
            free = x.free_symbols - known
            if free:
                raise ValueError(f"{name}: free symbols {sorted(map(str, free))} not among the arguments")
        reps, reduced = sp.cse(exs, symbols=(sp.Symbol(f"t_{next(counter)}") for _ in iter(int, 1)),
                               optimizations=None)
        for s_, v in reps:
            lines.append(f"  const {s_} = {js(v)};")
        if sym is not None:
            lines.append(f"  const {sym} = {js(reduced[0])};")
            names.append(str(sym))
            known.add(sym)
    if len(set(names)) != len(names):
        raise ValueError(f"{name}: two arguments or stages print alike: {names}")
    body = js(reduced[0]) if single else "[" + ", ".join(js(x) for x in reduced) + "]"
    lines.append(f"  return {body};")
    lines.append("};")
    return "\n".join(x for x in lines if x is not None)


def constant(name: str, expr, doc: str = "") -> str:
    """`GEN.<name> = <value>`: a constant derived expression (no free symbols)."""
    x = sp.sympify(expr)
    if x.free_symbols:
        raise ValueError(f"{name}: not a constant: {x}")
    return (f"/** {doc} */\n" if doc else "") + f"GEN.{name} = {js(x)};"


# ---------------------------------------------------------------------------------------------
# G'(A): the engine's stable rewrite as one SymPy expression
# ---------------------------------------------------------------------------------------------

def _chain():
    ch = MarkovChain()
    return ch.pi0, ch.pi1, ch.transition(1, 0), ch.transition(1, 1)


#: the intermediate quantities of the rewrite (bound in turn by the printed function)
_d, _K, _s, _delta, _half, _low = sp.symbols("d K s delta half low", real=True)


@lru_cache(maxsize=None)
def stable_stages() -> tuple:
    r"""The engine's rewrite of $A + c^\star(A)$ (`engine._offsets_and_tails`) in steps, in (p, q, A):
    d = p - q, K = e^A, s = |d| + sqrt(D) with D = d^2 + 4pqK (the derived discriminant of Lemma 5,
    written with d^2 so that it does not cancel when p ~ q), δ, and the two log-space values; then

    * near (|A| <= 1): D = (p+q)^2 (1 + r), r = 4pq expm1(A)/(p+q)^2, so |d| + sqrt D = 2 max(p, q) + δ with
      δ = (p+q) r/(1 + sqrt(1+r)): A + c* = log(p/q) + log1p(δ/(2p)) (d >= 0), c* = log(p/q) - log1p(δ/(2q));
    * mid (1 < |A| <= 700): e^{A+c*} = s/(2q) = K u* (d >= 0), e^{c*} = 2p/s = the conjugate root (d < 0);
    * big (|A| > 700): log s = (log 4pq + A)/2 for A > 700 (the dropped terms below 1e-140 relative for
      pq > 1e-200) and for d = 0 (exactly); log s = log(2|d|) + log1p(ρ/(2(1 + sqrt(1+ρ)))), ρ = 4pq e^A/d^2
      for A < -700, d != 0.

    Returns ((symbol, expression), ...) ending with x = A + c* and t = e^{-|x|} (taken as min(Ku, 1/Ku)
    from Ku = e^{A+c*} where the engine has it at hand)."""
    p, q, A = S.p, S.q, S.A
    X, T = sp.symbols("x t", real=True)
    r = 4 * p * q / (p + q) ** 2 * expm1(A)
    rho = 4 * p * q * _K / _d**2
    near, mid = sp.Abs(A) <= A_NEAR, sp.Abs(A) <= A_DIRECT
    Ku_pos, u_neg = _s / (2 * q), (2 * p) / _s
    x = sp.Piecewise(
        (sp.log(p / q) + log1p(_delta / (2 * p)), near & (_d >= 0)),
        (A + (sp.log(p / q) - log1p(_delta / (2 * q))), near),
        (sp.log(Ku_pos), mid & (_d >= 0)),
        (sp.log(u_neg) + A, mid),
        (_half - sp.log(2 * q), (A > 0) & (_d >= 0)),
        (A + (sp.log(2 * p) - _half), A > 0),
        (_low - sp.log(2 * q), _d > 0),
        (A + (sp.log(2 * p) - _low), _d < 0),
        (_half - sp.log(2 * q), True), evaluate=False)
    t = sp.Piecewise(
        (sp.Min(Ku_pos, 1 / Ku_pos), mid & sp.Not(near) & (_d >= 0)),
        (sp.Min(u_neg * _K, 1 / (u_neg * _K)), mid & sp.Not(near)),
        (sp.exp(-sp.Abs(X)), True), evaluate=False)
    return ((_d, p - q), (_K, sp.exp(A)), (_s, sp.Abs(_d) + sp.sqrt(_d**2 + 4 * p * q * _K)),
            (_delta, (p + q) * (r / (1 + sp.sqrt(1 + r)))), (_half, (sp.log(4 * p * q) + A) / 2),
            (_low, sp.log(2 * sp.Abs(_d)) + log1p(rho / (2 * (1 + sp.sqrt(1 + rho))))),
            (X, x), (T, t))


@lru_cache(maxsize=None)
def G_prime_stable() -> tuple[sp.Expr, tuple]:
    r"""$G'(A) = \pi_1(\sigma(A + c^\star) - P_{11})$ (envelope, `landscape.structure`) in the engine's stable
    form: x = A + c* from `stable_stages`, then $P_{10} - \sigma(-x)$ for x >= 0 and $\sigma(-|x|) - P_{11}$
    for x < 0 with $\sigma(-|x|) = t/(1+t)$, $t = e^{-|x|}$ (non-negative terms only).

    Returned as (expression, stages) for `function`; `G_prime_expression()` substitutes the stages back."""
    _, pi1, P10, P11 = _chain()
    stages = stable_stages()
    X, T = stages[-2][0], stages[-1][0]
    Pi1, Q10, Q11 = sp.symbols("pi_1 P_10 P_11", real=True)
    small = T / (1 + T)                                  # sigma(-|x|)
    out = Pi1 * sp.Piecewise((Q10 - small, X >= 0), (small - Q11, True), evaluate=False)
    return out, stages + ((Pi1, pi1), (Q10, P10), (Q11, P11))


def substitute_stages(expr, stages) -> sp.Expr:
    """An expression with its stage symbols substituted back (one expression in the arguments)."""
    out = sp.sympify(expr)
    for sym, ex in reversed(stages):
        out = out.subs(sym, ex)
    return out


def G_prime_expression() -> sp.Expr:
    """`G_prime_stable` as one expression in (p, q, A), for evaluating it elsewhere (mpmath, tests)."""
    return substitute_stages(*G_prime_stable())


def staged_callable(args, expr, stages=(), modules=("mpmath",)):
    """A Python callable evaluating `expr` after its `stages` in turn (as the printed function does), each
    piece lambdified for `modules`: the branches of a Piecewise are evaluated only when taken (substituting
    the stages back would make SymPy fold them into the conditions). A stage that cannot be evaluated (a
    division by zero in a branch not taken: JavaScript gives inf or nan there) is nan."""
    args = tuple(args)
    mods = list(modules)
    steps, known = [], args
    for sym, ex in stages:
        steps.append(sp.lambdify(known, ex, modules=mods))
        known = known + (sym,)
    final = sp.lambdify(known, expr, modules=mods)

    def call(*vals):
        vals = tuple(vals)
        for fn in steps:
            try:
                v = fn(*vals)
            except (ZeroDivisionError, ValueError):      # a stage only a branch not taken uses (JS: inf, nan)
                v = float("nan")
            vals = vals + (v,)
        return final(*vals)
    return call
