r"""A claim's printed, corrected or altered *form* (the object its check compares) as text with mathematics.

Forms are SymPy expressions and relations, matrices, numbers, sets and dicts of labels (Remark 5's
``{"R3": "defined", "R4": "undefined"}``, Lemma 15 / Thm 3's exempt sets by regime). `form_rows` writes one as
rows ``(label, value)`` of plain text with LaTeX mathematics inside ``$...$``, printed by the project's one LaTeX
printer (`symbolic.latex`, set-builder notation from `sets`); the PDF prints the rows with `reader.mixed`, the
site with `Renderer.text` (MathML). A label such as ``"p+q>1"`` or ``"w=0"`` that reads as a relation between the
model's scalars is set as that relation; any other string stays text. Never a Python repr.
"""
from __future__ import annotations

import re
from fractions import Fraction

import sympy as sp

from local2global.symbolic.latex import latex

#: the model's scalars a form label may name
_SCALARS = {n: sp.Symbol(n, real=True) for n in ("p", "q", "e", "w", "a", "b")}
_LABEL = re.compile(r"\s*([a-z0-9+\-*/() ]+?)\s*(<=|>=|==|!=|=|<|>)\s*([a-z0-9+\-*/() ]+?)\s*")
_OPS = {"<=": r"\leq", ">=": r"\geq", "==": "=", "=": "=", "!=": r"\neq", "<": "<", ">": ">"}


def _side(text: str):
    from sympy.parsing.sympy_parser import parse_expr, standard_transformations
    try:
        x = parse_expr(text, local_dict=dict(_SCALARS), transformations=standard_transformations)
    except Exception:                           # noqa: BLE001 - not an expression: the label stays text
        return None
    return x if isinstance(x, sp.Expr) and x.free_symbols <= set(_SCALARS.values()) else None


def label(text: str) -> str:
    """A form's string label: a relation between the model's scalars as mathematics ("w=0" -> $w = 0$), else the
    text itself."""
    m = _LABEL.fullmatch(text)
    if m:
        lhs, rhs = _side(m.group(1)), _side(m.group(3))
        if lhs is not None and rhs is not None:
            return "$%s %s %s$" % (latex(lhs), _OPS[m.group(2)], latex(rhs))
    return text


def value(x) -> str:
    """One form value as text with $...$ mathematics."""
    from .sets import conditions_tex
    if isinstance(x, bool):
        return "yes" if x else "no"
    if isinstance(x, (set, frozenset)):
        items = sorted((value(v) for v in x), key=str)
        if not items:
            return r"$\emptyset$"
        if all(i.startswith("$") and i.endswith("$") for i in items):
            # a set of relation labels is the union of the regions they describe
            return "$%s$" % r" \cup ".join(r"\{%s\}" % i[1:-1] for i in items)
        return "the set of " + ", ".join(items)
    if isinstance(x, dict):
        return "; ".join(f"{k}: {v}" for k, v in form_rows(x))
    if isinstance(x, (list, tuple)):
        return ", ".join(value(v) for v in x)
    if isinstance(x, (Fraction, int)):
        x = sp.Rational(x.numerator, x.denominator) if isinstance(x, Fraction) else sp.Integer(x)
    if isinstance(x, sp.Basic) and (x.is_Relational or isinstance(x, (sp.And, sp.Or))):
        return "$" + "$ and $".join(conditions_tex(x)) + "$"
    if isinstance(x, (sp.Basic, sp.MatrixBase)):
        return "$%s$" % latex(x)
    if isinstance(x, float):
        return repr(x)
    if callable(x):
        return "a procedure (not a formula)"
    return label(str(x))


def form_rows(form) -> list[tuple[str, str]]:
    """A form as rows (label, value), each text with $...$ mathematics: a dict row by row (sorted by label), any
    other form as one row with an empty label."""
    if isinstance(form, dict):
        return [(label(str(k)), value(v)) for k, v in sorted(form.items(), key=lambda kv: str(kv[0]))]
    return [("", value(form))]


def claim_forms(claim) -> list[tuple[str, list[tuple[str, str]] | None, str]]:
    """(heading, rows or None, why not) for the printed and the corrected form of an erratum claim; a form that
    cannot be built is reported by its exception's name."""
    out = []
    for heading, make in (("As printed in the paper", getattr(claim, "printed", None)),
                          ("Corrected", getattr(claim, "corrected", None))):
        if make is None:
            continue
        try:
            out.append((heading, form_rows(make()), ""))
        except Exception as ex:                 # noqa: BLE001 - shown, never a crash
            out.append((heading, None, f"could not be built ({type(ex).__name__})"))
    return out
