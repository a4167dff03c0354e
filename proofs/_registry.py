"""The claim registry: one entry per claim of the paper, each with a check and a negative control.

The status ladder says what a check established (and nothing more):

* `proved`: exact over the whole stated domain (a SymPy identity or derivation, or a rigorous argument whose
  steps are proved claims), compactified where the domain is unbounded, with no excluded band the statement
  itself does not exclude;
* `certified`: rigorous interval arithmetic over a stated compact part of the domain (the record names it);
* `sampled`: numerical evidence (how many points or flows, at how many digits, over which region);
* `experiment`: a training run (seeds, sizes, optimizer, steps) read from the cache of `l2g all`;
* `erratum`: the printed form fails, our corrected form passes (with its own strength) and the control fails;
* `open`: no machine check (the reason is recorded); `failed`: our own check broke, or (an experiment) the
  measured runs contradict the prediction it states (its failing step says where).

A claim's own strength is what its check showed on the printed form (and only if the same check rejected the
negative control). Its `status` is the weakest of its own strength and the strengths of every claim it uses,
transitively (a theorem is as strong as its weakest step); `weakest` names that step.
"""
from __future__ import annotations

import gc
import time
import traceback
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Iterable

from local2global.proofs._steps import STRENGTHS, Step, method_of, status_line, steps_text, strength_of, trust_base
# the one resolver of `uses` lives with the step model (the outputs read it without importing the registry)
from local2global.proofs._steps import resolve_uses as resolve_uses, uses_closure as uses_closure

#: the ladder, strongest first; `verified` (the old single word for every passing check) is gone
STATUSES = ("proved", "certified", "sampled", "experiment", "erratum", "open", "failed")
#: strengths a check can establish, strongest first (`proofs._steps.STRENGTHS`; an erratum carries the
#: strength of its corrected form)
RANK = {s: len(STRENGTHS) - i for i, s in enumerate(STRENGTHS)}      # larger is stronger
#: the status of a claim as it appears in the coverage of the paper's numbered results
COVERED = ("proved", "certified", "sampled", "experiment", "erratum")


@dataclass(frozen=True)
class Context:
    """Settings shared by all checks: working precision, number of random sample points, flow precision.

    `flow_dps` is the precision of the integrated flows of the flow claims (at least 40 digits, so that their
    tolerances of 10^-(flow_dps/2) are at most 1e-20; by default `dps - 10`, so `l2g check --dps` reaches them)."""

    dps: int = 50
    points: int = 24
    flow_dps: int | None = None

    @property
    def flows(self) -> int:
        return self.flow_dps if self.flow_dps is not None else max(40, self.dps - 10)


