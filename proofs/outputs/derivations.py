r"""The derivations document (`l2g derive`): one LaTeX section per derived result, with its claims.

Each section is built from the symbolic Results (nothing is retyped here: every displayed
formula is a derived SymPy expression printed by `local2global.symbolic.latex`) and lists the
claims of the registry that back it (`claims_for`). Building the document never runs a check;
if a records file written by `l2g check --json` is given, the statuses are shown too.

Adding a section (later issues: energy and flow, attention, full model)
-----------------------------------------------------------------------
Write a function returning a `Block` and register it with the `section` decorator, in any
module that is imported before `build_document` runs (e.g. at the end of this module, or in a
module of your own that you import from `sections()`'s caller)::

    @section("energy", order=100, title="Energy of the gradient flow", refs=("Lemma 1", "Lemma 9"))
    def _energy() -> Block:
        r = some_symbolic_result()                      # a symbolic.Result
        return Block.from_result(r, ["E", "E_sad"], lhs={"E": "E(e, w)"})

`order` fixes the position in the document (the landscape sections use 10..90; leave gaps),
`refs` are the paper labels whose claims back the section (a claim matches when one of its
labels, e.g. "Thm 6/7" -> Thm 6 and Thm 7, is in `refs`), `id` names the fragment file
`fragments/<id>.tex`. Output must be deterministic: no timestamps, no set iteration.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Callable, Iterable

import sympy as sp

from local2global.symbolic import symbols as S
from local2global.symbolic import bias as sbias
from local2global.symbolic import canonical
from local2global.symbolic import landscape as sland
from local2global.symbolic import Result
from local2global.symbolic import simplify_unit
from local2global.symbolic.latex import fold_sigmoid, latex, name as latex_name
from local2global.symbolic.markov import MarkovChain
from local2global.symbolic.model import canonical_model

_M = canonical_model()
_MA = canonical_model(True)

#: where `l2g derive` looks for the JSON of `l2g check --json` (relative to its --out directory)
RECORDS_NAME = "checks.json"

#: preamble packages: only what texlive-latex-base + texlive-latex-recommended provide
PACKAGES = ("amsmath", "amssymb", "geometry", "hyperref", "booktabs", "longtable", "graphicx")

LINE = 110          # LaTeX characters per displayed line before an expression is broken
HARD = 420          # a single unbreakable piece longer than this is scaled to the line width


# ---------------------------------------------------------------------------------------------
# Text helpers
# ---------------------------------------------------------------------------------------------

_TEXT_ESCAPES = {
    "\\": r"$\backslash$", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
    "{": r"\{", "}": r"\}", "~": r"\~{}", "^": r"\^{}",
    "|": r"$|$", "<": r"$<$", ">": r"$>$",
    "±": r"$\pm$", "²": r"$^2$", "³": r"$^3$", "≠": r"$\neq$", "≤": r"$\leq$", "≥": r"$\geq$",
    "∪": r"$\cup$", "π": r"$\pi$", "θ": r"$\theta$", "Γ": r"$\Gamma$", "Θ": r"$\Theta$", "σ": r"$\sigma$",
    "∇": r"$\nabla$", "∂": r"$\partial$", "−": "-", "×": r"$\times$", "→": r"$\to$", "·": r"$\cdot$",
    "∈": r"$\in$", "ℓ": r"$\ell$", "√": r"$\surd$", "–": "--", "—": "---", "’": "'", "§": r"\S{}", "≈": r"$\approx$",
}


def text(s: str) -> str:
    """Plain text (docstrings, arguments) escaped for LaTeX text mode; unknown non-ASCII as U+XXXX."""
    out = []
    for ch in str(s):
        if ch in _TEXT_ESCAPES:
            out.append(_TEXT_ESCAPES[ch])
        elif ord(ch) > 127:
            out.append("U+%04X" % ord(ch))
        else:
            out.append(ch)
    return "".join(out)


# ---------------------------------------------------------------------------------------------
# Display of (possibly long) expressions
# ---------------------------------------------------------------------------------------------

def _join_terms(terms: list[str]) -> list[str]:
    """Group printed summands into lines of at most LINE characters (signs kept with their term)."""
    lines, cur = [], ""
    for i, t in enumerate(terms):
        piece = t if i == 0 else (" " + t if t.startswith("-") else " + " + t)
        if cur and len(cur) + len(piece) > LINE:
            lines.append(cur)
            cur = piece if piece.lstrip().startswith("-") else "+ " + t
        else:
            cur += piece
    lines.append(cur)
    return lines


def _pieces(expr: sp.Basic) -> list[str]:
    """Printed lines of one (folded) expression, broken at top-level sums where it is long."""
    tex = latex(expr, fold=False)
    if len(tex) <= LINE:
        return [tex]
    if isinstance(expr, sp.Add):
        return _join_terms([latex(t, fold=False) for t in expr.as_ordered_terms()])
    if isinstance(expr, sp.Mul):
        # coefficient times one long sum: break the sum inside \Big( ... \Big)
        sums = [f for f in expr.args if isinstance(f, sp.Add)]
        if sums:
            big = max(sums, key=lambda f: (len(latex(f, fold=False)), sp.default_sort_key(f)))
            if len(latex(big, fold=False)) <= LINE:
                return [tex]                          # the long part is not the sum: keep one line
            rest = sp.Mul(*[f for f in expr.args if f is not big]) if len(expr.args) > 1 else sp.S.One
            inner = _join_terms([latex(t, fold=False) for t in big.as_ordered_terms()])
            head = "" if rest == 1 else ("-" if rest == -1 else latex(rest, fold=False) + r" \cdot ")
            inner[0] = head + r"\Big(" + inner[0]
            inner[-1] = inner[-1] + r"\Big)"
            return inner
    return [tex]


def display(lhs: str, expr, rel: str = "=") -> str:
    """An `align*` block `lhs = expr`, broken over lines; over-long single pieces are scaled to fit."""
    if isinstance(expr, str):                     # ready-made LaTeX (math)
        return "\\begin{align*}\n%s &%s %s\n\\end{align*}\n" % (lhs, rel, expr)
    expr = fold_sigmoid(sp.sympify(expr))
    lines = _pieces(expr)
    if any(len(x) > HARD for x in lines):
        return ("\\begin{center}\n\\resizebox{\\linewidth}{!}{$\\displaystyle %s %s %s$}\n\\end{center}\n"
                % (lhs, rel, latex(expr, fold=False)))
    body = "%s &%s %s" % (lhs, rel, lines[0])
    for x in lines[1:]:
        body += " \\\\\n&\\quad %s" % x
    return "\\begin{align*}\n%s\n\\end{align*}\n" % body


def display_matrix(lhs: str, M: sp.MatrixBase) -> str:
    """A matrix whole when it fits, else entry by entry (`lhs_{ij} = ...`, upper triangle if symmetric)."""
    M = sp.Matrix(M).applyfunc(fold_sigmoid)
    tex = latex(M, fold=False)
    if len(tex) <= 3 * LINE:
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
        out.append("(symmetric; lower triangle omitted)\n")
    return "".join(out)


def pi_form(expr):
    r"""Display helper: write the stationary weights q/(p+q), p/(p+q) as $\pi_0, \pi_1$."""
    pi0, pi1 = sp.symbols("pi0 pi1")
    sub = lambda x: x.subs({S.q / (S.p + S.q): pi0, S.p / (S.p + S.q): pi1})
    return M_apply(expr, sub)


def M_apply(expr, f):
    return expr.applyfunc(f) if isinstance(expr, sp.MatrixBase) else f(expr)


# ---------------------------------------------------------------------------------------------
# Blocks and the section registry
# ---------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Entry:
    """One displayed formula `lhs = expr` (expr: SymPy object or ready LaTeX) with an optional note."""

    lhs: str
    expr: object
    note: str = ""
    rel: str = "="

    def render(self) -> str:
        head = ("\\noindent %s\n" % text(self.note)) if self.note else ""
        if isinstance(self.expr, sp.MatrixBase):
            return head + display_matrix(self.lhs, self.expr)
        return head + display(self.lhs, self.expr, self.rel)


@dataclass(frozen=True)
class Block:
    """The content of one section: paper reference, assumptions, how it was derived, the formulas."""

    ref: str
    assumptions: tuple[str, ...]
    derivation: str
    entries: tuple = ()
    extra: str = ""          # ready LaTeX appended after the entries (e.g. a list of critical sets)

    @classmethod
    def from_result(cls, r: Result, names: Iterable[str] | None = None, lhs: dict | None = None,
                    transform: Callable | None = None, notes: dict | None = None, more=()) -> "Block":
        """A block showing the named expressions of a symbolic Result (all, in order, by default)."""
        lhs, notes = lhs or {}, notes or {}
        names = list(r.expressions) if names is None else list(names)
        entries = []
        for n in names:
            v = r.expressions[n]
            if transform is not None:
                v = transform(v)
            entries.append(Entry(lhs.get(n, latex_name(n)), v, notes.get(n, "")))
        return cls(ref=r.ref, assumptions=tuple(r.assumptions), derivation=r.derivation,
                   entries=tuple(entries) + tuple(more))


@dataclass(frozen=True)
class Section:
    """A registered section: fragment id, position, title, paper labels of its claims, builder."""

    id: str
    order: int
    title: str
    refs: tuple[str, ...]
    build: Callable[[], Block]


SECTIONS: dict[str, Section] = {}


def section(id: str, *, order: int, title: str, refs: Iterable[str] = ()):
    """Decorator registering a `() -> Block` function as a section of the derivations document."""
    if not re.fullmatch(r"[a-z0-9_]+", id):
        raise ValueError(f"section id must be [a-z0-9_]+ (it names a file): {id!r}")

    def deco(fn):
        if id in SECTIONS:
            raise ValueError(f"section {id!r} registered twice")
        SECTIONS[id] = Section(id=id, order=order, title=title, refs=tuple(refs), build=fn)
        return fn
    return deco


def sections() -> list[Section]:
    """Registered sections in document order."""
    return sorted(SECTIONS.values(), key=lambda s: (s.order, s.id))


_LABEL = re.compile(r"(Lemma|Lemmas|Thm|Thms|Theorem|Remark|Eq\.|Sec\.|App\.|Cor\.|Prop\.|Fig\.|Figs\.|Figure)"
                    r"\s*([0-9][0-9/,\s]*)")
_KIND = {"Lemmas": "Lemma", "Thms": "Thm", "Theorem": "Thm", "Figs.": "Fig.", "Figure": "Fig."}


def labels(ref: str) -> set[str]:
    """Paper labels in a reference string: 'Thm 6/7 (ii)' -> {'Thm 6', 'Thm 7'}."""
    out = set()
    for kind, nums in _LABEL.findall(ref):
        kind = _KIND.get(kind, kind)
        for n in re.split(r"[/,\s]+", nums.strip()):
            if n:
                out.add(f"{kind} {n}")
    return out


def claims_for(sec: Section, claims) -> list:
    """The registry's claims whose paper labels meet the section's `refs` (registry order)."""
    wanted = set().union(*(labels(r) for r in sec.refs)) if sec.refs else set()
    return [c for c in claims if labels(c.ref) & wanted]


def load_records(path: Path) -> dict[str, dict]:
    """Records of `l2g check --json` by claim id; accepts a list of records, {"records": [...]} or {id: record}.

    A missing file gives {}; an unreadable one raises ValueError (reported as a usage error).
    """
    path = Path(path)
    if not path.exists():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as ex:
        raise ValueError(f"cannot read check records {path}: {ex}") from None
    if isinstance(data, dict) and "records" in data:
        data = data["records"]
    if isinstance(data, dict):
        data = [dict(v, id=k) for k, v in data.items() if isinstance(v, dict)]
    if not isinstance(data, list):
        raise ValueError(f"check records {path}: expected a list of records")
    return {str(r["id"]): r for r in data if isinstance(r, dict) and "id" in r}


# ---------------------------------------------------------------------------------------------
# Rendering
# ---------------------------------------------------------------------------------------------

def _claims_tex(claims, records: dict) -> str:
    if not claims:
        return "\\paragraph{What was checked.} No registered claim backs this section yet.\n"
    out = ["\\paragraph{What was checked.} Claims of the registry backing this section "
           "(run \\texttt{l2g check} for their status%s):\n" % (
               "; statuses below are from the records file" if records else ""),
           "\\begin{itemize}\n"]
    for c in claims:
        line = "\\item \\texttt{%s} (%s, %s): %s" % (text(c.id), text(c.ref), text(c.title), c.statement)
        rec = records.get(c.id)
        if rec:
            line += " \\emph{Status: %s; method: %s; evidence: %s; control: %s.}" % (
                text(rec.get("status", "?")), text(rec.get("method", "?")), text(rec.get("evidence", "")),
                text(rec.get("control", "")))
        uses = getattr(c, "uses", ())
        if uses:
            line += " Uses: %s." % ", ".join("\\texttt{%s}" % text(u) for u in uses)
        out.append(line + "\n")
    out.append("\\end{itemize}\n")
    return "".join(out)


def render_section(sec: Section, block: Block, claims, records: dict) -> str:
    """The LaTeX fragment of one section (starts with \\section, ends with a newline)."""
    parts = ["%% fragment %s: generated by l2g derive; do not edit\n" % sec.id,
             "\\section{%s (%s)}\\label{sec:%s}\n" % (text(sec.title), text(block.ref), sec.id)]
    if block.assumptions:
        parts.append("\\paragraph{Assumptions.} %s.\n" % "; ".join(text(a) for a in block.assumptions))
    if block.derivation:
        parts.append("\\paragraph{Derivation.} %s\n" % text(block.derivation))
    if block.entries:
        parts.append("\\paragraph{Derived expressions.}\n")
        parts.extend(e.render() for e in block.entries)
    if block.extra:
        parts.append(block.extra)
    parts.append(_claims_tex(claims, records))
    return "".join(parts)


PREAMBLE = (
    "\\documentclass[11pt]{article}\n"
    + "".join("\\usepackage%s{%s}\n" % ("[margin=2cm]" if p == "geometry" else "", p) for p in PACKAGES)
    + "\\hypersetup{pdfcreator={l2g derive},pdfproducer={l2g derive}}\n"
    "\\allowdisplaybreaks\n"
    "\\title{Local to Global: derivations}\n"
    "\\author{generated by \\texttt{l2g derive}}\n"
    "\\date{}\n"
)


@dataclass(frozen=True)
class Document:
    """The derivations document: the full standalone `tex` and one fragment per section id."""

    tex: str
    fragments: dict = field(default_factory=dict)


def build_document(records: dict | None = None, claims=None, fig_dir=None, tex_dir=None) -> Document:
    """Build every registered section (no check is run); `claims` defaults to the registry.

    With `records` (claim id -> record dict, as written by `l2g check --json`) the document shows each
    claim's status and ends with the errata; with `fig_dir` it includes the figures found there
    (paths relative to `tex_dir`, where derivations.tex is written).
    """
    if claims is None:
        from local2global.proofs import select
        claims = select()
    records = records or {}
    fragments = {}
    for sec in sections():
        fragments[sec.id] = render_section(sec, sec.build(), claims_for(sec, claims), records)
    intro = ("This document is generated from the SymPy derivations of the companion; every formula "
             "below is a derived expression printed by one LaTeX printer, not typed in. Each section "
             "lists the claims of the proof registry that back it.\n")
    body = "".join(fragments[s.id] + "\n" for s in sections())
    from local2global.proofs.outputs.pdf import errata_section, figures_section
    body += errata_section(list(records.values()) if records else None, claims=claims)
    if fig_dir is not None and Path(fig_dir).is_dir():
        body += figures_section(fig_dir, relative_to=tex_dir)
    tex = (PREAMBLE + "\\begin{document}\n\\sloppy\n\\maketitle\n" + intro + "\\tableofcontents\n\n" + body
           + "\\end{document}\n")
    return Document(tex=tex, fragments=fragments)


# ---------------------------------------------------------------------------------------------
# The sections of issue 2: canonical model and loss landscape in R^2 and R^3
# ---------------------------------------------------------------------------------------------

CHAIN = MarkovChain()
PI0, PI1 = sp.symbols("pi0 pi1")


@section("canonical_logit", order=10, title="Canonical logit", refs=("Eq. 3",))
def _canonical_logit() -> Block:
    r = canonical.derive_logit()
    return Block.from_result(r, ["A", "z0", "logit"], lhs={"A": "A = z_1 - z_0", "z0": "c = z_0", "logit": "z_X"})


@section("chain", order=20, title="Markov chain quantities", refs=("Sec. 2",))
def _chain() -> Block:
    ch = CHAIN
    return Block(
        ref="Sec. 2",
        assumptions=("(p, q) in (0,1)^2",),
        derivation="pi solved from pi P = pi, pi0 + pi1 = 1; entropies as expectations over (X, Y) ~ (pi, P); "
                   "the mutual information from the joint law, not as a difference of entropies.",
        entries=(
            Entry("P", ch.kernel),
            Entry(r"(\pi_0, \pi_1)", sp.Matrix([list(ch.stationary)])),
            Entry(r"H(x_{n+1} \mid x_n)", ch.entropy_rate),
            Entry(r"H(x_n)", ch.marginal_entropy),
            Entry(r"I(x_n; x_{n+1})", ch.mutual_information),
        ),
    )


@section("loss_with_bias", order=30, title="Loss with bias", refs=("Lemma 2",))
def _loss_with_bias() -> Block:
    return Block(
        ref="Lemma 2",
        assumptions=("any e, w, b in R", "(p, q) in (0,1)^2"),
        derivation="Cross-entropy of the canonical logit averaged over (X, Y) ~ (pi, P), written with "
                   "l_log(z) = log(1 + exp(-z)); it depends on (e, w, b) only through (A, c).",
        entries=(
            Entry("F(A, c)", pi_form(sbias.F(CHAIN))),
            Entry("L(e, w, b)", pi_form(_M.loss_with_bias)),
        ),
    )


@lru_cache(maxsize=None)
def _special_cases():
    """Lemma 5's two special cases, from the derived c*(A): A = A* and e = 0 (A = 0)."""
    opt = _M.optimal_bias
    return opt["c_star_at_A_star"], opt["b_star_at_e0"]


