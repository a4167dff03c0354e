r"""The steps of a proof as data: what each step states, how it was established, what it used, what it found.

A claim's check returns an `Outcome` built from `Step`s. Each step has a *kind*, which says how it was
established and how strong it is:

=============  ====================================================================  =============
kind           how the step was established                                          rung it gives
=============  ====================================================================  =============
``kernel``     a Coq proof of the step's statement, compiled by ``coqc``             proved
``exact``      decided exactly by SymPy / python-flint (normal forms, signs, limits)  proved
``interval``   arb ball arithmetic (python-flint, outward rounding) on a named box   certified
``sampled``    evaluated at a stated number of points, digits and region             sampled
``experiment`` measured on training runs of the full transformer                     experiment
``argued``     an argument written out in prose (checked by tests that mutate it)    (listed)
``cited``      a published theorem, with its reference                               (listed)
=============  ====================================================================  =============

A claim's own strength is the weakest rung over its proof steps (``argued`` and ``cited`` steps give no rung:
they do not lower it, but every status line names them, and a claim that has only such steps is ``open``).
Corroborations are steps too: they must hold but never change the strength. The trust base of a result
(`trust_base`) counts the steps of every kind over the claims it rests on, lists the argued and cited steps
in full and names the software trusted; every output prints it from these records, never from text.

A step may carry an `Obligation`: the exact statement it decided, as a SymPy object (for instance
``expr == 0`` under the sign assumptions of its symbols), which the kernel pass restates in Coq. It lives in
the process only (it is not written to JSON).
"""
from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any, Iterable

#: the kinds of step, strongest first
KINDS = ("kernel", "exact", "interval", "sampled", "experiment", "argued", "cited")
#: the rung of the status ladder each kind establishes (None: listed in the trust base, no rung)
RUNG = {"kernel": "proved", "exact": "proved", "interval": "certified", "sampled": "sampled",
        "experiment": "experiment", "argued": None, "cited": None}
#: how a kind reads in a sentence ("2 argued steps")
KIND_WORDS = {"kernel": "kernel-checked", "exact": "exact", "interval": "interval", "sampled": "sampled",
              "experiment": "experiment", "argued": "argued", "cited": "cited"}
#: the software a kind of step trusts by default (more can be named per step)
DEFAULT_SOFTWARE = {"kernel": ("coq",), "exact": ("sympy",), "interval": ("python-flint",),
                    "sampled": ("mpmath",), "experiment": ("torch",), "argued": (), "cited": ()}
#: the software a trust base may name, with how to read its version
SOFTWARE = {"sympy": "SymPy", "python-flint": "python-flint (arb)", "mpmath": "mpmath", "gmpy2": "gmpy2 (MPFR)",
            "torch": "PyTorch", "coq": "Coq (coqc)", "numpy": "NumPy"}


@dataclass(frozen=True)
class Obligation:
    """The exact statement a step decided, for a proof assistant to re-prove: ``relation`` is one of
    ``"== 0"``, ``"> 0"``, ``"< 0"``, ``">= 0"``, ``"<= 0"``, ``"!= 0"`` applied to ``expr - rhs`` (SymPy
    expressions; ``rhs`` is 0 unless an identity keeps its two sides apart, so that the statement re-proved is
    "this form equals that one" and not SymPy's evaluated difference), under ``hypotheses`` (SymPy relations)
    and the sign assumptions of the symbols; (p, q) range over (0, 1)^2 unless ``unit_pq`` is False. ``label``
    names it within its step (a branch, an entry). With ``wrt`` (a symbol) the statement is a derivative:
    ``d(expr)/d(wrt) = rhs`` at every point of the domain (`derivative`)."""

    relation: str
    expr: Any
    hypotheses: tuple = ()
    unit_pq: bool = True
    label: str = ""
    rhs: Any = 0
    wrt: Any = None

    RELATIONS = ("== 0", "> 0", "< 0", ">= 0", "<= 0", "!= 0")

    def __post_init__(self):
        if self.relation not in self.RELATIONS:
            raise ValueError(f"relation {self.relation!r} is not one of {self.RELATIONS}")

    @classmethod
    def equal(cls, lhs, rhs, **kw) -> "Obligation":
        """``lhs == rhs``, the two sides kept apart (not SymPy's evaluated difference)."""
        return cls("== 0", lhs, rhs=rhs, **kw)

    @classmethod
    def derivative(cls, f, var, rhs, **kw) -> "Obligation":
        """``d f / d var = rhs``: the derivative a step computed (SymPy's `diff`), for a kernel to re-derive."""
        return cls("== 0", f, rhs=rhs, wrt=var, **kw)

    @classmethod
    def at(cls, relation: str, expr, point: dict, rhs=0, **kw) -> "Obligation":
        """``expr <relation> rhs`` at a point, the substitution stated as hypotheses ``x = value`` instead of
        performed (SymPy's `subs` evaluates, and what it evaluated to is what is to be re-proved)."""
        import sympy as sp
        hyps = tuple(sp.Eq(k, v, evaluate=False) for k, v in point.items()) + tuple(kw.pop("hypotheses", ()))
        return cls(relation, expr, hypotheses=hyps, rhs=rhs, **kw)