@dataclass(frozen=True)
class Outcome:
    """What one run of a check established: pass/fail, its steps (`proofs._steps`), and corroborations.

    Build it with `Outcome.of(*steps, corroboration=...)`: ok, method, evidence and strength are then read off
    the steps (a method or strength is never written by hand). `checked_domain` says where the check looked
    (for a proof: the whole stated domain). `corroboration` steps must hold but do not change the strength.

    The positional form `Outcome(ok, method, evidence, strength=...)` is the old unstructured outcome; a record
    made from one carries a single `legacy` step (tests list them: there should be none)."""

    ok: bool
    method: str = ""
    evidence: str = ""
    certified: bool = False
    strength: str | None = None
    checked_domain: str = ""
    corroboration: str = ""
    steps: tuple[Step, ...] = ()
    corroborations: tuple[Step, ...] = ()

    @classmethod
    def of(cls, *steps: Step, corroboration: Iterable[Step] = (), checked_domain: str = "",
           ok: bool | None = None) -> "Outcome":
        """The outcome of these proof steps: ok iff every step and every corroboration holds (or `ok`, when
        the check decides more than its steps say, e.g. a comparison of names), as strong as the weakest."""
        steps, corr = tuple(steps), tuple(corroboration)
        if not steps:
            raise ValueError("an outcome needs at least one step")
        all_ok = all(s.ok for s in steps) and all(s.ok for s in corr)
        return cls(all_ok if ok is None else (bool(ok) and all_ok), method_of(steps), steps_text(steps),
                   strength=strength_of(steps),
                   checked_domain=checked_domain or "; ".join(dict.fromkeys(s.domain for s in steps if s.domain)),
                   corroboration=steps_text(corr), steps=steps, corroborations=corr)

    @property
    def level(self) -> str:
        if self.steps:
            return strength_of(self.steps)
        if self.strength is not None:
            if self.strength not in STRENGTHS:
                raise ValueError(f"unknown strength {self.strength!r}")
            return self.strength
        if self.certified:
            return "certified"
        m = self.method.lower()
        numeric = ("sampled", "flow", "numeric", "high precision", "torch", "pixel", "quadrature", "mp.quad",
                   "integrated", "float64", "neighbourhood", "monte carlo", "grid")
        if (m.startswith("symbolic") or m.startswith("exact")) and not any(k in m for k in numeric):
            return "proved"       # "exact" is the method word of step-built outcomes (`_steps.method_of`)
        if m.startswith("experiment"):
            return "experiment"
        return "sampled"

    def all_steps(self) -> tuple[Step, ...]:
        """The proof steps, or the one legacy step that stands for an unstructured outcome."""
        if self.steps:
            return self.steps
        kind = {"proved": "exact", "certified": "interval", "sampled": "sampled", "experiment": "experiment",
                "open": "sampled", "failed": "sampled"}[self.level]
        return (Step(kind, self.evidence or "(no evidence recorded)", self.ok, self.method,
                     self.checked_domain, legacy=True),)

    def corroboration_steps(self) -> tuple[Step, ...]:
        if self.corroborations or not self.corroboration:
            return self.corroborations
        return (Step("sampled", self.corroboration, self.ok, "corroboration", legacy=True),)


def combine(*outcomes: Outcome, method: str | None = None, evidence: str | None = None) -> Outcome:
    """Several sub-checks as one Outcome: ok if all are, as strong as the weakest, their steps joined."""
    if all(o.steps for o in outcomes) and method is None and evidence is None:
        out = Outcome.of(*[s for o in outcomes for s in o.steps],
                         corroboration=[s for o in outcomes for s in o.corroborations],
                         checked_domain="; ".join(dict.fromkeys(o.checked_domain for o in outcomes if o.checked_domain)))
        return out if all(o.ok for o in outcomes) else replace(out, ok=False)
    levels = [o.level for o in outcomes]
    weakest = min(levels, key=lambda s: RANK[s])
    steps = tuple(s for o in outcomes for s in o.all_steps()) if any(o.steps for o in outcomes) else ()
    return Outcome(all(o.ok for o in outcomes),
                   method if method is not None else " + ".join(dict.fromkeys(o.method for o in outcomes)),
                   evidence if evidence is not None else "; ".join(o.evidence for o in outcomes),
                   strength=weakest,
                   checked_domain="; ".join(dict.fromkeys(o.checked_domain for o in outcomes if o.checked_domain)),
                   corroboration="; ".join(o.corroboration for o in outcomes if o.corroboration),
                   steps=steps, corroborations=tuple(s for o in outcomes for s in o.corroborations))


@dataclass(frozen=True)
class Claim:
    """A paper claim: its label, statement (LaTeX), stated domain, dependencies and its check.

    `check(form, ctx)` must accept the paper's printed form (`printed()`), our correction
    (`corrected()`, for errata) and the altered statement (`mutant()`), and reject the last.
    """

    id: str
    ref: str
    title: str
    statement: str
    check: Callable[[Any, Context], Outcome]
    printed: Callable[[], Any]
    mutant: Callable[[], Any]
    uses: tuple[str, ...] = ()
    section: str = "landscape"
    corrected: Callable[[], Any] | None = None
    erratum: str = ""
    open_reason: str = ""
    domain: str = ""
    role: str = "proof"
    #: claims with the same nonempty batch run one after another in one worker of `run_claims` (they share
    #: an expensive import, such as torch's, that each worker would otherwise pay)
    batch: str = ""