@section("optimal_bias", order=40, title="Optimal bias and reduced loss", refs=("Lemma 5", "Lemma 6", "Eq. 5"))
def _optimal_bias() -> Block:
    r = sbias.derive_optimal_bias(CHAIN)
    at_A_star, at_e0 = _special_cases()
    more = (
        Entry(r"c^{\star}(A^{\star})", at_A_star, note="Special case A = A* (derived c* at A* = log((1-p)(1-q)/(pq))):"),
        Entry(r"b^{\star}(e, w)", pi_form(_M.b_star), note="The optimal bias, b* = c*(A) + e^2/2:"),
        Entry(r"b^{\star}(0, w)", at_e0, note="Special case e = 0:"),
        Entry(r"L(e, w) = G(A)", pi_form(sbias.G(CHAIN)),
              note="Reduced loss (Eq. 5, Lemma 6): L(e, w, b*(e, w)) = F(A, c*(A)) =: G(A) with A = A(e, w):"),
    )
    return Block.from_result(
        r, ["dL_db", "quadratic", "discriminant", "root_product", "u_star", "u_star_stable", "c_star", "d2L_db2"],
        lhs={"dL_db": r"\frac{\partial L}{\partial b}", "quadratic": r"\text{numerator}",
             "discriminant": "D", "root_product": r"u^{\star} u^{-}", "u_star": r"u^{\star}",
             "u_star_stable": r"u^{\star}", "c_star": r"c^{\star}(A)", "b_star": r"b^{\star}(e, w)",
             "d2L_db2": r"\frac{\partial^2 L}{\partial b^2}"},
        notes={"quadratic": "Numerator of dL/db in u = exp(b - e^2/2), K = exp(A), set to 0:",
               "root_product": "Product of the roots (negative, so exactly one root is positive):",
               "u_star": "The positive root:",
               "u_star_stable": "The same root in conjugate form (no cancellation for p < q):"},
        transform=pi_form, more=more)


