r"""Sets in set-builder notation: the basins of `symbolic.basins` and the critical sets of the model.

The sets are SymPy objects (relations, conjunctions, the pieces of a basin); this module only writes
them the way a paper does, e.g. $I_{\min} = \{(e, w) \in \mathbb{R}^2 : -\tfrac{\sqrt2}{2} < w < 0,\ |e| < g(w)\}$
instead of SymPy's `-sqrt(...) + Abs(e) < 0 & w + sqrt(2)/2 > 0 & w < 0`:

* a relation linear in one variable, `k(v - c) op 0`, is written `v op c` (op flipped when k < 0);
* two bounds on one variable become one chain `lo < v <= hi`;
* `|x| - R op 0` is written `|x| op R`, and a side equal to a named expression (`names`, e.g. the derived
  g(w) -> "g(w)") is written by its name;
* a set whose equations fix every coordinate is written as the point it is.

Nothing is simplified beyond moving terms across a relation; every expression is printed by the
project's one printer.
"""
from __future__ import annotations

import sympy as sp

from local2global.symbolic.latex import latex, name as latex_name

_OPS = {sp.StrictLessThan: "<", sp.LessThan: r"\leq", sp.StrictGreaterThan: ">", sp.GreaterThan: r"\geq",
        sp.Equality: "=", sp.Unequality: r"\neq"}
_FLIP = {"<": ">", r"\leq": r"\geq", ">": "<", r"\geq": r"\leq", "=": "=", r"\neq": r"\neq"}
_BASIN_OPS = {"<": "<", ">": ">", "==": "=", "<=": r"\leq", ">=": r"\geq"}


def space_tex(params) -> str:
    """'(e, w) \\in \\mathbb{R}^2' for the coordinates params."""
    return r"(%s) \in \mathbb{R}^{%d}" % (", ".join(latex(v) for v in params), len(params))


def _named(expr, names: dict) -> str:
    for ex, tex in names.items():
        if sp.expand(expr - ex) == 0:
            return tex
    return latex(expr)


def relation(lhs, op: str, rhs=0, names: dict | None = None) -> tuple:
    """(left, op, right, variable, constant) of `lhs - rhs op 0` written the readable way (`op` a LaTeX
    relation); variable and constant are set when the relation is a bound `v op c` on one coordinate."""
    names = names or {}
    expr = sp.expand(sp.sympify(lhs) - sp.sympify(rhs))
    free = sorted(expr.free_symbols, key=lambda s: s.name)
    # |x| - R op 0  ->  |x| op R
    if isinstance(expr, sp.Add):
        absterms = [t for t in expr.args if isinstance(t, sp.Abs)]
        if len(absterms) == 1:
            rest = -(expr - absterms[0])
            return latex(absterms[0]), op, _named(rest, names), None, None
    # linear in one variable: k (v - c) op 0  ->  v op c
    for v in free:
        if sp.diff(expr, v, 2) == 0:
            k = sp.diff(expr, v)
            if k.free_symbols or k == 0:
                continue
            c = sp.expand(-(expr - k * v) / k)
            if c.free_symbols:
                continue
            return latex(v), (op if k > 0 else _FLIP[op]), latex(c), v, c
    if rhs == 0:
        return _named(sp.sympify(lhs), names), op, "0", None, None
    return _named(sp.sympify(lhs), names), op, _named(sp.sympify(rhs), names), None, None


def _chain(rels: list[tuple]) -> list[str]:
    """Bounds on one variable: a dominated bound of the same direction is dropped (w < 0 next to
    w <= -1/sqrt2), a lower and an upper bound are joined into one chain `lo < v <= hi`."""
    upper = {"<": True, r"\leq": True, ">": False, r"\geq": False}       # v < c is an upper bound
    rels = list(rels)
    keep = [True] * len(rels)
    for i, (_, op, _, v, c) in enumerate(rels):
        for j, (_, op2, _, v2, c2) in enumerate(rels):
            if i != j and keep[j] and v is not None and v == v2 and op in upper and op2 in upper \
                    and upper[op] == upper[op2] and c != c2:
                tighter_j = bool(c2 < c) if upper[op] else bool(c2 > c)
                if tighter_j:
                    keep[i] = False
    rels = [r[:3] for r, k in zip(rels, keep) if k]
    out, used = [], set()
    for i, (lhs, op, rhs) in enumerate(rels):
        if i in used:
            continue
        used.add(i)
        partner = next((j for j in range(i + 1, len(rels)) if j not in used and rels[j][0] == lhs
                        and rels[j][1] in upper and op in upper and upper[rels[j][1]] != upper[op]), None)
        if partner is None:
            out.append("%s %s %s" % (lhs, op, rhs))
            continue
        used.add(partner)
        (up_op, up_val), (dn_op, dn_val) = ((op, rhs), rels[partner][1:]) if upper[op] else (rels[partner][1:], (op, rhs))
        out.append("%s %s %s %s %s" % (dn_val, _FLIP[dn_op], lhs, up_op, up_val))
    return out