@dataclass(frozen=True)
class Step:
    """One step of a proof (or of a corroboration, or of a negative control).

    `states`: what the step states, a sentence (mathematics in ``$...$``, LaTeX);
    `kind`: one of `KINDS`; `ok`: whether the step holds (argued and cited steps hold by assertion);
    `method`: the procedure, in words (e.g. "SymPy normal form, flint fmpz_mpoly zero test");
    `domain`: where it was established (the whole stated domain, a named box, the sampled region);
    `values`: what it found, as (name, text) pairs, each text already holding only guaranteed digits;
    `count`, `digits`: sampled points (or boxes, flows, runs) and working digits, where they apply;
    `reference`: the published source of a cited step; `argument`: the full prose of an argued step;
    `uses`: claim ids the step rests on (beyond the claim's own `uses`); `software`: names in `SOFTWARE`;
    `certificate`: the path of a compiled kernel certificate, relative to the build folder;
    `obligations`: the exact statements decided (in-process only); `legacy`: a step synthesised from an
    unstructured outcome (there should be none)."""

    kind: str
    states: str
    ok: bool = True
    method: str = ""
    domain: str = ""
    values: tuple[tuple[str, str], ...] = ()
    count: int = 0
    digits: int = 0
    reference: str = ""
    argument: str = ""
    uses: tuple[str, ...] = ()
    software: tuple[str, ...] = ()
    certificate: str = ""
    obligations: tuple[Obligation, ...] = field(default=(), compare=False, repr=False)
    legacy: bool = False

    def __post_init__(self):
        if self.kind not in KINDS:
            raise ValueError(f"step kind {self.kind!r} is not one of {KINDS}")
        if self.kind == "cited" and not self.reference:
            raise ValueError("a cited step needs its reference")
        if self.kind == "argued" and not self.argument:
            raise ValueError("an argued step needs its argument written out")
        if not self.software and DEFAULT_SOFTWARE[self.kind]:
            object.__setattr__(self, "software", DEFAULT_SOFTWARE[self.kind])

    @property
    def rung(self) -> str | None:
        return RUNG[self.kind]

    def as_dict(self) -> dict:
        d = {}
        for f in fields(self):
            if f.name == "obligations":
                continue
            v = getattr(self, f.name)
            if isinstance(v, tuple):
                v = [list(x) if isinstance(x, tuple) else x for x in v]
            d[f.name] = v
        return d

    @classmethod
    def from_dict(cls, d: dict) -> "Step":
        kw = {f.name: d[f.name] for f in fields(cls) if f.name in d and f.name != "obligations"}
        kw["values"] = tuple(tuple(x) for x in kw.get("values", ()))
        for k in ("uses", "software"):
            kw[k] = tuple(kw.get(k, ()))
        return cls(**kw)


# --- constructors: one per kind, so a check names how a step was established and nothing else --------

def _values(values) -> tuple[tuple[str, str], ...]:
    items = values.items() if isinstance(values, dict) else values
    return tuple((str(k), str(v)) for k, v in items)


def derivative_obligations(fs, params, branches=None) -> tuple[Obligation, ...]:
    """The derivatives SymPy takes of each f in `fs` with respect to each of `params`, on each sign branch (a
    substitution of same-named symbols with signs), as `Obligation.derivative` statements: a step that uses these
    derivatives carries them, so a kernel re-derives what the step differentiated."""
    import sympy as sp
    out = []
    for lab, sub in (branches or {"all": {}}).items():
        for f in fs:
            fb = sp.sympify(f).xreplace(sub)
            for v in params:
                vb = sub.get(v, v)
                out.append(Obligation.derivative(fb, vb, sp.diff(fb, vb), label=f"d/d{v} ({lab})"))
    return tuple(out)


def with_obligations(step: Step, extra: Iterable[Obligation]) -> Step:
    """The step with more obligations (the derivatives its decided statement was computed from)."""
    from dataclasses import replace
    return replace(step, obligations=tuple(step.obligations) + tuple(extra))