@section("structure", order=50, title="The reduced loss is a convex function of A",
         refs=("Lemma 6", "Thm 1", "Sec. 3"))
def _structure() -> Block:
    r = sland.structure(CHAIN)
    return Block.from_result(
        r, ["dF_residual", "hessian_F_in_s", "det_hessian_F", "G_second", "G_prime_at_0", "A_star",
            "G_prime_at_A_star"],
        lhs={"dF_residual": r"\nabla F = (F_A, F_c)", "hessian_F_in_s": r"\nabla^2 F",
             "det_hessian_F": r"\det \nabla^2 F", "G_second": "G''(A)", "G_prime_at_0": "G'(0)",
             "A_star": r"A^{\star}", "G_prime_at_A_star": r"G'(A^{\star})"},
        notes={"dF_residual": "Gradient of F as the expected residual (sigma(AX+c) - Y)(X, 1):",
               "G_second": "Schur complement of the Hessian of F (positive: G is strictly convex):"},
        transform=pi_form)


@section("gradients", order=60, title="Gradients with bias and reduced", refs=("Lemma 3", "Lemma 7", "Remark 2", "Remark 4"))
def _gradients() -> Block:
    f1, f2 = _M.residual_parts()
    J3 = _M.jacobian_Ac
    dA = sp.Matrix([[sp.diff(_M.A, v) for v in (S.e, S.w)]])
    gF = pi_form(sland.grad_F_residual_form(CHAIN))
    ratio = sp.factor(sp.cancel(dA[0] / dA[1]))
    return Block(
        ref="Lemmas 3, 7; Remark 4",
        assumptions=("any e, w, b in R", "(p, q) in (0,1)^2"),
        derivation="Chain rule through (A, c): grad L(e, w, b) = J^T grad F with J = d(A, c)/d(e, w, b); "
                   "the per-state residual sigma(z_X) - P(Y=1|X) is affine in the bit X, f1 X + f2. "
                   "For the reduced loss the envelope argument (dL/db = 0 at b*) gives grad L(e, w) = G'(A) grad A.",
        entries=(
            Entry("f_1", f1, note="Residual slope and offset read off the derived residual (Lemma 3):"),
            Entry("f_2", f2),
            Entry(r"J = \frac{\partial (A, c)}{\partial (e, w, b)}", J3),
            Entry(r"\nabla_{(e, w, b)} L", r"J^{\top} \nabla F, \qquad \nabla F = " + latex(gF),
                  note="Gradient with bias (Lemma 3), chain-rule form:"),
            Entry(r"\nabla A = \frac{\partial A}{\partial (e, w)}", dA),
            Entry(r"\nabla_{(e, w)} L", r"G'(A)\, \nabla A = F_A(A, c^{\star}(A))\, \nabla A",
                  note="Reduced gradient (Lemma 7, envelope argument):"),
            Entry(r"\frac{\partial L / \partial e}{\partial L / \partial w}", ratio,
                  note="Remark 4: the two partial derivatives are proportional, with the ratio of grad A (e, w != 0):"),
        ),
    )