#: a claim's role in its numbered result. `proof`: a part of the result's statement or a step of its proof;
#: the result is as strong as its weakest such claim. `confrontation`: the same statement checked again on
#: another implementation (the torch transformer against the derivation); it must pass (a failure fails the
#: result) but, proving nothing the derivation has not, it does not weaken the result's status.
ROLES = ("proof", "confrontation")


@dataclass
class Record:
    """The result of running one claim: status (propagated), own status, its steps, the control's steps.

    `steps` are the proof steps of the form whose strength counts (the printed form; the corrected form for
    an erratum, whose failing printed form keeps its steps in `printed_steps`); `control_steps` are the steps
    of the negative control, which the check must reject (`control_rejected`); `corroborations` must hold but
    do not change the strength. `trust` is the trust base over the claim's uses-closure and `status_line` the
    status with what it rests on that no machine checked (both set by `propagate`). `method`, `evidence` and
    `control` are the same steps as one line of text each (the terminal table)."""

    id: str
    ref: str
    title: str
    section: str
    status: str
    method: str
    evidence: str
    control: str
    uses: tuple[str, ...] = ()
    erratum: str = ""
    own_status: str = ""
    strength: str = ""
    stated_domain: str = ""
    checked_domain: str = ""
    corroboration: str = ""
    weakest: str = ""
    role: str = "proof"
    steps: tuple[Step, ...] = ()
    printed_steps: tuple[Step, ...] = ()
    control_steps: tuple[Step, ...] = ()
    control_rejected: bool = False
    corroborations: tuple[Step, ...] = ()
    trust: dict = field(default_factory=dict)
    status_line: str = ""
    seconds: float = 0.0

    def as_dict(self) -> dict:
        d = dict(self.__dict__)
        d["uses"] = list(self.uses)
        for k in ("steps", "printed_steps", "control_steps", "corroborations"):
            d[k] = [x.as_dict() for x in getattr(self, k)]
        d.pop("seconds")      # timings would make the JSON report non-deterministic
        return d


REGISTRY: dict[str, Claim] = {}


def claim(id: str, *, ref: str, title: str, statement: str, printed, mutant, uses=(), section="landscape",
          corrected=None, erratum: str = "", domain: str = "", role: str = "proof", batch: str = ""):
    """Decorator registering `check` as the check of a claim (`domain`: the statement's domain, in words;
    `role`: see `ROLES`; `batch`: see `Claim.batch`)."""
    if role not in ROLES:
        raise ValueError(f"claim {id!r}: role {role!r} is not one of {ROLES}")

    def deco(check):
        if id in REGISTRY:
            raise ValueError(f"claim {id!r} registered twice")
        REGISTRY[id] = Claim(id=id, ref=ref, title=title, statement=statement, check=check, printed=printed,
                             mutant=mutant, uses=tuple(uses), section=section, corrected=corrected,
                             erratum=erratum, domain=domain, role=role, batch=batch)
        return check
    return deco


def _safe(check, form, ctx) -> Outcome:
    try:
        return check(form, ctx)
    except Exception as ex:  # noqa: BLE001 - a crash is a failed check, never a pass
        tb = traceback.extract_tb(ex.__traceback__)[-1]
        return Outcome(False, "error", f"{type(ex).__name__}: {ex} (at {tb.filename.split('/')[-1]}:{tb.lineno})")


