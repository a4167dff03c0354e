"""The main job (`l2g all`): checks, report, derivations (+ PDF), figures, notebooks, site, into one folder.

Order matters: the checks run first so that the derivations document and the report show each
claim's status; figures come before the PDF, which includes them; the blueprint site comes last (it
copies the figures and links the notebooks and the PDF). Every step writes only under
`out_dir`, and every output is deterministic, so a second run leaves all files byte-identical.
"""
from __future__ import annotations

import json
import sys
from dataclasses import dataclass, field
from pathlib import Path


@dataclass
class StepResult:
    """What one step of the main job produced (paths) or why it was skipped."""

    name: str
    paths: list = field(default_factory=list)
    skipped: str = ""


def run_all(out_dir, *, dps: int = 50, figures: bool = True, notebooks: bool = True, pdf: bool = True,
            progress=None, claim_ids=None, figure_names=None, workers: int | None = None) -> tuple[list, list[StepResult]]:
    """Run the main job into out_dir; returns (claim records, step results).

    `progress(message)` is called before each step; `claim_ids` / `figure_names` restrict the
    checks and figures (the default is all of them); `workers` processes run the checks (default one
    per CPU core).
    """
    from local2global.proofs.outputs import document
    from local2global.proofs.outputs import report
    from local2global.proofs._registry import Context, run_claims, select

    say = progress or (lambda msg: None)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    steps: list[StepResult] = []

    claims = select(claim_ids)
    records = run_claims(claims, Context(dps=dps), workers=workers,
                         progress=lambda i, n, cid: say(f"check {i}/{n}: {cid}"))
    checks = out / document.RECORDS_NAME
    _write(checks, json.dumps([r.as_dict() for r in records], indent=2, sort_keys=True) + "\n")
    steps.append(StepResult("check", [checks]))

    say("report")
    steps.append(StepResult("report", report.write_report(records, out)))

    if figures:
        say("figures")
        from local2global.proofs.outputs.figures import plotting
        steps.append(StepResult("figures", [Path(p) for p in plotting.render(str(out / "figures"), figure_names)]))

    say("derive")
    doc = document.build_document(records=document.load_records(checks), fig_dir=out / "figures", tex_dir=out)
    tex = document.write_document(out, doc)
    paths = [out / "fragments" / f"{i}.tex" for i in doc.fragments]
    steps.append(StepResult("derive", [tex] + paths))

    from local2global.proofs.outputs import pdf as pdfmod
    if pdf and pdfmod.pdflatex_path():
        say("pdflatex")
        steps.append(StepResult("pdf", [pdfmod.compile_pdf(tex)]))
    else:
        steps.append(StepResult("pdf", skipped=pdfmod.missing_message() if pdf else "not requested"))

    if notebooks:
        from local2global.proofs.outputs.notebooks import run_notebooks
        say("notebooks")
        runs = run_notebooks(out / "notebooks", workers=workers, progress=lambda name: say(f"notebook {name}"))
        steps.append(StepResult("notebooks", [r.output for r in runs]))

    # last: the site copies the figures and links the executed notebooks and the PDF written above;
    # the derivation sections it shows were built (and cached) by the derive step; every registered
    # claim gets a page (those outside `claim_ids` as "not run")
    from local2global.proofs.outputs import site
    say("site")
    steps.append(StepResult("site", site.write_site(records, out)))
    return records, steps


def _write(path: Path, text: str) -> None:
    from local2global.numeric.infra.atomic import atomic_write
    atomic_write(path, text)


def progress_writer():
    """A progress callback printing one line per step on stderr."""
    def say(msg):
        print(f"[l2g all] {msg}", file=sys.stderr, flush=True)
    return say