def conditions_tex(conds, names: dict | None = None) -> list[str]:
    """A SymPy condition (relation, And of relations, True) as a list of LaTeX conditions."""
    if conds is True or conds == sp.true:
        return []
    args = conds.args if isinstance(conds, sp.And) else (conds,)
    rels = []
    for c in args:
        if type(c) in _OPS:
            r = relation(c.lhs, _OPS[type(c)], c.rhs, names)
            rels.append(r)
        else:
            raise ValueError(f"not a relation: {c}")
    return _chain(rels)


def set_builder(params, conds: list[str], short: bool = False) -> str:
    """{(params) in R^n : c_1, c_2, ...} (the whole space if there is no condition); `short` leaves the
    ambient space out ({c_1, c_2}), for sets of a statement that names it once."""
    if not conds:
        return r"\mathbb{R}^{%d}" % len(params)
    if short:
        return r"\left\{%s\right\}" % r",\ ".join(conds)
    return r"\left\{%s : %s\right\}" % (space_tex(params), r",\ ".join(conds))


def piece_tex(piece, params, names: dict | None = None, short: bool = False) -> str:
    """One piece of a basin (conditions `expr op 0`, read left to right) in set-builder notation."""
    rels = [relation(ex, _BASIN_OPS[op], 0, names) for ex, op in piece.conditions]
    return set_builder(params, _chain(rels), short)


def basin_tex(basin, params, earlier=(), names: dict | None = None, short: bool = False) -> str:
    r"""A basin as a union of its pieces; the complement basin (no pieces) as $\mathbb{R}^2$ minus the
    basins listed before it (their LaTeX names in `earlier`)."""
    if basin.pieces is None:
        return r"\mathbb{R}^{%d} \setminus \left(%s\right)" % (len(params), r" \cup ".join(earlier))
    return r" \cup ".join(piece_tex(pc, params, names, short) for pc in basin.pieces)


def critical_set_tex(cs, params, names: dict | None = None, long: int = 70) -> str:
    """A critical set (equations and condition, `model.CriticalSet`) in set-builder notation, or as the
    point it is when its equations fix every coordinate. Sides longer than `long` LaTeX characters are
    written by their names (e.g. z_0) when `names` has one."""
    names = names or {}
    fixed, conds = {}, []
    for eq in cs.equations:
        lhs, rhs = eq.lhs, eq.rhs
        op = "=" if isinstance(eq, sp.Equality) else r"\neq"
        if isinstance(lhs, sp.Symbol) and not rhs.free_symbols and op == "=":
            fixed[lhs] = rhs
        l = latex(lhs)
        if len(l) > long:
            l = _named(lhs, names)
        r = latex(rhs)
        if op == "=" and rhs == 0 and isinstance(lhs, sp.Add):
            rel = relation(lhs, "=", 0, names)
            conds.append("%s %s %s" % rel[:3])
        else:
            conds.append("%s %s %s" % (l, op, r))
    extra = conditions_tex(cs.condition, names)
    if not extra and set(fixed) == set(params):
        return r"\left\{\left(%s\right)\right\}" % ", ".join(latex(fixed[v]) for v in params)
    return set_builder(params, conds + extra)


def critical_sets_tex(sets, params, names: dict | None = None) -> list[tuple[str, str, str]]:
    """(LaTeX name, set-builder form, class) of each critical set, in the model's order."""
    return [(latex_name(cs.name), critical_set_tex(cs, params, names), cs.classification) for cs in sets]