def run_claim(cl: Claim, ctx: Context = Context()) -> Record:
    """Run a claim's check on the printed form, the correction if any, and the negative control.

    The record's `status` is its own status here; `run_claims` then propagates the weakest step."""
    t0 = time.perf_counter()
    base = dict(id=cl.id, ref=cl.ref, title=cl.title, section=cl.section, uses=cl.uses, erratum=cl.erratum,
                stated_domain=cl.domain, role=cl.role)
    if cl.open_reason:
        return Record(**base, status="open", own_status="open", strength="open", method="none",
                      evidence=cl.open_reason, control="n/a", weakest=cl.id, seconds=time.perf_counter() - t0)
    printed = _safe(cl.check, cl.printed(), ctx)
    control = _safe(cl.check, cl.mutant(), ctx)
    control_text = ("rejected: " if not control.ok else "NOT rejected: ") + control.evidence
    printed_steps = ()
    if printed.ok:
        status = printed.level if not control.ok else "failed"
        strength, outcome = status, printed
    elif cl.corrected is not None:
        fixed = _safe(cl.check, cl.corrected(), ctx)
        status = "erratum" if (fixed.ok and not control.ok) else "failed"
        strength = fixed.level if status == "erratum" else "failed"
        printed_steps = printed.all_steps()
        outcome = Outcome(fixed.ok, fixed.method, f"printed form fails ({printed.evidence}); corrected form: "
                          f"{fixed.evidence}", strength=fixed.level, checked_domain=fixed.checked_domain,
                          corroboration=fixed.corroboration, steps=fixed.all_steps(),
                          corroborations=fixed.corroboration_steps())
    else:
        status, strength, outcome = "failed", "failed", printed
    return Record(**base, status=status, own_status=status, strength=strength, method=outcome.method,
                  evidence=outcome.evidence, control=control_text, checked_domain=outcome.checked_domain,
                  corroboration=outcome.corroboration, weakest=cl.id, steps=outcome.all_steps(),
                  printed_steps=printed_steps, control_steps=control.all_steps(), control_rejected=not control.ok,
                  corroborations=outcome.corroboration_steps(), seconds=time.perf_counter() - t0)


_loaded = False


def load_all() -> None:
    """Import every claim module once (registration happens at import): the `claims_NN_*.py` files of this
    package, in the order of NN (the paper's)."""
    global _loaded
    if _loaded:
        return
    import importlib
    import pkgutil
    from pathlib import Path

    package = __name__.rpartition(".")[0]
    for mod in sorted(m.name for m in pkgutil.iter_modules([str(Path(__file__).parent)]) if m.name.startswith("claims_")):
        importlib.import_module(f"{package}.{mod}")
    _loaded = True


def closure(claims) -> list[Claim]:
    """The claims with every claim they use, transitively, in registry order."""
    load_all()
    want = set(uses_closure({cid: c.uses for cid, c in REGISTRY.items()}, [c.id for c in claims]))
    return [c for c in select() if c.id in want]


def propagate(records: list[Record]) -> list[Record]:
    """Set each record's status to the weakest strength over its uses-closure, and `weakest` to that step.

    Errata keep the status `erratum` (a finding about the paper); claims that use them see the strength of
    the corrected form. Uses that name no record in `records` are ignored (a partial run)."""
    by_id = {r.id: r for r in records}
    memo: dict[str, tuple[str, str]] = {}

    def weakest(cid, stack=()):
        if cid in memo:
            return memo[cid]
        if cid in stack:
            raise ValueError(f"claims use each other in a cycle: {' -> '.join(stack + (cid,))}")
        r = by_id[cid]
        best = (r.strength or r.own_status, cid)
        for u in r.uses:
            for dep in resolve_uses(u, by_id):
                cand = weakest(dep, stack + (cid,))
                if RANK[cand[0]] < RANK[best[0]]:
                    best = cand
        memo[cid] = best
        return best

    uses_of = {r.id: r.uses for r in records}
    as_dicts = {r.id: {"steps": [x.as_dict() for x in r.steps]} for r in records}
    for r in records:
        level, step = weakest(r.id)
        r.weakest = step
        if r.own_status not in ("erratum", "failed"):
            r.status = level
        tb = trust_base(as_dicts, uses_closure(uses_of, r.id))
        r.trust = {**tb.as_dict(), "note": tb.note()}
        r.status_line = status_line(r.status, tb)
    return records


