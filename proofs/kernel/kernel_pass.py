r"""The kernel pass of `l2g check --kernel` (and `l2g all`): exact steps re-proved by Coq, negative controls refused.

For every record, each exact proof step that carries obligations becomes Coq lemmas (`certificate.lemma`), one
file per claim (``coq/<claim>.v``); a claim file that does not compile is split into one file per step
(``coq/<claim>__s<k>.v``) so that one step's failure costs no other step its certificate. The failing steps of
the claim's negative control (the altered statement the SymPy check rejected) become ``coq/<claim>__control.v``,
generated the same way, which must *not* compile. A step whose certificate compiled becomes a ``kernel`` step:
the same statement, established by Coq's kernel (the rung stays ``proved``; what it rests on is now Coq, and the
printed statement). A control certificate that compiles is a contradiction between SymPy and Coq: the claim's
steps keep their SymPy strength and the summary names it.

What stays outside the kernel is counted and said: steps with no obligation (a decision SymPy made that is not a
closed statement, e.g. "solve found exactly these roots"), obligations the printer cannot state (`Unfit`, with
the reason), certificates that did not compile (with Coq's first error line).
"""
from __future__ import annotations

import re
import time
from dataclasses import dataclass, field, replace
from pathlib import Path

from local2global.proofs import _steps as steps
from local2global.proofs.kernel import certificate as C
from local2global.proofs.kernel import coq
from local2global.proofs.kernel.compile import Compiled, coq_version, compile_all

__all__ = ["KernelSummary", "certificates_of", "kernel_pass", "FOLDER"]

#: the certificates' folder inside the build folder
FOLDER = "coq"


def module_name(cid: str, suffix: str = "") -> str:
    """A Coq module name for a claim id (letters, digits, underscores; a file name without its .v)."""
    return "c_" + re.sub(r"[^A-Za-z0-9]", "_", cid) + suffix


@dataclass
class _File:
    name: str
    claim: str
    role: str                              # "proof" or "control"
    step_lemmas: dict[int, list[C.Lemma]]  # step index -> its lemmas

    @property
    def text(self) -> str:
        head = (f"(* local2global certificate: {self.role} steps of the claim {self.claim}; generated from the "
                "SymPy obligations the steps decided. *)\n")
        return C.file_text([lem for k in sorted(self.step_lemmas) for lem in self.step_lemmas[k]], head)


@dataclass
class KernelSummary:
    """What the kernel pass did, as data (the report and the README print it)."""

    coq: str = ""
    certified_steps: int = 0
    exact_steps: int = 0
    exact_with_obligations: int = 0
    unfit: dict = field(default_factory=dict)        # "claim#step" -> reason
    not_compiled: dict = field(default_factory=dict)  # "claim#step" -> Coq's first error line
    controls_refused: int = 0
    controls_total: int = 0
    control_alarms: list = field(default_factory=list)
    files: int = 0
    cached: int = 0
    seconds: float = 0.0

    def as_dict(self) -> dict:
        d = dict(self.__dict__)
        d.pop("seconds")
        return d


def _lemmas(step: steps.Step, k: int, prefix: str) -> list[C.Lemma]:
    return [lem for j, ob in enumerate(step.obligations) for lem in C.lemmas(ob, f"{prefix}{k}_{j}")]


def certificates_of(rec) -> tuple[_File | None, _File | None, dict[int, str]]:
    """(the proof file, the control file, {step index: why it has no certificate}) of one record."""
    proof, unfit = {}, {}
    if rec.status != "failed":
        for k, s in enumerate(rec.steps):
            if s.kind != "exact" or not s.ok:
                continue
            if not s.obligations:
                unfit[k] = "the step decides no closed statement (no obligation recorded)"
                continue
            try:
                proof[k] = _lemmas(s, k, "S")
            except (C.Unfit, coq.NotCoq) as ex:
                unfit[k] = str(ex)
    control = {}
    for k, s in enumerate(rec.control_steps):
        if s.kind == "exact" and not s.ok and s.obligations:
            try:
                control[k] = _lemmas(s, k, "N")
            except (C.Unfit, coq.NotCoq):
                continue
    pf = _File(module_name(rec.id), rec.id, "proof", proof) if proof else None
    cf = _File(module_name(rec.id, "__control"), rec.id, "control", control) if control else None
    return pf, cf, unfit


