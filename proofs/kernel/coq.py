r"""The one printer from SymPy to Coq's real numbers (`Coq.Reals`): terms, propositions and binders.

A statement a step decided (an `Obligation`: ``expr`` related to 0 under hypotheses and the sign assumptions of
its symbols) becomes the Coq proposition

    forall (p q e w : R), 0 < p < 1 -> 0 < q < 1 -> 0 < w -> ... -> expr = 0

printed from the very SymPy expression the check decided, never typed by hand. What the printer maps:

- numbers: integers as Coq numerals in ``R_scope`` (``IZR`` of a ``Z`` literal), rationals as ``(n / d)``;
- ``+ - * /``; integer powers as ``x ^ n`` (Coq's ``pow``, a natural-number exponent), negative ones as
  ``/ x ^ n``; ``x**(k/2)`` as ``sqrt x ^ k`` (``sqrt``: Coq's total square root, equal to the usual one on
  ``x >= 0``; the generator states ``x >= 0`` where it uses ``sqrt_sqrt``);
- ``exp`` as ``exp``, ``log`` as ``ln`` (Coq's ``ln`` is the logarithm on ``(0, oo)``; a statement using it at a
  point where its argument is not positive says nothing about SymPy's log there, so the generator proves the
  argument positive before it rewrites with ``exp_ln``), ``Abs`` as ``Rabs``, ``pi`` as ``PI``;
- symbols by name (a name Coq reserves, such as ``R`` or ``exp``, gets a trailing ``'``).

Anything else (Airy functions, other real exponents, ``sign``, piecewise functions) raises `NotCoq`: such a
statement is not kernel-checkable by this generator, and the step keeps the strength of its SymPy decision.

>>> import sympy as sp
>>> p, q = sp.symbols("p q", positive=True)
>>> term(p * q / (p + q) ** 2 - sp.Rational(1, 2))
'((p * q / (p + q) ^ 2) - (1 / 2))'
"""
from __future__ import annotations

import re

import sympy as sp

__all__ = ["NotCoq", "term", "atom", "relation", "binders", "coq_name", "RESERVED"]

#: names Coq's prelude or the Reals library already give a meaning a binder would shadow confusingly
RESERVED = frozenset({"R", "S", "O", "Z", "N", "exp", "ln", "sqrt", "pow", "PI", "Rabs", "IZR", "INR", "IPR",
                      "fun", "forall", "exists", "let", "in", "match", "with", "end", "as", "return", "if",
                      "then", "else", "Type", "Set", "Prop", "sin", "cos", "tan", "atan", "Rpower", "Rsqr",
                      "Rmin", "Rmax", "nat", "bool", "true", "false", "True", "False", "eq"})

_RELATION = {"== 0": "{} = 0", "> 0": "0 < {}", "< 0": "{} < 0", ">= 0": "0 <= {}", "<= 0": "{} <= 0",
             "!= 0": "{} <> 0"}


class NotCoq(ValueError):
    """An expression this printer does not map to Coq's reals."""


def coq_name(s: sp.Symbol) -> str:
    """The Coq identifier of a SymPy symbol: its name where Coq allows it, else a cleaned one (``'`` added to a
    reserved name)."""
    name = re.sub(r"[^A-Za-z0-9_']", "_", s.name)
    if not name or not (name[0].isalpha() or name[0] == "_"):
        name = "v_" + name
    return name + "'" if name in RESERVED else name


def _num(r: sp.Rational) -> str:
    if r.q == 1:
        return str(r.p) if r.p >= 0 else f"(- {-r.p})"
    return f"({r.p} / {r.q})" if r.p >= 0 else f"(- ({-r.p} / {r.q}))"


