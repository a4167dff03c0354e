r"""Coq certificates of exact steps: the statement printed from the step's SymPy obligation, and a proof script.

The generator is untrusted: it may choose a bad script, but it cannot make Coq accept a false statement. What the
reader must trust is that the statement printed (`Lemma.statement`) says what the step says, which is why it is
printed by the one printer (`coq.py`) from the very expression the step decided, with its domain as hypotheses.

Scripts, by the shape of the statement (``forall ..., hypotheses -> L = R`` or ``... -> X > 0`` etc.):

- ``reflexivity`` when both sides print the same term (the step compared a form with itself, e.g. a printed form
  that is literally the derived one);
- ``field`` for an identity of rational functions whose transcendental subterms (``exp``, ``ln``, ``sqrt``,
  ``Rabs``) are independent atoms, with their non-zero side conditions proved by ``lra``/``nra`` from the
  hypotheses and ``exp_pos``/``sqrt_pos``;
- first the logarithm rules, for an identity that needs them: each ``ln A`` is rewritten as
  ``ln f1 + ln f1 - ln f2 ...`` over the positive factors of ``A`` (SymPy's factorisation proposes them; Coq proves
  ``A = f1 * f1 * / f2`` by ``field`` and the rewriting by ``ln_mult``/``ln_Rinv``, each factor's positivity by
  ``lra``/``nra``), then ``field``;
- the exponential rules, likewise: each ``exp X`` is rewritten over a basis of exponentials ``exp t`` with
  ``X = t1 + t1 - t2 ...`` proved by ``ring`` and ``exp_plus``/``exp_Ropp``;
- for square roots: the numerator of the identity, a polynomial in the atoms ``sqrt X``, is written as
  ``sum Q_i (sqrt X_i * sqrt X_i - X_i)`` (the generator divides; ``ring`` checks the division), and
  ``sqrt_sqrt`` closes it;
- for an inequality: ``lra`` then ``nra`` on the statement, or, for a quotient ``N / D``, the signs of ``N``
  and ``D`` separately (each by ``nra``) after ``field`` proves ``X = N / D``.

A statement the printer cannot express (Airy functions, other real powers) is `Unfit`, with the reason; so is one
whose expression is a constant SymPy had already evaluated to the relation (nothing is left to re-prove).
"""
from __future__ import annotations

from dataclasses import dataclass

import sympy as sp

from local2global.proofs.kernel import coq

__all__ = ["Lemma", "Unfit", "lemma", "PRELUDE", "FORBIDDEN", "file_text", "COQUELICOT", "INTERVAL"]