@lru_cache(maxsize=None)
def _hessians_on_axis():
    """Lemma 4's Hessian (order b, e, w) and Lemma 8's Schur complement at e = 0, b = log(p/q)."""
    simp = lambda x: simplify_unit(sp.together(x))     # exp(log(p/q)) has already evaluated: rational in p, q
    b0 = _M.optimal_bias["b_star_at_e0"]
    H = _M.hessian_with_bias(order=(S.b, S.e, S.w)).subs(S.e, 0).subs(S.b, b0).applyfunc(simp)
    Hs = _M.schur_hessian().subs(S.e, 0).applyfunc(simp)
    return H, Hs


@section("hessians", order=70, title="Hessians with bias and reduced", refs=("Lemma 4", "Lemma 8"))
def _hessians() -> Block:
    H0, Hs0 = _hessians_on_axis()
    hF = pi_form(sland.structure(CHAIN)["hessian_F_in_s"])
    hA = S.hessian(_M.A, (S.e, S.w, S.b))
    return Block(
        ref="Lemmas 4, 8",
        assumptions=("w != 0 for the second derivative in w (w|w| is C^1, not C^2 at w = 0)",
                     "(p, q) in (0,1)^2"),
        derivation="Chain rule: Hess L = J^T (Hess F) J + F_A Hess A + F_c Hess c (Hess c = diag(-1, 0, 0)); "
                   "the reduced Hessian is the Schur complement H_tt - H_tb H_bb^{-1} H_bt at b = b*. "
                   "On the e-axis with b = b* both are computed by substitution into the derived Hessians.",
        entries=(
            Entry(r"\nabla^2 F", hF, note="Hessian of F in (A, c):"),
            Entry(r"\nabla^2_{(e, w, b)} A", hA),
            Entry(r"\nabla^2_{(e,w,b)} L", r"J^{\top} \nabla^2 F\, J + F_A \nabla^2 A + F_c \nabla^2 c"),
            Entry(r"\nabla^2_{(b, e, w)} L\big|_{e = 0,\ b = b^{\star}}", H0,
                  note="Lemma 4 on the e-axis (Gamma_min and Gamma_sad), order (b, e, w):"),
            Entry(r"\nabla^2_{(e, w)} L\big|_{e = 0}", Hs0, note="Lemma 8 (Schur complement) on the e-axis:"),
        ),
    )