def _kernel_step(s: steps.Step, f: _File, k: int) -> steps.Step:
    """The step as established by the kernel: the same statement, Coq as what it rests on."""
    lemmas = f.step_lemmas[k]
    tactics = sorted({t for lem in lemmas for t in lem.tactics})
    where = any(lem.where_defined for lem in lemmas)
    names = ", ".join(lem.name for lem in lemmas)
    return replace(s, kind="kernel",
                   method=f"Coq {coq_version()} kernel ({', '.join(tactics)}) on the statement printed from the SymPy "
                          f"expression the step decided; decided first by {s.method or 'SymPy'}",
                   domain=(s.domain + "; where its denominators do not vanish") if where else s.domain,
                   values=s.values + (("certificate", f"{f.name}.v: {names}"),),
                   software=("coq",), certificate=f"{FOLDER}/{f.name}.v")


def _not_kernel(s: steps.Step, why: str) -> steps.Step:
    """An exact step the kernel pass left to SymPy, with the reason among its values."""
    return replace(s, values=s.values + (("not kernel-checked", why),))


def kernel_pass(records, out: str | Path | None, workers: int | None = None, progress=None):
    """Compile the certificates of `records` (written to ``out/coq`` when `out` is given) and return
    (records with their certified steps as ``kernel`` steps, the `KernelSummary`). Records are changed only
    where a certificate compiled and the claim's control certificate, if any, did not."""
    t0 = time.perf_counter()
    summary = KernelSummary(coq=coq_version())
    files, unfit_of = {}, {}
    for rec in records:
        pf, cf, unfit = certificates_of(rec)
        unfit_of[rec.id] = unfit
        for f in (pf, cf):
            if f is not None:
                files[f.name] = f
        summary.exact_steps += sum(s.kind == "exact" for s in rec.steps)
        summary.exact_with_obligations += sum(s.kind == "exact" and bool(s.obligations) for s in rec.steps)
        for k, why in unfit.items():
            summary.unfit[f"{rec.id}#{k}"] = why
    results = compile_all({n: f.text for n, f in files.items()}, workers, progress)
    # a claim file that failed: one file per step, so that each step is judged on its own
    split = {}
    for name, f in files.items():
        if f.role == "proof" and not results[name].ok and len(f.step_lemmas) > 1:
            for k, lem in f.step_lemmas.items():
                split[module_name(f.claim, f"__s{k}")] = _File(module_name(f.claim, f"__s{k}"), f.claim, "proof",
                                                                 {k: lem})
    if split:
        results.update(compile_all({n: f.text for n, f in split.items()}, workers))
        files.update(split)
    if out is not None:
        folder = Path(out) / FOLDER
        folder.mkdir(parents=True, exist_ok=True)
        for old in folder.glob("c_*.v"):      # certificates of an earlier run that this one did not write
            if old.stem not in files:
                old.unlink()
        for name, f in files.items():
            (folder / f"{name}.v").write_text(f.text)
    summary.files = len(files)
    summary.cached = sum(r.cached for r in results.values())
    new = []
    for rec in records:
        pname, cname = module_name(rec.id), module_name(rec.id, "__control")
        ctrl: Compiled | None = results.get(cname)
        if ctrl is not None:
            summary.controls_total += 1
            if ctrl.ok:
                summary.control_alarms.append(rec.id)
            else:
                summary.controls_refused += 1
        upgraded = list(rec.steps)
        if pname in files and not (ctrl is not None and ctrl.ok):
            f = files[pname]
            for k in f.step_lemmas:
                own = files.get(module_name(rec.id, f"__s{k}"))
                judged = (own, results[own.name]) if own is not None else (f, results[pname])
                if judged[1].ok:
                    upgraded[k] = _kernel_step(rec.steps[k], judged[0], k)
                    summary.certified_steps += 1
                else:
                    summary.not_compiled[f"{rec.id}#{k}"] = judged[1].message
                    upgraded[k] = _not_kernel(rec.steps[k], f"its certificate did not compile ({judged[1].message})")
        for k, why in unfit_of[rec.id].items():
            upgraded[k] = _not_kernel(upgraded[k], why)
        if ctrl is not None and ctrl.ok:
            for k, s in enumerate(upgraded):
                if s.kind == "exact":
                    upgraded[k] = _not_kernel(s, "the certificate of the claim's negative control compiled")
        # always a copy: the propagation that follows sets statuses on the records it is given
        new.append(replace(rec, steps=tuple(upgraded), method=steps.method_of(upgraded),
                           evidence=steps.steps_text(upgraded), trust=dict(rec.trust)))
    summary.seconds = time.perf_counter() - t0
    return new, summary