#: the libraries every certificate loads and the small tactics its scripts call (Ltac builds proof terms; the
#: kernel checks them, so these add nothing to what is trusted)
PRELUDE = r"""Require Import Reals Lra Psatz.
Open Scope R_scope.

(* a + sqrt x > 0 where x exceeds a^2 (a root of a discriminant above |a|) *)
Lemma l2g_root_pos : forall a x, 0 < x - a * a -> 0 < a + sqrt x.
Proof. intros a x H. assert (Hx : 0 < x) by nra. pose proof (sqrt_lt_R0 x Hx) as Hs.
  pose proof (sqrt_sqrt x (Rlt_le _ _ Hx)) as Hss.
  destruct (Rle_or_lt 0 a) as [Ha | Ha]; [lra | nra]. Qed.
(* 0 < t for a product, quotient, power, exponential or square root of positive parts; else lra, nra *)
Ltac l2g_pos := match goal with
  | |- 0 < _ + _ => first [ apply Rplus_lt_0_compat; l2g_pos
                          | apply Rplus_lt_le_0_compat; [ l2g_pos | l2g_nonneg ]
                          | apply Rplus_le_lt_0_compat; [ l2g_nonneg | l2g_pos ] ]
  | |- 0 < _ * _ => apply Rmult_lt_0_compat; l2g_pos
  | |- 0 < / _ => apply Rinv_0_lt_compat; l2g_pos
  | |- 0 < _ / _ => apply Rdiv_lt_0_compat; l2g_pos
  | |- 0 < _ ^ _ => apply pow_lt; l2g_pos
  | |- 0 < exp _ => apply exp_pos
  | |- 0 < sqrt _ => apply sqrt_lt_R0; l2g_pos
  | |- 0 < - - _ => rewrite Ropp_involutive; l2g_pos
  | |- 0 < _ + sqrt _ => first [ apply Rplus_lt_le_0_compat; [ l2g_pos | apply sqrt_pos ]
                               | apply l2g_root_pos; ring_simplify; l2g_pos | assumption | lra | nra ]
  | |- _ => first [ assumption | lra | nra ]
  end
(* 0 <= t likewise *)
with l2g_nonneg := match goal with
  | |- 0 <= _ + _ => apply Rplus_le_le_0_compat; l2g_nonneg
  | |- 0 <= _ * _ => apply Rmult_le_pos; l2g_nonneg
  | |- 0 <= _ ^ 2 => apply pow2_ge_0
  | |- 0 <= sqrt _ => apply sqrt_pos
  | |- 0 <= exp _ => left; apply exp_pos
  | |- 0 <= Rabs _ => apply Rabs_pos
  | |- 0 <= - - _ => rewrite Ropp_involutive; l2g_nonneg
  | |- _ => first [ assumption | lra | nra | (left; l2g_pos) ]
  end.
(* t <> 0 for the denominators field leaves *)
Ltac l2g_nz := match goal with
  | |- _ * _ <> 0 => apply Rmult_integral_contrapositive_currified; l2g_nz
  | |- _ ^ _ <> 0 => apply pow_nonzero; l2g_nz
  | |- exp _ <> 0 => apply not_eq_sym, Rlt_not_eq, exp_pos
  | |- _ => first [ assumption | lra | nra | (apply not_eq_sym, Rlt_not_eq; l2g_pos)
                   | (apply Rlt_not_eq; apply Ropp_lt_cancel; rewrite Ropp_0; l2g_pos)
                   | l2g_nz_hyp ]
  end
(* a stated non-vanishing in another arrangement of the same polynomial *)
with l2g_nz_hyp := match goal with
  | H : ?Y <> 0 |- ?X <> 0 => let Hz := fresh "Hz" in intro Hz; apply H; first [ lra | nra ]
  (* Y a fraction whose numerator is X: Y = 0 once its denominators are cleared *)
  | H : ?Y <> 0 |- ?X <> 0 => let Hz := fresh "Hz" in intro Hz; apply H; field_simplify_eq;
      [ solve [ first [ lra | nra ] ] | solve [ repeat split; first [ assumption | lra ] ] .. ]
  end.
Ltac l2g_field := field; repeat split; l2g_nz.
(* the logarithm of a square root (not in Coq's library) *)
Lemma l2g_ln_sqrt : forall x, 0 < x -> ln (sqrt x) = ln x / 2.
Proof. intros x Hx. pose proof (sqrt_lt_R0 x Hx) as Hs.
  replace (ln x) with (ln (sqrt x * sqrt x)) by (rewrite sqrt_sqrt by lra; reflexivity).
  rewrite ln_mult by exact Hs. field. Qed.
(* square roots squared away: sqrt x ^ (k + 2) = x * sqrt x ^ k, then ring *)
Lemma l2g_sqrt_pow : forall x n, 0 <= x -> sqrt x ^ (S (S n)) = x * sqrt x ^ n.
Proof. intros x n Hx. simpl. rewrite <- Rmult_assoc, sqrt_sqrt by exact Hx. reflexivity. Qed.
Ltac l2g_side := match goal with |- _ <> 0 => l2g_nz | |- _ /\ _ => repeat split; l2g_nz end.
Ltac l2g_roots := field_simplify_eq; [ repeat (rewrite l2g_sqrt_pow by l2g_nonneg); ring | .. ]; try solve [ l2g_side ].
(* the sign of a numerator or a denominator *)
Ltac l2g_signs := match goal with
  | |- 0 < _ => l2g_pos
  | |- 0 <= _ => l2g_nonneg
  | |- _ < 0 => first [ lra | nra | (apply Ropp_lt_cancel; rewrite Ropp_0; l2g_pos) ]
  | |- _ <= 0 => first [ lra | nra | (apply Ropp_le_cancel; rewrite Ropp_0; l2g_nonneg) ]
  end.
(* the sign of N / D from the signs of N and D (HN, HD) *)
Lemma l2g_q1 : forall n d, 0 < n -> 0 < d -> 0 < n / d.
Proof. intros n d Hn Hd. unfold Rdiv. apply Rmult_lt_0_compat; [exact Hn | apply Rinv_0_lt_compat; exact Hd]. Qed.
Lemma l2g_q2 : forall n d, n < 0 -> 0 < d -> n / d < 0.
Proof. intros n d Hn Hd. unfold Rdiv. pose proof (Rinv_0_lt_compat d Hd). nra. Qed.
Lemma l2g_q3 : forall n d, 0 < n -> d < 0 -> n / d < 0.
Proof. intros n d Hn Hd. unfold Rdiv. pose proof (Rinv_lt_0_compat d Hd). nra. Qed.
Lemma l2g_q4 : forall n d, n < 0 -> d < 0 -> 0 < n / d.
Proof. intros n d Hn Hd. unfold Rdiv. pose proof (Rinv_lt_0_compat d Hd). nra. Qed.
Lemma l2g_q5 : forall n d, 0 <= n -> 0 < d -> 0 <= n / d.
Proof. intros n d Hn Hd. unfold Rdiv. pose proof (Rinv_0_lt_compat d Hd). nra. Qed.
Lemma l2g_q6 : forall n d, n <= 0 -> 0 < d -> n / d <= 0.
Proof. intros n d Hn Hd. unfold Rdiv. pose proof (Rinv_0_lt_compat d Hd). nra. Qed.
Lemma l2g_q7 : forall n d, 0 <= n -> d < 0 -> n / d <= 0.
Proof. intros n d Hn Hd. unfold Rdiv. pose proof (Rinv_lt_0_compat d Hd). nra. Qed.
Lemma l2g_q8 : forall n d, n <= 0 -> d < 0 -> 0 <= n / d.
Proof. intros n d Hn Hd. unfold Rdiv. pose proof (Rinv_lt_0_compat d Hd). nra. Qed.
Ltac l2g_quot := first [ apply l2g_q1 | apply l2g_q2 | apply l2g_q3 | apply l2g_q4 | apply l2g_q5 | apply l2g_q6
                       | apply l2g_q7 | apply l2g_q8 ]; assumption.
"""

#: words no certificate may contain: a proof that compiles with one of them proves nothing
FORBIDDEN = ("Admitted", "admit", "Axiom", "Parameter", "Hypothesis", "Conjecture", "Variable", "Abort")


class Unfit(ValueError):
    """A statement this generator does not certify (the reason is the message)."""


@dataclass(frozen=True)
class Lemma:
    """One certificate: a Coq lemma, its statement and its proof script, and the tactics and library lemmas the
    script rests on (for the record)."""

    name: str
    statement: str
    script: str
    tactics: tuple[str, ...]
    where_defined: bool = False   # hypotheses that denominators SymPy cannot sign do not vanish

    coquelicot: bool = False      # the statement speaks of derivatives (Coquelicot's is_derive)
    interval: bool = False        # the script may call the Interval library's `interval` tactic

    @property
    def text(self) -> str:
        return f"Lemma {self.name} :\n  {self.statement}.\nProof.\n{self.script}\nQed.\n"


#: the line a certificate with derivatives loads after the prelude's own libraries
COQUELICOT = "From Coquelicot Require Import Coquelicot."
#: the line a certificate with a closed scalar inequality loads (interval arithmetic, proved in Coq)
INTERVAL = "From Interval Require Import Tactic."


def file_text(lemmas, head: str = "") -> str:
    """A certificate file: `head`, the prelude (with Coquelicot where a lemma needs it), the lemmas."""
    pre, extra = PRELUDE, ""
    if any(lem.coquelicot for lem in lemmas):
        extra += COQUELICOT + "\n"
    if any(lem.interval for lem in lemmas):
        extra += INTERVAL + "\n"
    pre = pre.replace("Require Import Reals Lra Psatz.\n", "Require Import Reals Lra Psatz.\n" + extra, 1)
    return head + pre + "\n" + "\n".join(lem.text for lem in lemmas)