def _critical_extra(sets) -> str:
    out = ["\\paragraph{Critical sets.}\n", "\\begin{itemize}\n"]
    for cs in sets:
        eqs = r",\quad ".join(latex(eq) for eq in cs.equations)
        out.append("\\item $%s$ (%s), condition $%s$:\n" % (latex_name(cs.name), text(cs.classification.replace("_", " ")),
                                                             latex(cs.condition)))
        out.append("\\begin{align*}\n%s\n\\end{align*}\n" % eqs.replace(r",\quad ", r" \\" + "\n"))
        out.append("Argument: %s\n" % text(cs.argument))
    out.append("\\end{itemize}\n")
    return "".join(out)


def _loss_values() -> tuple:
    """G(A*) and G(0) from the derived G, shown next to the chain's entropies."""
    G = sbias.G(CHAIN)
    G0 = simplify_unit(sp.expand_log(G.subs(S.A, 0), force=True))
    return (
        Entry("G(0)", G0, note="Loss on the e-axis, from the derived G:"),
        Entry(r"H(x_n)", CHAIN.marginal_entropy),
        Entry(r"H(x_n) - H(x_{n+1} \mid x_n)", r"I(x_n; x_{n+1})",
              note="Gap between the two critical values (checked by the claims below):"),
    )