def exact(states: str, ok: bool, *, method: str = "SymPy", domain: str = "the whole stated domain", values=(),
          obligations: Iterable[Obligation] = (), uses=(), software=()) -> Step:
    """A step decided exactly (SymPy, python-flint's exact polynomials): proved on `domain`."""
    return Step("exact", states, bool(ok), method, domain, _values(values), uses=tuple(uses),
                software=tuple(software), obligations=tuple(obligations))


def interval(states: str, ok: bool, *, method: str, domain: str, values=(), count: int = 0, bits: int = 0,
             uses=()) -> Step:
    """A step established by arb ball arithmetic on a named compact `domain` (`count` boxes, `bits` precision)."""
    return Step("interval", states, bool(ok), method, domain, _values(values), count=count, digits=bits,
                uses=tuple(uses))


def sampled(states: str, ok: bool, *, method: str, domain: str, count: int, digits: int = 0, values=(),
            uses=(), software=()) -> Step:
    """A step checked at `count` points (or flows, runs) at `digits` digits over `domain`."""
    return Step("sampled", states, bool(ok), method, domain, _values(values), count=count, digits=digits,
                uses=tuple(uses), software=tuple(software))


def experiment(states: str, ok: bool, *, method: str, domain: str = "", values=(), count: int = 0) -> Step:
    """A step measured on training runs of the full transformer (`count` runs)."""
    return Step("experiment", states, bool(ok), method, domain, _values(values), count=count)


def argued(states: str, argument: str, *, uses=()) -> Step:
    """A step argued in prose, not machine-checked: `argument` is the whole argument."""
    return Step("argued", states, True, "argument in prose", argument=argument, uses=tuple(uses))


def cited(states: str, reference: str, *, uses=(), argument: str = "") -> Step:
    """A published theorem used as a fact: `reference` names it (e.g. "DLMF 9.6.1")."""
    return Step("cited", states, True, "cited", reference=reference, argument=argument, uses=tuple(uses))


def tex(x) -> str:
    """A SymPy object as text for a step's statement or values: its LaTeX (the project's printer) inside $...$, which
    every output renders as mathematics (never SymPy's str, whose `**` and `Abs(` a reader should not see)."""
    from local2global.symbolic.latex import latex
    if isinstance(x, (list, tuple, set, frozenset)) and not x:
        return "none"
    body = latex(x).strip()
    return "$%s$" % body if body else "none"


# --- strength ------------------------------------------------------------------------------------------

#: the ladder's strengths, strongest first (shared with the registry)
STRENGTHS = ("proved", "certified", "sampled", "experiment", "open", "failed")
_RANK = {s: len(STRENGTHS) - i for i, s in enumerate(STRENGTHS)}


def strength_of(steps: Iterable[Step]) -> str:
    """The weakest rung over the steps that give one; ``open`` when none does (only argued or cited steps)."""
    rungs = [s.rung for s in steps if s.rung is not None]
    if not rungs:
        return "open"
    return min(rungs, key=lambda r: _RANK[r])


def method_of(steps: Iterable[Step]) -> str:
    """The kinds of the steps, strongest first, as words ("exact + sampled + 1 argued")."""
    steps = list(steps)
    words = []
    for k in KINDS:
        n = sum(s.kind == k for s in steps)
        if not n:
            continue
        words.append(f"{n} {KIND_WORDS[k]}" if k in ("argued", "cited") else KIND_WORDS[k])
    return " + ".join(words) if words else "none"


# --- the text printer (terminal table, report.md): the one place a step becomes a line of text ---------

def step_text(s: Step, long: bool = False) -> str:
    """One step as a line of plain text: its statement, then what it found."""
    head = s.states
    if s.kind == "cited":
        head += f" [cited: {s.reference}]"
    elif s.kind == "argued":
        head += " [argued]" + (f": {s.argument}" if long else "")
    vals = ", ".join(f"{k} = {v}" if k else v for k, v in s.values)
    tail = []
    if vals:
        tail.append(vals)
    if long and s.method and s.kind not in ("argued", "cited"):
        tail.append(s.method)
    if long and s.domain:
        tail.append(f"on {s.domain}")
    if not s.ok:
        tail.append("FAILS")
    return head + (f" ({'; '.join(tail)})" if tail else "")


def steps_text(steps: Iterable[Step], long: bool = False) -> str:
    return "; ".join(step_text(s, long) for s in steps)


# --- the uses of a claim -------------------------------------------------------------------------------