_REL = {"== 0": "=", "> 0": ">", "< 0": "<", ">= 0": ">=", "<= 0": "<=", "!= 0": "<>"}


def _statement(names, hyps, prop) -> str:
    if not names:
        return " -> ".join(hyps + [prop])
    return f"forall {' '.join(names)} : R, " + "".join(f"{h} -> " for h in hyps) + prop


def _intros(names, hyps) -> str:
    hn = [f"H{k}" for k in range(len(hyps))]
    # a point the statement is taken at is a hypothesis x = value: substituted first
    # and the functions' values at the points a substitution makes literal (ln 1, exp 0, sqrt 1)
    return (f"  intros {' '.join(list(names) + hn)}. try subst. try rewrite ?ln_1, ?exp_0, ?sqrt_1 in *."
            if names or hn else "")


def _atoms(e: sp.Expr):
    """The transcendental subterms of e: exponentials, logarithms, square roots (bases), absolute values."""
    exps = sorted(e.atoms(sp.exp), key=sp.default_sort_key)
    logs = sorted(e.atoms(sp.log), key=sp.default_sort_key)
    roots = sorted({x.base for x in e.atoms(sp.Pow) if x.exp.is_Rational and x.exp.q == 2}, key=sp.default_sort_key)
    return exps, logs, roots


def _facts(e: sp.Expr) -> list[str]:
    """`pose proof` lines: exp t > 0 and sqrt t >= 0 for the atoms of e (the facts nra may need)."""
    exps, _, roots = _atoms(e)
    out = [f"  pose proof (exp_pos {coq.atom(x.args[0])}) as Hexp{k}." for k, x in enumerate(exps)]
    out += [f"  pose proof (sqrt_pos {coq.atom(b)}) as Hsqrt{k}." for k, b in enumerate(roots)]
    out += [f"  try assert (Hsqrtp{k} : 0 < sqrt {coq.atom(b)}) by (apply sqrt_lt_R0; l2g_pos)."
            for k, b in enumerate(roots) if b.is_positive]
    return out


def _sample(x: sp.Expr):
    """x at one point of the domain (p = 1/3, q = 1/4, other symbols +-1/2 by their sign): a generator's guess."""
    pt = {}
    for s in x.free_symbols:
        pt[s] = {"p": sp.Rational(1, 3), "q": sp.Rational(1, 4)}.get(s.name, -sp.Rational(1, 2) if s.is_negative
                                                                     else sp.Rational(1, 2))
    try:
        return sp.sign(sp.N(x.xreplace(pt), 30))
    except TypeError:
        return 0


def _plain(x: sp.Expr) -> bool:
    """x has no transcendental subterm (a rational function of its symbols)."""
    return not x.has(sp.exp, sp.log, sp.Abs) and all(p.exp.is_Integer for p in x.atoms(sp.Pow))


