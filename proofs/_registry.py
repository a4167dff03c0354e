"""The claim registry: one entry per claim of the paper, each with a check and a negative control.

A claim is `verified` only when its check ran and passed on the paper's printed form *and* the
same check rejected the altered statement (the negative control). `erratum` means the printed
form fails, our corrected form passes and its control is rejected; `open` means no machine
check exists (the reason is recorded); `failed` means our own check broke.
"""
from __future__ import annotations

import sys
import time
import traceback
from dataclasses import dataclass
from typing import Any, Callable

STATUSES = ("verified", "certified", "erratum", "open", "failed")


@dataclass(frozen=True)
class Context:
    """Settings shared by all checks: working precision and number of random sample points."""

    dps: int = 50
    points: int = 24


@dataclass(frozen=True)
class Outcome:
    """What one run of a check established: pass/fail, the method used and the evidence."""

    ok: bool
    method: str
    evidence: str
    certified: bool = False


@dataclass(frozen=True)
class Claim:
    """A paper claim: its label, statement (LaTeX), dependencies and its check.

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


@dataclass
class Record:
    """The result of running one claim: status, method, evidence, negative-control evidence."""

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
    seconds: float = 0.0

    def as_dict(self) -> dict:
        d = dict(self.__dict__)
        d["uses"] = list(self.uses)
        d.pop("seconds")      # timings would make the JSON report non-deterministic
        return d


REGISTRY: dict[str, Claim] = {}


def claim(id: str, *, ref: str, title: str, statement: str, printed, mutant, uses=(), section="landscape",
          corrected=None, erratum: str = ""):
    """Decorator registering `check` as the check of a claim."""
    def deco(check):
        if id in REGISTRY:
            raise ValueError(f"claim {id!r} registered twice")
        REGISTRY[id] = Claim(id=id, ref=ref, title=title, statement=statement, check=check, printed=printed,
                             mutant=mutant, uses=tuple(uses), section=section, corrected=corrected,
                             erratum=erratum)
        return check
    return deco


def open_claim(id: str, *, ref: str, title: str, statement: str, reason: str, uses=(), section="landscape"):
    """Register a claim that is not machine-checkable, with the reason (status `open`)."""
    def _never(form, ctx):
        raise RuntimeError("open claims have no check")
    _never.__module__ = sys._getframe(1).f_globals.get("__name__", "")   # sorts with its claim module
    REGISTRY[id] = Claim(id=id, ref=ref, title=title, statement=statement, check=_never, printed=lambda: None,
                         mutant=lambda: None, uses=tuple(uses), section=section, open_reason=reason)


def _safe(check, form, ctx) -> Outcome:
    try:
        return check(form, ctx)
    except Exception as ex:  # a crash is a failed check, never a pass
        tb = traceback.extract_tb(ex.__traceback__)[-1]
        return Outcome(False, "error", f"{type(ex).__name__}: {ex} (at {tb.filename.split('/')[-1]}:{tb.lineno})")


def run_claim(cl: Claim, ctx: Context = Context()) -> Record:
    """Run a claim's check on the printed form, the correction if any, and the negative control."""
    t0 = time.perf_counter()
    base = dict(id=cl.id, ref=cl.ref, title=cl.title, section=cl.section, uses=cl.uses, erratum=cl.erratum)
    if cl.open_reason:
        return Record(**base, status="open", method="none", evidence=cl.open_reason, control="n/a",
                      seconds=time.perf_counter() - t0)
    printed = _safe(cl.check, cl.printed(), ctx)
    control = _safe(cl.check, cl.mutant(), ctx)
    control_text = ("rejected: " if not control.ok else "NOT rejected: ") + control.evidence
    if printed.ok:
        status = ("certified" if printed.certified else "verified") if not control.ok else "failed"
        outcome = printed
    elif cl.corrected is not None:
        fixed = _safe(cl.check, cl.corrected(), ctx)
        status = "erratum" if (fixed.ok and not control.ok) else "failed"
        outcome = Outcome(fixed.ok, fixed.method, f"printed form fails ({printed.evidence}); corrected form: {fixed.evidence}")
    else:
        status, outcome = "failed", printed
    return Record(**base, status=status, method=outcome.method, evidence=outcome.evidence, control=control_text,
                  seconds=time.perf_counter() - t0)


def _run_by_id(args) -> Record:
    cid, ctx = args
    return run_claim(REGISTRY[cid], ctx)


def run_claims(claims, ctx: Context = Context(), workers: int | None = None, progress=None) -> list[Record]:
    """Run claims in order, on `workers` forked processes (default: one per CPU core; 1 = in this process).

    Records come back in the order of `claims` and do not depend on `workers`: every check seeds its own
    sampling from its claim id, and caches shared between claims only save time. `progress(i, n, id)` is
    called as each record arrives."""
    from local2global.numeric.infra.executor import make_executor

    claims = list(claims)
    records = []
    # fork: the workers inherit the loaded registry (and its lambdas, which cannot be pickled)
    with make_executor(1 if len(claims) < 2 else workers, start_method="fork") as ex:
        for i, rec in enumerate(ex.map(_run_by_id, [(c.id, ctx) for c in claims]), 1):
            records.append(rec)
            if progress:
                progress(i, len(claims), rec.id)
    return records


def select(ids=None, notes: list | None = None) -> list[Claim]:
    """Claims in paper order; `ids` selects by claim id, paper label ("Lemma 12", "Thm 2 (ii)", "lemma12",
    "Eq. 3"), printed reference or id prefix (`proofs.selection`). KeyError for unknown selectors, with
    suggestions; `notes` receives one line per sub-item that named no claim of its own."""
    from local2global.proofs import load_all
    from local2global.proofs.selection import select_claims
    load_all()
    # paper order = claim-module order (claims_NN_*), then registration order within a module; the
    # registry's own insertion order depends on which module a caller happened to import first
    ordered = sorted(REGISTRY.values(), key=lambda c: getattr(c.check, "__module__", ""))
    return select_claims(ids, ordered, notes=notes)
