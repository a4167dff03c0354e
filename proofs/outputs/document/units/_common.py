r"""Shared by the section modules: the two model objects and the notation helpers (no mathematics).

Every formula a section shows comes from `local2global.symbolic` through these names; the helpers only
print (`m` inline, `in_pi` renames the stationary weights as \pi_0, \pi_1).
"""
from __future__ import annotations

from local2global.symbolic import symbols as S
from local2global.symbolic.latex import latex, name as latex_name
from local2global.symbolic.model import canonical_model

from ..layout import in_pi, math as m, tidy
from ..unit import Block, Entry, section

__all__ = ["S", "latex", "latex_name", "M", "MA", "CHAIN", "m", "P", "in_pi", "Block", "Entry", "section",
           "sets_list", "CLASS_WORDS", "t", "pt", "show", "show_all"]

M = canonical_model()
MA = canonical_model(True)
CHAIN = M.chain

#: the classes of critical points, in words
CLASS_WORDS = {"global_min": "global minima", "local_min": "local minima", "local_max": "local maxima",
               "saddle": "saddle points"}


def P(expr) -> str:
    """Inline mathematics of expr with the stationary weights written as pi_0, pi_1."""
    return m(in_pi(expr))


def t(expr) -> str:
    """LaTeX of expr for use inside $...$ (no delimiters)."""
    return latex(tidy(expr))


def pt(expr) -> str:
    """LaTeX of expr with pi_0, pi_1, for use inside $...$."""
    return latex(tidy(in_pi(expr)))


def show(lhs: str, expr, rel: str = "=") -> str:
    """A displayed formula (align*) for use inside a statement or derivation."""
    from ..layout import display
    return "\n" + display(lhs, expr, rel)


def show_all(rows) -> str:
    """Several displayed formulas (lhs, expr) in one align* where they fit on one line each."""
    from ..layout import display, merge_displays
    return "\n" + "".join(merge_displays([display(lhs, ex) for lhs, ex in rows]))


def sets_list(items) -> str:
    """An itemize of (name, set-builder LaTeX, class) rows: `name = set` (class)."""
    rows = ["\\begin{itemize}\n"]
    for name, tex, cls in items:
        rows.append("\\item $%s = %s$: %s.\n" % (name, tex, CLASS_WORDS.get(cls, cls.replace("_", " "))))
    rows.append("\\end{itemize}\n")
    return "".join(rows)