class _Plan:
    """The rewriting a certificate applies before `field`, found by SymPy (untrusted: Coq re-proves each rule).

    Rules are stated on the atoms as the statement prints them, so that each rewrite finds its left side in the
    goal: a logarithm ``ln A`` as a sum of ``+- ln f`` over the positive irreducible factors of A, a square root of
    a square as its root, an exponential as a product of basis exponentials ``exp (g * m)`` (its exponent a sum of
    rational multiples of monomials m, g the gcd of m's multiples). `model` is the difference the goal becomes, the
    basis exponentials as positive Dummies printed as ``exp (g * m)`` (`names`); `lines` state, prove and apply
    the rules (logarithms, then square roots, then exponentials, then ``ln (exp t) = t``)."""

    def __init__(self, d: sp.Expr):
        self.names: dict = {}
        self.exponent: dict = {}
        self.lemmas: list[str] = []
        self.asserts: list[str] = []
        self.rewrites: list[str] = []
        self._he, self._hsq, self._after_exp, self._ln_rules = [], [], "", False
        self._slot: dict[str, str] = {}
        self.roots: dict = {}
        sub_e = self._exp(d)
        self.sub_e = sub_e
        self.exp_asserts = list(self.asserts)
        sub_s = self._sqrt_squares(d, sub_e)
        sub_r = self._same_radicands(d, sub_e)
        sub_l = self._ln(d, {**sub_e, **sub_s})
        # logarithms first (their left sides print as the statement does), then the roots, then the exponentials
        self.rewrites = [self._slot[k] for k in ("ln", "radicands", "sqrt", "exp", "ln_exp") if k in self._slot]
        self.lines = self.asserts + self.rewrites
        self.model = d.xreplace({**sub_e, **sub_r, **sub_s, **sub_l})

    def t(self, x) -> str:
        return coq.term(x, self.names)

    def a(self, x) -> str:
        return coq.atom(x, self.names)

    def _exp(self, d) -> dict:
        atoms = [x for x in sorted(d.atoms(sp.exp), key=sp.default_sort_key) if _plain(x.args[0])]
        if not atoms:
            return {}
        lin = {}
        for x in atoms:
            terms = {}
            for t in sp.Add.make_args(sp.expand(x.args[0])):
                c, m = t.as_coeff_Mul()
                terms[m] = terms.get(m, 0) + c
            lin[x] = {m: c for m, c in terms.items() if c != 0}
        g = {}
        for terms in lin.values():
            for m, c in terms.items():
                g[m] = abs(c) if m not in g else sp.gcd(g[m], abs(c))
        basis = {m: sp.Dummy(f"U{k}", positive=True) for k, m in enumerate(sorted(g, key=sp.default_sort_key))}
        for m, u in basis.items():
            self.names[u] = f"(exp {coq.atom(g[m] * m)})"
            self.exponent[u] = g[m] * m
        rules, sub = [], {}
        for x, terms in lin.items():
            mult = {m: c / g[m] for m, c in terms.items()}
            if any(not k.is_Integer for k in mult.values()) or sum(abs(int(k)) for k in mult.values()) > 16:
                raise Unfit("an exponential whose exponent is no small integer combination of a basis")
            order = sorted(mult.items(), key=lambda i: sp.default_sort_key(i[0]))
            sub[x] = sp.Mul(*[basis[m] ** int(k) for m, k in order])
            if len(mult) == 1 and list(mult.values())[0] == 1:
                continue                       # x is itself a basis exponential
            pieces = []
            for m, k in order:
                pieces += [("+ " if k > 0 else "+ - ") + coq.atom(g[m] * m)] * abs(int(k))
            rules.append((x, sub[x], " ".join(pieces)[2:]))
        for k, (x, rhs, total) in enumerate(rules):
            self.asserts.append(f"assert (He{k} : {coq.term(x)} = {self.t(rhs)}) by (replace {coq.atom(x.args[0])} "
                                f"with ({total}) by l2g_field; rewrite ?exp_plus, ?exp_Ropp; l2g_field)")
        self._he = [f"He{k}" for k in range(len(rules))]
        if rules:
            self.lemmas += ["exp_plus", "exp_Ropp"]
        self._after_exp = self._he and ("rewrite " + ", ".join(f"?{h}" for h in self._he) + "; ")
        return sub

    def _by(self) -> str:
        """The tactic that proves a rule's equation of rational terms once the exponentials are rewritten."""
        hs = self._he + self._hsq
        return f"({'rewrite ' + ', '.join('?' + h for h in hs) + '; ' if hs else ''}l2g_field)"

    def _ln(self, d, sub_e) -> dict:
        rules, sub = [], {}
        for lg in sorted(d.atoms(sp.log), key=sp.default_sort_key):
            arg = lg.args[0].xreplace(sub_e)
            # a square root of a positive plain radicand is a factor like any other: ln (sqrt X) = ln X / 2
            for x in sorted({x for x in arg.atoms(sp.Pow) if x.exp == sp.Rational(1, 2) and x.base.is_positive
                             and _plain(x.base)}, key=sp.default_sort_key):
                if x not in self.roots:
                    r = sp.Dummy(f"R{len(self.roots)}", positive=True)
                    self.roots[x] = r
                    self.names[r] = f"(sqrt {coq.atom(x.base, self.names)})"
                    self.exponent[r] = sp.log(x.base, evaluate=False) / 2
                arg = arg.xreplace({x: self.roots[x]})
            if not _plain(arg):
                continue
            num, den = sp.fraction(sp.together(arg))
            cn, fn = sp.factor_list(num)
            cd, fd = sp.factor_list(den)
            c = sp.Rational(cn, cd)
            # each factor taken with the sign it has (SymPy's assumptions, else its sign at a point: a guess that
            # the positivity side conditions of ln_mult make Coq check); the signs must multiply to +1
            sign, fs = (1 if c > 0 else -1), []
            for f, k in list(fn) + [(f, -k) for f, k in fd]:
                pos = f.is_positive if f.is_positive is not None else (_sample(f) > 0 if (-f).is_positive is None else False)
                fs.append((f if pos else -f, k))
                sign *= 1 if (pos or k % 2 == 0) else -1
            if sign < 0 or c == 0:
                continue
            c = abs(c)
            parts = [(sp.Integer(pr), k) for pr, k in sorted(sp.factorint(c.p).items())]
            parts += [(sp.Integer(pr), -k) for pr, k in sorted(sp.factorint(c.q).items())]
            parts += fs
            if len(parts) == 1 and parts[0][1] == 1 and parts[0][0] == lg.args[0]:
                continue
            sub[lg] = sp.Add(*[k * (self.exponent[f] if f in self.exponent else sp.log(f, evaluate=False))
                               for f, k in parts])
            rules.append((lg, parts))
        for k, (lg, parts) in enumerate(rules):
            prod = " * ".join(" * ".join([self.a(f) if n > 0 else f"/ {self.a(f)}"] * abs(n)) for f, n in parts)
            terms = " ".join(("+ " if n > 0 else "- ") + f"ln {self.a(f)}" for f, n in parts for _ in range(abs(n)))
            terms = terms[2:] if terms.startswith("+ ") else "0 " + terms
            self.asserts.append(f"assert (Hln{k} : {coq.term(lg)} = {terms}) by (replace {coq.atom(lg.args[0])} with "
                                f"({prod}) by {self._by()}; rewrite ?ln_mult, ?ln_Rinv; try ring; l2g_pos)")
        if rules:
            self._slot["ln"] = "rewrite " + ", ".join(f"?Hln{k}" for k in range(len(rules)))
            self._slot["ln_exp"] = "rewrite ?ln_exp; rewrite ?l2g_ln_sqrt by l2g_pos"
            self.lemmas += ["ln_mult", "ln_Rinv", "ln_exp"]
        self._ln_rules = bool(rules)
        return sub

    def _same_radicands(self, d, sub_e) -> dict:
        """sqrt X2 = sqrt X1 where X1 and X2 print differently but are equal (by field, exponentials rewritten):
        the square roots become one atom, which `l2g_roots` can square away."""
        groups = {}
        for x in sorted({p.base for p in d.atoms(sp.Pow) if p.exp.is_Rational and p.exp.q == 2}, key=sp.default_sort_key):
            Xm = x.xreplace(sub_e)
            if not _plain(Xm):
                continue
            groups.setdefault(sp.expand(Xm), []).append(x)
        rules, sub = [], {}
        for members in groups.values():
            rep_, others = members[0], members[1:]
            for X in others:
                rules.append((X, rep_))
                for p in d.atoms(sp.Pow):
                    if p.base == X and p.exp.is_Rational and p.exp.q == 2:
                        sub[p] = sp.Pow(rep_, p.exp)
        for k, (X, X1) in enumerate(rules):
            self.asserts.append(f"assert (Hsr{k} : sqrt {coq.atom(X)} = sqrt {coq.atom(X1)}) by (f_equal; "
                                f"{self._by()[1:-1]})")
        if rules:
            self._slot["radicands"] = "rewrite " + ", ".join(f"?Hsr{k}" for k in range(len(rules))) + " in *"
        return sub

    def _sqrt_squares(self, d, sub_e) -> dict:
        rules, sub, seen = [], {}, set()
        for x in sorted({p for p in d.atoms(sp.Pow) if p.exp.is_Rational and p.exp.q == 2}, key=sp.default_sort_key):
            X = x.base
            Xm = X.xreplace(sub_e)
            if not _plain(Xm):
                continue
            root = sp.sqrt(sp.factor(Xm))
            # |g| as g or -g by its sign at one point of the domain: a guess, which sqrt_pow2's side condition
            # 0 <= root makes Coq check on the whole domain
            root = root.replace(lambda x: isinstance(x, sp.Abs), lambda x: x.args[0] if _sample(x.args[0]) > 0
                                else -x.args[0])
            if any(q.exp.is_Rational and q.exp.q == 2 for q in root.atoms(sp.Pow)) or _sample(root) < 0:
                continue
            sub[x] = root ** (2 * x.exp)
            if X not in seen:
                seen.add(X)
                rules.append((X, root))
        for k, (X, root) in enumerate(rules):
            self.asserts.append(f"assert (Hsq{k} : sqrt {coq.atom(X)} = {self.t(root)}) by (transitivity (sqrt "
                                f"({self.t(root)} ^ 2)); [f_equal; {self._by()[1:-1]} | apply sqrt_pow2; l2g_nonneg])")
            self._hsq.append(f"Hsq{k}")
        if rules:
            self._slot["sqrt"] = "rewrite " + ", ".join(f"?Hsq{k}" for k in range(len(rules))) + " in *"
            self.lemmas.append("sqrt_pow2")
        if self._he:
            self._slot["exp"] = "rewrite " + ", ".join(f"?{h}" for h in self._he) + " in *"
        return sub