@section("critical_r3", order=80, title="Critical points in R^3", refs=("Thm 6", "Thm 7", "Remark 1"))
def _critical_r3() -> Block:
    sets = _M.critical_sets(bias=True)
    return Block(
        ref="Thms 6, 7",
        assumptions=("p + q != 1", "(p, q) in (0,1)^2"),
        derivation="grad L = J^T grad F. Case (a): grad F = 0, a linear system in sigma(c), sigma(A+c) with one "
                   "solution. Case (b): grad A = 0 and F_c = 0, which forces e = 0 (solved on each sign branch of w) "
                   "and then fixes b. Classification by the convexity of F and G.",
        entries=_loss_values(),
        extra=_critical_extra(sets),
    )


@section("critical_r2", order=90, title="Critical points of the reduced loss in R^2", refs=("Thm 1",))
def _critical_r2() -> Block:
    sets = _M.critical_sets()
    return Block(
        ref="Thm 1",
        assumptions=("p + q != 1", "(p, q) in (0,1)^2"),
        derivation="grad L(e, w) = G'(A) grad A vanishes where G'(A) = 0 (A = A*, G strictly convex) or where "
                   "grad A = 0 (e = 0); the e-axis is split by the sign of G'(0)(1 + 2w|w|).",
        extra=_critical_extra(sets),
    )