class _Printer:
    """SymPy -> Coq, fully parenthesised where precedence could matter (Coq's `+ - * / ^` follow the usual
    precedences; ``-`` binds as in ``a - b``, unary ``-`` is ``Ropp``). `names` prints chosen symbols as given
    Coq terms (a generator's placeholder for an atom, e.g. a Dummy standing for ``exp (2 * b)``)."""

    def __init__(self, names=None):
        self.names = names or {}

    def __call__(self, e) -> str:
        e = sp.sympify(e)
        if e in self.names:
            return self.names[e]
        if e.is_Symbol:
            return coq_name(e)
        if e.is_Rational:
            return _num(e)
        if e is sp.pi:
            return "PI"
        if e is sp.E:
            return "(exp 1)"
        if e.is_Float:
            raise NotCoq("a float literal has no exact meaning")
        if isinstance(e, sp.Add):
            return self._add(e)
        if isinstance(e, sp.Mul):
            return self._mul(e)
        if isinstance(e, sp.Pow):
            return self._pow(e)
        if isinstance(e, sp.exp):
            return f"exp {self._atom(e.args[0])}"
        if isinstance(e, sp.log):
            if len(e.args) != 1:
                raise NotCoq("a logarithm to another base")
            return f"ln {self._atom(e.args[0])}"
        if isinstance(e, sp.Abs):
            return f"Rabs {self._atom(e.args[0])}"
        raise NotCoq(f"no Coq counterpart for {type(e).__name__}")

    def _atom(self, e) -> str:
        s = self(e)
        return s if (s.startswith("(") and s.endswith(")") and _balanced(s[1:-1])) or re.fullmatch(r"[A-Za-z_][\w']*|\d+", s) else f"({s})"

    def _add(self, e: sp.Add) -> str:
        terms = list(e.as_ordered_terms())
        out = []
        for k, t in enumerate(terms):
            c, rest = t.as_coeff_Mul()
            if c.is_Rational and c < 0:
                body = self._mul_parts(-c, rest) if rest != 1 else _num(-c)
                out.append(("- " if k else "- ") + body)
            else:
                out.append(("+ " if k else "") + self(t))
        s = " ".join(out)
        return f"({s})"

    def _mul_parts(self, c, rest) -> str:
        return self(c * rest) if c != 1 else self(rest)

    def _mul(self, e: sp.Mul) -> str:
        c, rest = e.as_coeff_Mul()
        if c.is_Rational and c < 0:
            return f"(- {self._atom(-e)})"
        num, den = [], []
        for f in sp.Mul.make_args(e):
            b, x = f.as_base_exp()
            if isinstance(f, sp.Pow) and x.is_Rational and x < 0:
                den.append(self._pow_atom(b, -x))
            elif f.is_Rational and f.q != 1:
                if f.p != 1:
                    num.append(str(f.p))
                den.append(str(f.q))
            else:
                num.append(self._factor(f))
        s = " * ".join(num) if num else "1"
        for d in den:
            s += f" / {d}"
        return f"({s})" if den or len(num) > 1 else s

    def _factor(self, f) -> str:
        s = self(f)
        if isinstance(f, (sp.Add,)):
            return s if s.startswith("(") else f"({s})"
        return s if isinstance(f, (sp.Symbol, sp.Pow, sp.Rational)) or s.startswith("(") else f"({s})"

    def _pow_atom(self, b, x) -> str:
        """b**x for a positive rational x, as a factor."""
        s = self(sp.Pow(b, x, evaluate=False)) if x != 1 else self._atom(b)
        return s if s.startswith("(") or re.fullmatch(r"[A-Za-z_][\w']*", s) else f"({s})"

    def _pow(self, e: sp.Pow) -> str:
        b, x = e.args
        if not x.is_Rational:
            raise NotCoq("a power with a non-rational exponent")
        if x < 0:
            return f"(/ {self._pow_atom(b, -x)})"
        if x.q == 1:
            return f"{self._atom(b)} ^ {x.p}"
        if x.q == 2:
            root = f"sqrt {self._atom(b)}"
            return root if x.p == 1 else f"(sqrt {self._atom(b)}) ^ {x.p}"
        raise NotCoq(f"the power {x} (only integer and half-integer exponents)")


def _balanced(s: str) -> bool:
    depth = 0
    for ch in s:
        depth += (ch == "(") - (ch == ")")
        if depth < 0:
            return False
    return depth == 0


_print = _Printer()


def term(expr, names=None) -> str:
    """The Coq term (in ``R_scope``) of a SymPy expression; `NotCoq` when it has no counterpart. `names`: symbols
    to print as the given Coq terms (parenthesised ones)."""
    return (_Printer(names) if names else _print)(expr)


def atom(expr, names=None) -> str:
    """`term(expr)`, parenthesised unless it is a name or a numeral (an argument of a function or an operand)."""
    return (_Printer(names) if names else _print)._atom(expr)


def relation(rel: str, expr) -> str:
    """The Coq proposition ``expr <rel> 0`` for an `Obligation` relation ("== 0", "> 0", ...)."""
    return _RELATION[rel].format(term(expr))


def _hypothesis(h) -> str:
    """A SymPy relation as a Coq proposition."""
    ops = {sp.StrictLessThan: "<", sp.LessThan: "<=", sp.StrictGreaterThan: ">", sp.GreaterThan: ">=",
           sp.Equality: "=", sp.Unequality: "<>"}
    if isinstance(h, sp.And):
        return " /\\ ".join(f"({_hypothesis(a)})" for a in h.args)
    for cls, op in ops.items():
        if isinstance(h, cls):
            return f"{term(h.lhs)} {op} {term(h.rhs)}"
    raise NotCoq(f"no Coq counterpart for the hypothesis {type(h).__name__}")


def binders(expr, hypotheses=(), unit_pq: bool = True, extra=()) -> tuple[list[str], list[str]]:
    """(the Coq names bound, the hypotheses) of a statement about `expr`: every free symbol of `expr` and of the
    hypotheses, in name order, with its sign assumption (positive: ``0 < x``, negative: ``x < 0``, nonnegative:
    ``0 <= x``, nonpositive: ``x <= 0``), ``0 < p < 1`` and ``0 < q < 1`` for the chain unless `unit_pq` is
    False, then the step's own hypotheses."""
    syms = set(sp.sympify(expr).free_symbols)
    for h in tuple(hypotheses) + tuple(extra):
        syms |= sp.sympify(h).free_symbols
    order = sorted(syms, key=lambda s: (s.name, str(s.assumptions0)))
    names = [coq_name(s) for s in order]
    if len(set(names)) != len(names):
        raise NotCoq("two symbols of the same name with different assumptions")
    hyps = []
    for s, n in zip(order, names):
        if unit_pq and s.name in ("p", "q"):
            hyps.append(f"0 < {n} < 1")
        elif s.is_positive:
            hyps.append(f"0 < {n}")
        elif s.is_negative:
            hyps.append(f"{n} < 0")
        elif s.is_nonnegative:
            hyps.append(f"0 <= {n}")
        elif s.is_nonpositive:
            hyps.append(f"{n} <= 0")
        elif not s.is_real:
            raise NotCoq(f"the symbol {s} is not declared real")
    hyps += [_hypothesis(sp.sympify(h)) for h in hypotheses]
    return names, hyps