def _equality(ob, L, R, names, hyps, dens=()) -> Lemma:
    """``L = R``: reflexivity when both print alike; else field, and failing it the rules of `_Plan` (logarithms,
    square roots of squares, exponentials over a basis) then field, or `l2g_roots` (field_simplify_eq, then
    sqrt x ^ (k + 2) = x * sqrt x ^ k, then ring) for square roots that must be squared away. The choice among
    these is left to Coq (`first`): the generator decides nothing a kernel should."""
    prop = f"{coq.term(L)} = {coq.term(R)}"
    st = _statement(names, hyps, prop)
    intro = [_intros(names, hyps)] if names or hyps else []
    if coq.term(L) == coq.term(R):
        return Lemma("", st, "\n".join(intro + ["  reflexivity."]), ("reflexivity",))
    d = sp.sympify(L) - sp.sympify(R)
    if _plain(d):
        return Lemma("", st, "\n".join(intro + ["  l2g_field."]), ("field", "lra", "nra"))
    plan = _Plan(d)
    ruled = "; ".join(["apply Rminus_diag_uniq"] + plan.asserts + plan.rewrites
                      + ["first [ solve [ l2g_field ] | solve [ l2g_roots ] ]"])
    cof = _cofactors(ob, L, R, plan, dens)
    alternatives = ([f"solve [ {cof} ]"] if cof else []) + ["solve [ l2g_field ]", "solve [ l2g_roots ]",
                                                            f"\n    solve [ {ruled} ]"]
    script = intro + _facts(d) + [f"  first [ {' | '.join(alternatives)} ]."]
    return Lemma("", st, "\n".join(script), ("field", "ring", "lra", "nra") + tuple(plan.lemmas)
                 + (("sqrt_sqrt",) if any(x.exp.is_Rational and x.exp.q == 2 for x in d.atoms(sp.Pow)) else ()))


#: the largest difference (SymPy operations) the cofactor route divides: beyond it SymPy's division is slow
COFACTOR_OPS = 1500