def resolve_uses(use: str, ids) -> list[str]:
    """The claim ids a `uses` entry names: an exact id, or an id prefix ("lemma5" -> "lemma5.*"). The one
    resolver of `uses`: the propagation, the trust base, the report, the document and the site all call it."""
    return [i for i in ids if i == use or i.startswith(use + ".")]


def uses_closure(uses_of: dict, start) -> list[str]:
    """Every claim id reachable from `start` (an id or ids) along `uses` (`uses_of`: id -> its uses entries),
    the start included, in the order of `uses_of`. Uses that name no id of `uses_of` are ignored."""
    todo = [start] if isinstance(start, str) else list(start)
    seen = set()
    while todo:
        cid = todo.pop()
        if cid in seen or cid not in uses_of:
            continue
        seen.add(cid)
        for u in uses_of[cid]:
            todo.extend(resolve_uses(u, uses_of))
    return [i for i in uses_of if i in seen]


# --- the trust base ----------------------------------------------------------------------------------

def software_versions() -> dict[str, str]:
    """The installed version of each package a trust base may name (absent ones are left out)."""
    import importlib.metadata as md
    import shutil
    import subprocess
    dist = {"sympy": "sympy", "python-flint": "python-flint", "mpmath": "mpmath", "gmpy2": "gmpy2",
            "torch": "torch", "numpy": "numpy"}
    out = {}
    for key, name in dist.items():
        try:
            out[key] = md.version(name)
        except md.PackageNotFoundError:
            pass
    coqc = shutil.which("coqc")
    if coqc:
        try:
            txt = subprocess.run([coqc, "--version"], capture_output=True, text=True, timeout=20).stdout
            out["coq"] = txt.split("version")[-1].split()[0] if "version" in txt else txt.strip()
        except (OSError, subprocess.SubprocessError):
            pass
    return out


@dataclass
class TrustBase:
    """What a result rests on: counts of steps per kind, the argued and cited steps in full (with the claim
    they belong to), and the software trusted. Built over a set of claims (a result's uses-closure)."""

    counts: dict[str, int]
    argued: list[tuple[str, dict]]
    cited: list[tuple[str, dict]]
    software: list[str]
    claims: list[str]

    def as_dict(self) -> dict:
        return {"counts": dict(self.counts), "argued": [{"claim": c, **s} for c, s in self.argued],
                "cited": [{"claim": c, **s} for c, s in self.cited], "software": list(self.software),
                "claims": list(self.claims)}

    def note(self) -> str:
        """What a status line adds: "2 argued steps, cites DLMF 9.6.1" ("" when nothing is argued or cited)."""
        parts = []
        n = len(self.argued)
        if n:
            parts.append(f"{n} argued step{'s' if n != 1 else ''}")
        refs = list(dict.fromkeys(s["reference"] for _, s in self.cited))
        if refs:
            parts.append("cites " + "; ".join(refs))
        return ", ".join(parts)


def trust_base(records: dict, ids: Iterable[str]) -> TrustBase:
    """The trust base of the claims `ids` (records by id, as dicts with their `steps`), taken as given: the
    caller passes the uses-closure (`_registry.uses_closure`). An argued or cited step that several claims carry
    word for word (the same argument, the same reference) is counted and listed once, with the first claim."""
    counts = {k: 0 for k in KINDS}
    argued, cited, soft, claims = [], [], set(), []
    seen = set()          # an argument or citation two claims share (Thms A and B) is one step of the base
    for cid in ids:
        rec = records.get(cid)
        if rec is None:
            continue
        claims.append(cid)
        for s in rec.get("steps", ()):
            if s["kind"] in ("argued", "cited"):
                key = (s["kind"], s["states"], s.get("argument", ""), s.get("reference", ""))
                if key in seen:
                    continue
                seen.add(key)
            counts[s["kind"]] += 1
            soft.update(s.get("software", ()))
            if s["kind"] == "argued":
                argued.append((cid, s))
            elif s["kind"] == "cited":
                cited.append((cid, s))
    order = list(SOFTWARE)
    return TrustBase(counts, argued, cited, sorted(soft, key=lambda x: order.index(x) if x in order else 99), claims)


def status_line(status: str, trust: TrustBase | dict | None) -> str:
    """A status as printed everywhere: the rung, then what it rests on that no machine checked
    ("proved, 2 argued steps", "certified, cites DLMF 9.7.5")."""
    if trust is None:
        return status
    note = trust.note() if isinstance(trust, TrustBase) else trust.get("note", "")
    return f"{status}, {note}" if note and status not in ("failed", "open") else status
