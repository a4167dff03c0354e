r"""LaTeX layout of the derivations document: text, inline and displayed formulas, line breaking, matrices.

Only presentation lives here; every formula is a SymPy object handed in by a section (and derived in
`local2global.symbolic`), printed by the project's one printer (`symbolic.latex`). Long expressions
are broken at their top-level sums into `align*` lines of at most `LINE` characters; a single piece
that cannot be broken and is longer than `HARD` is scaled to the line width.
"""
from __future__ import annotations

import re

import sympy as sp

from local2global.symbolic import symbols as S
from local2global.symbolic.latex import fold_sigmoid, latex

from .reader import escape

LINE = 68           # visible characters per displayed line before an expression is broken (`visual_len`)
HARD = 84           # a single unbreakable line visibly longer than this is scaled to the line width


def tidy(expr):
    r"""Display form: $x\,\mathrm{sign}(x)$ written $|x|$ for every real symbol x (an identity; SymPy's
    derivative of |x| leaves the product). Matrices entry by entry; anything else unchanged."""
    if isinstance(expr, sp.MatrixBase):
        return expr.applyfunc(tidy)
    if not isinstance(expr, sp.Basic) or not expr.has(sp.sign):
        return expr
    for v in sorted(expr.free_symbols, key=lambda s: s.name):
        if v.is_real:
            expr = expr.subs(v * sp.sign(v), sp.Abs(v))
    return expr


_WORDS = ("log", "exp", "sign", "min", "max", "det", "lim", "sqrt")


def compact(expr):
    """Display form: each entry factored where that prints shorter (a rewriting of the same expression)."""
    if isinstance(expr, sp.MatrixBase):
        return expr.applyfunc(compact)
    expr = tidy(expr)
    f = sp.factor(expr)
    return f if len(latex(f)) < len(latex(expr)) else expr


def visual_len(tex: str) -> int:
    """About how many characters wide a LaTeX formula prints: function names count their letters, other
    commands one, binary relations and operators two (their spacing); braces and scripts nothing."""
    t = re.sub(r"\\(left|right|Big|big|displaystyle|,|;|quad)\b", "", tex)
    t = re.sub(r"\\(mathrm|operatorname|text)\{([^{}]*)\}", r"\2", t)
    t = re.sub(r"\\([A-Za-z]+)", lambda m: m.group(1)[:3] if m.group(1) in _WORDS else "x", t)
    t = re.sub(r"[{}^_ ]", "", t)
    return len(t) + len(re.findall(r"[-+=<>]", t))


def text(s: str) -> str:
    """Plain text (no mathematics) escaped for LaTeX text mode."""
    return escape(s)


def math(expr, fold: bool = True) -> str:
    """Inline `$...$` of a SymPy object (or of ready LaTeX given as a str)."""
    return "$%s$" % (expr if isinstance(expr, str) else latex(tidy(expr), fold=fold))


def merge_displays(chunks: list[str]) -> list[str]:
    """Consecutive one-formula `align*` blocks without a note in between become one `align*` (one line each)."""
    out: list[str] = []
    one = re.compile(r"\\begin\{align\*\}\n(.*)\n\\end\{align\*\}\n\Z", re.S)
    for ch in chunks:
        m = one.match(ch)
        prev = one.match(out[-1]) if out else None
        if m and prev:
            out[-1] = "\\begin{align*}\n%s \\\\[0.6ex]\n%s\n\\end{align*}\n" % (prev.group(1), m.group(1))
        else:
            out.append(ch)
    return out


def in_pi(expr):
    r"""Display helper: write the stationary weights q/(p+q), p/(p+q) as $\pi_0, \pi_1$ (a renaming, not a
    computation: the expression is unchanged as a function of p, q)."""
    pi0, pi1 = sp.symbols("pi0 pi1")

    def sub(x):
        return x.subs({S.q / (S.p + S.q): pi0, S.p / (S.p + S.q): pi1})
    return expr.applyfunc(sub) if isinstance(expr, sp.MatrixBase) else sub(sp.sympify(expr))