def write_document(out_dir, doc: "Document"):
    """Write doc's fragments (out_dir/fragments/<id>.tex), then derivations.tex; return the .tex path.

    Each file is written atomically; the document was built in memory before any file is touched.
    """
    from local2global.numeric.infra.atomic import atomic_write

    out_dir = Path(out_dir)
    (out_dir / "fragments").mkdir(parents=True, exist_ok=True)
    for ident, frag in doc.fragments.items():
        atomic_write(out_dir / "fragments" / f"{ident}.tex", frag)
    return atomic_write(out_dir / "derivations.tex", doc.tex)


# ---------------------------------------------------------------------------------------------
# Sections of issues 3-5: dynamics (energy, basins), attention, full model
# ---------------------------------------------------------------------------------------------

@section("energy", order=100, title="Energy of the gradient flow", refs=("Eq. 11", "Lemma 1", "Lemma 9", "Sec. 4"))
def _energy_section() -> Block:
    from local2global.symbolic import energy
    r = energy.derive_energy()
    cons = energy.conservation()
    more = tuple(Entry(lhs, cons[name], note=note) for name, lhs, note in (
        ("gradE_dot_gradA_w>0", r"\nabla E\cdot\nabla A\ (w>0)", "Conservation (grad L = G'(A) grad A):"),
        ("gradE_dot_gradA_w<0", r"\nabla E\cdot\nabla A\ (w<0)", ""),
        ("dA_dw_at_w0", r"\partial_w A\,|_{w=0}", "The e-axis is invariant:")))
    return Block.from_result(r, ["E_w>0", "E_w<0", "E"], lhs={"E_w>0": "E\\ (w>0)", "E_w<0": "E\\ (w<0)",
                                                            "E": "E(e, w)"}, more=more)