def prewarm() -> None:
    """Derive, before the workers fork, what most claims use (both models, their critical sets and energies,
    the structure): the workers inherit it instead of each deriving it again. matplotlib too: Fig. 1's check
    reads the figure's basin grid, and the report draws the dependency graph once the workers are done; and
    sympy.physics.units, which SymPy's `simplify` imports on its first call (0.1-0.5 s in every worker)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot
    import sympy.physics.units  # noqa: F401 - imported for its cost, before the workers fork

    from local2global.symbolic import basins, canonical_model, energy_on_w_axis, structure
    structure()
    for attention in (False, True):
        m = canonical_model(attention)
        m.critical_sets(False), m.critical_sets(True), m.energy, m.gradient_with_bias
    energy_on_w_axis()
    basins.contour_facts()


def _run_by_id(args) -> list[Record]:
    ids, ctx = args
    return [run_claim(REGISTRY[cid], ctx) for cid in ids]


def _tasks(claims) -> tuple[list[list[str]], list[str]]:
    """The claims as worker tasks: (each batch (`Claim.batch`) as one task, the other claims one by one).

    The other claims come last-registered first: the later sections (integrated flows in R^3, interval
    certificates) hold the longest checks, and starting them first leaves the short ones of Sec. 2-3 to fill
    the workers at the end, instead of one long check running on while the other worker idles."""
    batches: dict[str, list[str]] = {}
    single = []
    for c in claims:
        (batches.setdefault(c.batch, []) if c.batch else single).append(c.id)
    return list(batches.values()), single[::-1]


@contextmanager
def _frozen_heap():
    """Processes forked inside this block start with every object that exists now in the garbage collector's
    permanent generation (`gc.freeze`): the registry, the modules and the shared derivations are then never
    traversed by a worker's full collections (about 0.3 s each otherwise). This process unfreezes afterwards."""
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()


def run_claims(claims, ctx: Context = Context(), workers: int | None = None, progress=None,
               dependencies: bool = True) -> list[Record]:
    """Run claims (with every claim they use, unless `dependencies=False`) on `workers` forked processes
    (default: one per CPU core; 1 = in this process) and propagate the weakest step.

    Each batch (`Claim.batch`: the full-model claims, which share torch's import) runs in a process of its own,
    started before the shared derivations (`prewarm`), so that torch's import overlaps them; the pool of
    `workers` processes, forked after them, runs the other claims. Records come back in registry order and do
    not depend on `workers` or on the order claims run in: every check seeds its own sampling from its claim id,
    and caches shared between claims only save time. `progress(i, n, id)` is called as each record arrives."""
    import multiprocessing
    from concurrent.futures import as_completed
    from contextlib import ExitStack

    from local2global.numeric.infra.executor import ProcessPool, make_executor

    claims = closure(claims) if dependencies else list(claims)
    by_id = {}

    def arrived(recs):
        for rec in recs:
            by_id[rec.id] = rec
            if progress:
                progress(len(by_id), len(claims), rec.id)
    if len(claims) < 2 or workers == 1:
        for c in claims:
            arrived([run_claim(c, ctx)])
    else:
        batches, single = _tasks(claims)
        # fork: the workers inherit the loaded registry (and its lambdas, which cannot be pickled)
        with ExitStack() as stack:
            futures = []
            if batches:
                # always processes (make_executor(1) would run the batch here, before the derivations)
                early = stack.enter_context(ProcessPool(len(batches), multiprocessing.get_context("fork")))
                with _frozen_heap():
                    futures += [early.submit(_run_by_id, (ids, ctx)) for ids in batches]
            prewarm()
            if single:
                pool = stack.enter_context(make_executor(workers, start_method="fork"))
                with _frozen_heap():
                    futures += [pool.submit(_run_by_id, ([cid], ctx)) for cid in single]
            for f in as_completed(futures):
                arrived(f.result())
    return propagate([by_id[c.id] for c in claims])


def select(ids=None, notes: list | None = None) -> list[Claim]:
    """Claims in paper order; `ids` selects by claim id, paper label ("Lemma 12", "Thm 2 (ii)", "lemma12",
    "Eq. 3"), printed reference or id prefix (`proofs.selection`). KeyError for unknown selectors, with
    suggestions; `notes` receives one line per sub-item that named no claim of its own."""
    from local2global.proofs.selection import select_claims
    load_all()
    # paper order = claim-module order (claims_NN_*), then registration order within a module; the
    # registry's own insertion order depends on which module a caller happened to import first
    ordered = sorted(REGISTRY.values(), key=lambda c: getattr(c.check, "__module__", ""))
    return select_claims(ids, ordered, notes=notes)