def _join_terms(terms: list[str]) -> list[str]:
    """Group printed summands into lines of at most LINE characters (signs kept with their term)."""
    lines, cur = [], ""
    for i, t in enumerate(terms):
        piece = t if i == 0 else (" " + t if t.startswith("-") else " + " + t)
        if cur and visual_len(cur) + visual_len(piece) > LINE:
            lines.append(cur)
            cur = piece if piece.lstrip().startswith("-") else "+ " + t
        else:
            cur += piece
    lines.append(cur)
    return lines


def _pieces(expr: sp.Basic) -> list[str]:
    """Printed lines of one (folded) expression, broken at top-level sums where it is long."""
    tex = latex(expr, fold=False)
    if visual_len(tex) <= LINE:
        return [tex]
    if isinstance(expr, sp.Add):
        return _join_terms([latex(t, fold=False) for t in expr.as_ordered_terms()])
    if isinstance(expr, sp.Mul):
        # coefficient times one long sum: break the sum inside \Big( ... \Big)
        sums = [f for f in expr.args if isinstance(f, sp.Add)]
        if sums:
            big = max(sums, key=lambda f: (len(latex(f, fold=False)), sp.default_sort_key(f)))
            if visual_len(latex(big, fold=False)) <= LINE:
                return [tex]
            rest = sp.Mul(*[f for f in expr.args if f is not big]) if len(expr.args) > 1 else sp.S.One
            inner = _join_terms([latex(t, fold=False) for t in big.as_ordered_terms()])
            head = "" if rest == 1 else ("-" if rest == -1 else latex(rest, fold=False) + r" \cdot ")
            inner[0] = head + r"\Big(" + inner[0]
            inner[-1] = inner[-1] + r"\Big)"
            return inner
    return [tex]


def display(lhs: str, expr, rel: str = "=") -> str:
    """An `align*` block `lhs rel expr`, broken over lines; over-long single pieces are scaled to fit."""
    if isinstance(expr, str):                     # ready-made LaTeX (math)
        return "\\begin{align*}\n%s &%s %s\n\\end{align*}\n" % (lhs, rel, expr)
    expr = fold_sigmoid(tidy(sp.sympify(expr)))
    lines = _pieces(expr)
    if any(visual_len(x) > HARD for x in lines):
        return ("\\begin{center}\n\\resizebox{\\linewidth}{!}{$\\displaystyle %s %s %s$}\n\\end{center}\n"
                % (lhs, rel, latex(expr, fold=False)))
    body = "%s &%s %s" % (lhs, rel, lines[0])
    for x in lines[1:]:
        body += " \\\\\n&\\quad %s" % x
    return "\\begin{align*}\n%s\n\\end{align*}\n" % body


def display_matrix(lhs: str, M: sp.MatrixBase) -> str:
    """A matrix whole when it fits, else entry by entry (`lhs_{ij} = ...`, upper triangle if symmetric)."""
    M = tidy(sp.Matrix(M)).applyfunc(fold_sigmoid)
    tex = latex(M, fold=False)
    if visual_len(tex) <= 2 * LINE:
        return display(lhs, tex)
    symmetric = M.rows == M.cols and all(sp.expand(M[i, j] - M[j, i]) == 0
                                         for i in range(M.rows) for j in range(i))
    out = []
    for i in range(M.rows):
        for j in range(M.cols):
            if symmetric and j < i:
                continue
            sub = "%d" % (i + 1) if M.cols == 1 else "%d%d" % (i + 1, j + 1)
            out.append(display(r"\left(%s\right)_{%s}" % (lhs, sub), M[i, j]))
    if symmetric:
        out.append("The matrix is symmetric; the entries below the diagonal are omitted.\n")
    return "".join(out)


def gather(rows: list[tuple[str, object]]) -> str:
    """Several short formulas `lhs = expr` in one `align*` (one per line)."""
    body = " \\\\\n".join("%s &= %s" % (lhs, expr if isinstance(expr, str) else latex(expr)) for lhs, expr in rows)
    return "\\begin{align*}\n%s\n\\end{align*}\n" % body