@section("w_axis_energy", order=110, title="Energy on the w-axis", refs=("Lemma 12",))
def _w_axis_energy() -> Block:
    from local2global.symbolic import energy
    r = energy.energy_on_w_axis()
    return Block.from_result(r, ["f_w<0", "f_w>0", "df_w<0", "df_w>0", "w_sad", "E_sad", "E_sad_minus_f_in_t"],
                             lhs={"f_w<0": "f(w)\\ (w<0)", "f_w>0": "f(w)\\ (w>0)", "df_w<0": "f'(w)\\ (w<0)",
                                  "df_w>0": "f'(w)\\ (w>0)", "w_sad": "w_{\\mathrm{sad}}",
                                  "E_sad": "E_{\\mathrm{sad}}",
                                  "E_sad_minus_f_in_t": "E_{\\mathrm{sad}} - f\\ (t = 2w^2)"})


@section("basins", order=120, title="Saddle asymptotes, basins and limits", refs=("Thm 2", "Thm 8", "Lemma 10", "Lemma 11", "Fig. 1"))
def _basins_section() -> Block:
    from local2global.symbolic import basins, energy
    g = energy.saddle_asymptotes()
    lim = basins.limit_equations()
    rows = []
    for regime in ("p+q>1", "p+q<1"):
        bs = basins.basin_sets(regime)
        rows.append("\\paragraph{%s (%s).}\n\\begin{itemize}\n" % (text(bs.ref), text(regime)))
        for name, cond in bs.expressions.items():
            rows.append("\\item $%s$: $%s$\n" % (latex_name(name), latex(cond)))
        rows.append("\\end{itemize}\n")
    more = (Entry("\\text{limit in } I^\\star\\ (w<0)", lim["pair_w<0"],
                  note="The limit of a start in I* solves E = E_0 together with A = A*:"),)
    blk = Block.from_result(g, ["g"], lhs={"g": "g(w)"}, more=more)
    return Block(ref=g.ref, assumptions=blk.assumptions, derivation=blk.derivation, entries=blk.entries,
                 extra="".join(rows))


@section("attention_logit", order=200, title="Attention scalar: logit and optimal bias",
         refs=("Eq. 39", "Eq. 41", "Lemma 13"))
def _attention_logit() -> Block:
    r = _MA.logit_result
    opt = _MA.optimal_bias
    more = (Entry("b^\\star - (c^\\star(A) - z_0 + b)", sp.Integer(0),
                  note="Lemma 13: the loss is again F(A, z_0), so the optimal bias shifts Lemma 5's c*(A) by the offset "
                       "(the claims check that it reduces to Lemma 5 at a = 0):"),
            Entry("z_0 - b", opt["offset"]))
    return Block.from_result(r, ["A", "z0"], lhs={"A": "A(e, w, a)", "z0": "z_0"}, more=more)


@section("attention_energy", order=210, title="Energy with attention and the stationary set",
         refs=("Lemma 14", "Thm 9", "Thm 10", "Remark 5", "Lemma 15", "Lemma 16", "Thm 3",
               "Thm 11", "Fig. 2", "Fig. 5"))
def _attention_energy() -> Block:
    r = _MA.energy_result
    st = _MA.station_hessian
    more = (Entry("\\nabla^2 A\\,|_{\\Theta_{\\mathrm{station}}}", st["hess_A"],
                  note="On Theta_station grad A = 0 and the Hessian of L = G(A) is G'(0) times:"),
            Entry("\\operatorname{eig}\\nabla^2 L", sp.Matrix([st["eigenvalues"]]),
                  note="Its eigenvalues (one of each sign when p+q != 1: strict saddles):"))
    return Block.from_result(r, ["k", "E"], lhs={"k": "k", "E": "E(e, w, a)"}, more=more)


@section("full_model", order=300, title="The full transformer against the canonical model",
         refs=("Thm 4", "Thm 5", "Sec. 5", "Fig. 3", "Fig. 4", "Fig. 6"))
def _full_model() -> Block:
    return Block(
        ref="App. A-C, Sec. 5", assumptions=("float64", "d in {2, 8}", "N up to 12"),
        derivation="numeric/fullmodel.py is the full single-layer transformer in torch (it imports nothing from "
                   "the symbolic package); its population loss is exact (all 2^N sequences). At canonical points "
                   "its logits, loss and autograd gradients are compared with the derived Eq. 3, Lemma 2, Lemma 3 "
                   "and Lemma 7; the claims below give the measured deviations.",
        entries=(Entry("\\mathrm{logit}_X", _M.logit(sp.Symbol("X")),
                       note="The reduction checked sequence by sequence (derived Eq. 3):"),))