def _cofactors(ob, L, R, plan: "_Plan", dens) -> str | None:
    r"""The square-root route, with the cofactors SymPy supplies: over the atoms (basis exponentials ``U_k``,
    square roots ``s_i = sqrt X_i``) the difference is ``N / D`` with ``N = sum_i Q_i (s_i^2 - X_i)`` (SymPy's
    division by the relations; a non-zero remainder: no route). The script proves, for *all* reals ``U_k > 0``,
    ``s_i >= 0`` with ``s_i * s_i = X_i`` (and the statement's denominators non-zero), that ``L - R`` equals
    ``(sum_i Q_i (s_i * s_i - X_i)) / D`` (``field``: an identity of rational functions in free atoms), rewrites
    each ``s_i * s_i`` and closes ``Q_i (X_i - X_i) / D = 0`` by ``ring``; it then applies that to the
    statement's own exponentials and square roots (their relations by ``exp_pos``, ``sqrt_pos``,
    ``sqrt_sqrt``). Coq re-checks every division: a wrong cofactor is a failed ``field``. None where it does
    not apply (logarithms, absolute values, a point substituted, nested roots, a non-zero remainder)."""
    d = sp.sympify(L) - sp.sympify(R)
    if ob.hypotheses or d.has(sp.log, sp.Abs) or sp.count_ops(d) > COFACTOR_OPS:
        return None
    bases = sorted({x.base for x in d.atoms(sp.Pow) if x.exp.is_Rational and x.exp.q == 2}, key=sp.default_sort_key)
    if not bases:
        return None
    sub_e = plan.sub_e
    U = sorted({u for v in sub_e.values() for u in v.free_symbols if u in plan.names}, key=lambda u: u.name)
    uname = {u: f"U{k}" for k, u in enumerate(U)}
    s = [sp.Dummy(f"s{i}", nonnegative=True) for i in range(len(bases))]
    sname = {si: f"s{i}" for i, si in enumerate(s)}
    to_s, abs_names = {}, {}
    for i, X in enumerate(bases):
        if any(y.exp.is_Rational and y.exp.q == 2 for y in X.atoms(sp.Pow)):
            return None
        for k in range(1, 12, 2):
            to_s[sp.Pow(X, sp.Rational(k, 2))] = s[i] ** k
            to_s[sp.Pow(X, -sp.Rational(k, 2))] = s[i] ** -k
            abs_names[sp.Pow(X, sp.Rational(k, 2))] = f"s{i}" if k == 1 else f"(s{i} ^ {k})"
    for x, v in sub_e.items():
        abs_names[x] = "(" + coq.term(v, uname) + ")"
    try:
        model = d.xreplace(to_s).xreplace(sub_e)
        Xm = [X.xreplace(sub_e) for X in bases]
        if not all(_plain(m) for m in [model] + Xm):
            return None
        num, den = sp.fraction(sp.together(model))
        num = sp.expand(num)
        quotients = []
        for si, X in zip(s, Xm):
            rel = si ** 2 - X
            quotients.append(sp.quo(num, rel, si))
            num = sp.rem(num, rel, si)
        if sp.cancel(num) != 0:
            return None
    except (sp.PolynomialError, ZeroDivisionError):
        return None
    allnames = {**uname, **sname}
    cof = " + ".join(f"{coq.atom(Q, allnames)} * (s{i} * s{i} - {coq.atom(X, allnames)})"
                     for i, (Q, X) in enumerate(zip(quotients, Xm)) if Q != 0) or "0"
    # the statement as it reads once the exponentials are rewritten over the basis, its atoms as variables
    Labs, Rabs_ = coq.term(L, abs_names), coq.term(R, abs_names)
    binder = " ".join(list(uname.values()) + list(sname.values()))
    hyps = [f"0 < {u}" for u in uname.values()] + [f"0 <= s{i}" for i in range(len(s))]
    hyps += [f"s{i} * s{i} = {coq.term(X, abs_names)}" for i, X in enumerate(bases)]
    hyps += [f"{coq.term(dd, abs_names)} <> 0" for dd in dens]
    hn = " ".join(f"Hc{k}" for k in range(len(hyps)))
    rw = ", ".join(f"Hc{len(uname) + len(s) + i}" for i in range(len(s)))
    lines = [h for h in map(_nonneg_hint, bases) if h]
    lines += plan.exp_asserts + (["rewrite " + ", ".join(f"?He{k}" for k in range(len(plan.exp_asserts))) + " in *"]
                                if plan.exp_asserts else [])
    lines.append(f"assert (Hcof : forall {binder} : R, {' -> '.join(hyps)} -> {Labs} = {Rabs_}) by (intros {binder} "
                 f"{hn}; apply Rminus_diag_uniq; replace ({Labs} - {Rabs_}) with (({cof}) / {coq.atom(den, allnames)}) "
                 f"by l2g_field; rewrite ?{', ?'.join(rw.split(', '))}; unfold Rdiv; ring)")
    lines.append("apply Hcof; first [ apply exp_pos | apply sqrt_pos | (apply sqrt_sqrt; l2g_nonneg) | assumption "
                 "| l2g_nz ]")
    return "; ".join(lines)


def _nonneg_hint(X) -> str | None:
    """``0 <= X`` for a radicand, by ``ring`` and `l2g_nonneg` on X written as positive monomials plus a
    positive multiple of a square (SymPy's factorisation proposes the square; Coq checks the rewriting); None
    where X has no such form."""
    pos, rest = [], []
    for term in sp.Add.make_args(sp.expand(X, deep=False)):
        c, factors = term.as_coeff_Mul()
        # the polynomial terms are factored together (a square among them); the others must be positive
        if term.is_polynomial() and not term.has(sp.exp, sp.log, sp.Abs):
            rest.append(term)
        elif c > 0 and all(f.is_positive or (f.is_Pow and f.exp.is_even) for f in sp.Mul.make_args(factors)):
            pos.append(term)
        else:
            return None
    if not rest:
        return None
    r = sp.factor(sp.Add(*rest))
    c, g = r.as_coeff_Mul()
    if not (c > 0 and g.is_Pow and g.exp.is_even):
        return None
    form = " + ".join([coq.atom(x) for x in pos] + [f"{coq.atom(c)} * {coq.atom(g.base)} ^ {g.exp}"])
    return f"assert (0 <= {coq.term(X)}) by (replace {coq.atom(X)} with ({form}) by ring; l2g_nonneg)"


def _inequality(ob, X, names, hyps) -> Lemma:
    rel = _REL[ob.relation]
    prop = f"{coq.term(X)} {rel} 0" if rel != ">" else f"0 < {coq.term(X)}"
    if rel == ">=":
        prop = f"0 <= {coq.term(X)}"
    st = _statement(names, hyps, prop)
    intro = [_intros(names, hyps)] if names or hyps else []
    facts = _facts(X)
    n, dd = sp.fraction(sp.together(X))
    tries = ["lra", "nra", "l2g_pos"]
    if rel == "<>":
        tries = ["l2g_nz"]
    # a closed scalar inequality with transcendental constants: interval arithmetic (Coq.Interval), last
    closed = not names and not (X.free_symbols) and X.has(sp.exp, sp.log, sp.Pow)
    if closed and rel != "<>":
        tries = tries + ["interval"]
    script = intro + facts + [f"  first [ {' | '.join(tries)} ]."]
    if dd != 1 and rel in (">", "<", ">=", "<="):
        # a quotient: the signs of the numerator and the denominator, each by nra, after field rewrites X as N / D
        # (the statement's own sign tactics first: a square root's sign needs no quotient)
        sd = "pos" if dd.is_positive else "neg" if dd.is_negative else None
        if sd is not None:
            quot = "; ".join([
                f"replace {coq.atom(X)} with ({coq.atom(n)} / {coq.atom(dd)}) by l2g_field",
                f"assert (HD : {'0 < ' + coq.atom(dd) if sd == 'pos' else coq.atom(dd) + ' < 0'}) by l2g_signs",
                f"assert (HN : {_sign_goal(rel, sd, coq.atom(n))}) by l2g_signs",
                "l2g_quot"])
            direct = " | ".join(f"solve [ {x} ]" for x in tries + ["l2g_signs"])
            script = intro + facts + [f"  first [ {direct} |\n    solve [ {quot} ] ]."]
    return Lemma("", st, "\n".join(script), ("lra", "nra", "field") + (("interval",) if closed else ()),
                 interval=closed)


def _sign_goal(rel: str, sd: str, n: str) -> str:
    """The sign of the numerator that gives `rel` for N / D with D of sign sd."""
    flip = {">": "<", "<": ">", ">=": "<=", "<=": ">="}
    r = rel if sd == "pos" else flip[rel]
    return {">": f"0 < {n}", "<": f"{n} < 0", ">=": f"0 <= {n}", "<=": f"{n} <= 0"}[r]


def _denominators(*exprs) -> list[sp.Expr]:
    """The bases of the negative powers of the expressions (the terms Coq's `field` must see non-zero), in a
    stable order, that SymPy's assumptions do not show to have a sign: an identity of rational functions holds
    where they do not vanish, so a certificate states that as a hypothesis."""
    out = set()
    for e in exprs:
        for x in sp.sympify(e).atoms(sp.Pow):
            if x.exp.is_Rational and x.exp < 0:
                # a root in a denominator: sqrt b <> 0 iff b <> 0 (b >= 0 where the statement is meant); a nested
                # fraction is stated by its numerator, the form field's side conditions take
                b = sp.fraction(sp.together(x.base))[0]
                if not (b.is_positive or b.is_negative):
                    out.add(b)
    return sorted(out, key=sp.default_sort_key)


#: the Coq name of the variable a derivative's function abstracts
_LAMBDA = "x_"


def _derivative(ob, name: str) -> Lemma:
    r"""``forall ..., hyps -> is_derive (fun x_ => f[x := x_]) x rhs`` (Coquelicot): the derivative of f at every
    point x of the domain is rhs. The generator's guess D = SymPy's ``diff(f, x)`` is proved equal to rhs first
    (the identity machinery of `lemma`, as a lemma of its own, `name` ``_eq``); then ``auto_derive`` computes
    the derivative of the printed function itself, proves its differentiability side conditions (positive
    logarithms and roots, non-zero denominators: `l2g_pos`, `l2g_nz` from the hypotheses) and leaves the
    derivative it computed = D, which ``field`` closes (the same atoms, differentiated by the chain rule)."""
    x, f, rhs = ob.wrt, sp.sympify(ob.expr), sp.sympify(ob.rhs)
    if not isinstance(x, sp.Symbol):
        raise Unfit("a derivative with respect to something other than a symbol")
    D = sp.diff(f, x)
    names, hyps = coq.binders(f - rhs, ob.hypotheses, ob.unit_pq, extra=(D,))
    dens = _denominators(D, rhs)
    hyps = hyps + [f"{coq.term(d)} <> 0" for d in dens]
    eq_ob = type(ob)("== 0", D, hypotheses=ob.hypotheses, unit_pq=ob.unit_pq, rhs=rhs)
    eq = _equality(eq_ob, D, rhs, names, hyps, dens)
    eq = Lemma(name + "_eq", eq.statement, eq.script, eq.tactics, where_defined=bool(dens))
    body = coq.term(f, {x: _LAMBDA})
    prop = f"is_derive (fun {_LAMBDA} : R => {body}) {coq.coq_name(x)} {coq.atom(rhs)}"
    st = _statement(names, hyps, prop)
    hn = " ".join(f"H{k}" for k in range(len(hyps)))
    same = coq.term(D) == coq.term(rhs)       # the stated derivative is SymPy's, printed alike: no identity
    # SymPy's D may merge exponentials the chain rule leaves apart (exp(A)^2 is exp(2A)): the rules over a basis
    try:
        plan = _Plan(D + f)
        rules = plan.exp_asserts + (["rewrite " + ", ".join(f"?He{k}" for k in range(len(plan.exp_asserts)))]
                                    if plan.exp_asserts else [])
    except Unfit:
        rules = []
    close = "; ".join(rules + ["l2g_field"])
    script = "\n".join([f"  intros {' '.join(names)} {hn}."]
                       + ([] if same else [f"  rewrite <- ({name}_eq {' '.join(names)} {hn})."])
                       + ["  auto_derive; [ repeat split; first [ exact I | l2g_pos | l2g_nz ] |\n"
                          f"    first [ solve [ l2g_field ] | solve [ {close} ] ] ]."])
    lem = Lemma(name, st, script, ("Coquelicot auto_derive", "field") + eq.tactics, where_defined=bool(dens),
                coquelicot=True)
    return (lem,) if same else (eq, lem)


def _generator_version() -> str:
    """The SHA-256 of the generator's own sources (this module and the printer): a changed script rule is a new
    key of the generation cache."""
    import hashlib
    from pathlib import Path
    h = hashlib.sha256()
    for mod in (__file__, coq.__file__):
        h.update(Path(mod).read_bytes())
    return h.hexdigest()


def _generation_key(ob, name: str) -> str:
    """The key of an obligation's certificate in the generation cache: what the statement prints to (both
    sides, the hypotheses, the symbols' assumptions, the variable of a derivative), not SymPy's objects."""
    import hashlib
    L, R = sp.sympify(ob.expr), sp.sympify(ob.rhs)
    if isinstance(L, sp.MatrixBase) or isinstance(R, sp.MatrixBase):
        raise Unfit("a matrix statement (its entries are certified one by one where they are steps)")
    names, hyps = coq.binders(L - R if R != 0 else L, ob.hypotheses, ob.unit_pq, extra=(R,))
    parts = [_GENERATOR, sp.__version__, name, ob.relation, coq.term(L), coq.term(R), " ".join(names), " | ".join(hyps),
             coq.coq_name(ob.wrt) if getattr(ob, "wrt", None) is not None else ""]
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()


_GENERATOR = _generator_version()


def lemmas(ob, name: str) -> list[Lemma]:
    """The certificate lemmas of an `Obligation`: one (`lemma`), or, for a derivative, the identity of SymPy's
    derivative with the stated one and the derivative itself (`_derivative`). Cached (``$L2G_CACHE/coq``) by
    what the statement prints to and the generator's sources: the scripts SymPy's divisions and factorisations
    chose are found again without them (a warm kernel pass prints, it does not divide)."""
    from local2global.symbolic import store_verified, verified_file
    key = _generation_key(ob, name)
    path, hit = verified_file("coq", f"gen-{key}.pickle")
    if isinstance(hit, dict) and hit.get("key") == key:
        if hit.get("unfit") is not None:
            raise Unfit(hit["unfit"])
        return [Lemma(**x) for x in hit["lemmas"]]
    try:
        out = list(_derivative(ob, name)) if getattr(ob, "wrt", None) is not None else [lemma(ob, name)]
    except Unfit as ex:
        store_verified(path, {"key": key, "unfit": str(ex)})
        raise
    store_verified(path, {"key": key, "lemmas": [dict(lem.__dict__) for lem in out]})
    return out


def ideal_cofactors(P, gens, max_degree: int = 4):
    """Polynomials c_i with ``P = sum_i c_i g_i`` (an ideal membership certificate), found by linear algebra on
    cofactors of bounded total degree in the symbols; None if there are none up to `max_degree`. Untrusted: the
    certificate has Coq's ``ring`` check the identity."""
    syms = sorted(set().union(*[sp.sympify(g).free_symbols for g in gens]) | sp.sympify(P).free_symbols,
                  key=lambda s: s.name)
    for d in range(max_degree + 1):
        monos = sorted(sp.itermonomials(syms, d), key=sp.default_sort_key)
        unknowns, cof = [], []
        for i, _ in enumerate(gens):
            cs = sp.symbols(f"c{i}_0:{len(monos)}")
            unknowns += cs
            cof.append(sum(c * m for c, m in zip(cs, monos)))
        eqs = sp.Poly(sp.expand(sum(c * g for c, g in zip(cof, gens)) - P), *syms).coeffs()
        sol = sp.linsolve(eqs, unknowns)
        if sol:
            vals = dict(zip(unknowns, next(iter(sol))))
            zero = {u: 0 for u in unknowns}
            return [sp.expand(c.xreplace(vals).xreplace(zero)) for c in cof]
    return None


def _ideal(ob, L, names, hyps) -> Lemma | None:
    r"""``x <> 0 -> ... -> g_1 = 0 -> ... -> P = 0``: m P lies in the ideal of the g_i for a monomial m in the
    symbols known non-zero (``x <> 0`` hypotheses, signed symbols). SymPy supplies m and the cofactors
    (`ideal_cofactors`); Coq checks ``m P = sum c_i g_i`` by ``ring``, rewrites each ``g_i`` to 0, and cancels m
    (``Rmult_eq_reg_l``, m non-zero by `l2g_nz`)."""
    eqs = [h for h in ob.hypotheses if isinstance(h, sp.Equality) and not h.lhs.is_Symbol and h.rhs == 0]
    nonzero = [h.lhs for h in ob.hypotheses if isinstance(h, sp.Unequality) and h.lhs.is_Symbol and h.rhs == 0]
    if not eqs or len(eqs) + len(nonzero) != len(ob.hypotheses):
        return None
    gens = [h.lhs for h in eqs]
    if not all(sp.sympify(g).is_polynomial() for g in gens + [L]):
        return None
    inv = sorted(set(nonzero) | {s for s in L.free_symbols.union(*[g.free_symbols for g in gens])
                                 if s.is_positive or s.is_negative}, key=lambda s: s.name)
    found = None
    for m in sorted(sp.itermonomials(inv, 2), key=lambda x: (sp.total_degree(x), sp.default_sort_key(x))) if inv else [1]:
        cof = ideal_cofactors(sp.expand(m * L), gens)
        if cof is not None:
            found = (m, cof)
            break
    if found is None:
        return None
    m, cof = found
    index = {str(h): k for k, h in enumerate(hyps)}
    rw = [f"H{index[f'{coq.term(g)} = 0']}" for c, g in zip(cof, gens) if c != 0 and f"{coq.term(g)} = 0" in index]
    combo = " + ".join(f"{coq.atom(c)} * {coq.atom(g)}" for c, g in zip(cof, gens) if c != 0) or "0"
    st = _statement(names, hyps, f"{coq.term(L)} = 0")
    intro = _intros(names, hyps).split(". try subst.")[0] + "."
    if m == 1:
        lines = [f"  replace {coq.atom(L)} with ({combo}) by l2g_field.", f"  {'rewrite ' + ', '.join(rw) + '; ' if rw else ''}ring."]
    else:
        lines = [f"  apply (Rmult_eq_reg_l {coq.atom(m)}); [ replace ({coq.atom(m)} * {coq.atom(L)}) with ({combo}) by l2g_field; "
                 f"{'rewrite ' + ', '.join(rw) + '; ' if rw else ''}ring | l2g_nz ]."]
    return Lemma("", st, "\n".join([intro] + lines), ("field", "ring"))


def lemma(ob, name: str) -> Lemma:
    """The certificate of an `Obligation`: a `Lemma` named `name`, or `Unfit` / `coq.NotCoq` with the reason."""
    L, R = sp.sympify(ob.expr), sp.sympify(ob.rhs)
    if isinstance(L, sp.MatrixBase) or isinstance(R, sp.MatrixBase):
        raise Unfit("a matrix statement (its entries are certified one by one where they are steps)")
    names, hyps = coq.binders(L - R if R != 0 else L, ob.hypotheses, ob.unit_pq, extra=(R,))
    dens = _denominators(L, R)
    hyps = hyps + [f"{coq.term(d)} <> 0" for d in dens]
    if not (L.free_symbols | R.free_symbols) and not ob.hypotheses and R == 0 and L.is_Number:
        raise Unfit("a number SymPy had already evaluated: nothing is left to re-prove")
    ideal = _ideal(ob, L, names, hyps) if ob.relation == "== 0" and R == 0 and not dens else None
    if ideal is not None:
        lem = ideal
    elif ob.relation == "== 0":
        lem = _equality(ob, L, R, names, hyps, dens)
    else:
        lem = _inequality(ob, L - R, names, hyps)
    return Lemma(name, lem.statement, lem.script, lem.tactics, where_defined=bool(dens), interval=lem.interval)
