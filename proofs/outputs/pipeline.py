"""The main job (`l2g all`): checks, report, derivations (+ PDF), figures, notebooks, site, into one folder.

Order matters: the checks run first so that the derivations document and the report show each
claim's status; figures come before the PDF, which includes them; the blueprint site comes last (it
copies the figures and links the notebooks and the PDF). What needs nothing from the other runs beside it:
the training groups beside the derivations the checks share, the report beside the figure processes, the
notebooks beside the document and its PDF. Every step writes only under `out_dir`, and every output is
deterministic, so a second run leaves all files byte-identical. The folder's `manifest.json` is written first
(``complete: false``) and last (``complete: true`` with every file written): a run stopped in between leaves
the mark (`proofs.outputs.manifest`).
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path


@dataclass
class StepResult:
    """What one step of the main job produced (paths) or why it was skipped."""

    name: str
    paths: list = field(default_factory=list)
    skipped: str = ""


def run_all(out_dir, *, dps: int = 50, figures: bool = True, notebooks: bool = True, pdf: bool = True,
            progress=None, claim_ids=None, figure_names=None, workers: int | None = None,
            kernel: bool = True) -> tuple[list, list[StepResult]]:
    """Run the main job into out_dir; returns (claim records, step results).

    `progress(step, done=None, total=None, item="")` is called before each step (step only) and, in the
    steps that go item by item (check, figures, notebooks), as items finish (`done` of `total`, `item` the
    claim, figure or notebook at hand); `claim_ids` / `figure_names` restrict the checks and figures (the
    default is all of them); `workers` processes run the checks (default one per CPU core); `kernel`: re-prove
    the exact steps with Coq (`proofs.kernel`, where coqc is installed; certificates in out/coq). The output
    folder is the caller's to validate (`l2g all` does, before any work).
    """
    from local2global.proofs.outputs import document, manifest
    from local2global.proofs.outputs import report
    from local2global.numeric.infra.executor import make_executor
    from local2global.proofs._registry import Context, run_claims, select

    say = progress or (lambda step, done=None, total=None, item="": None)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    manifest.begin(out)
    steps: list[StepResult] = []

    claims = select(claim_ids)
    experiments = {"fig3.rank_one_emerges", "fig4.initialization", "fig6.rank_one_stays", "untied.training"}
    if figures and experiments & {c.id for c in claims}:
        # the experiment claims read the training runs from the cache, which `l2g check` never fills:
        # train first (or find the runs cached), so that the first `l2g all` already has their evidence
        say("train")
        from local2global.numeric.transformer import experiments as nexp
        from local2global.proofs._registry import prewarm
        # each training group runs on one core (torch_threads), side by side; what the checks share is derived
        # meanwhile (three processes on two cores: no core idles while the shorter ones finish)
        with make_executor(len(nexp.TRAINING_GROUPS), start_method="fork") as ex:
            training = [ex.submit(nexp.train_group_cached, g, progress=progress is not None,   # bars: terminal only
                                  position=i) for i, g in enumerate(nexp.TRAINING_GROUPS)]
            prewarm()
            for t in training:
                t.result()
        steps.append(StepResult("train", []))
    records = run_claims(claims, Context(dps=dps), workers=workers,
                         progress=lambda i, n, cid: say("check", i, n, cid))
    if kernel:
        from local2global.proofs import kernel as K
        if K.coqc() is None:
            steps.append(StepResult("kernel", skipped=K.MISSING))
        else:
            say("kernel")
            records, ks = K.apply(records, out, workers, progress=lambda i, n: say("kernel", i, n, ""))
            steps.append(StepResult("kernel", sorted((out / K.FOLDER).glob("*.v"))))
    checks = out / document.RECORDS_NAME
    _write(checks, json.dumps([r.as_dict() for r in records], indent=2, sort_keys=True) + "\n")
    steps.append(StepResult("check", [checks]))

    def write_report():
        # one process: with figures, it runs beside the figure processes, which keep both cores busy
        steps.append(StepResult("report", report.write_report(records, out, workers=1)))

    if not figures:
        say("report")
        write_report()
    else:
        say("report + figures")
        from local2global.proofs.outputs.figures import plotting
        count = [0]

        def figure_progress(i, n, name):
            count[0] = n
            say("figures", i, n, name)
        # the report is written here while the figure processes draw (the longest figure leaves a core free)
        paths = plotting.render(str(out / "figures"), figure_names, progress=figure_progress, workers=workers,
                                beside=write_report)
        say("figures", count[0], count[0], "")
        steps.append(StepResult("figures", [Path(p) for p in paths]))

    from local2global.proofs.outputs import pdf as pdfmod
    compile_pdf = pdf and pdfmod.pdflatex_path()

    def derive_and_pdf() -> list[StepResult]:
        doc = document.build_document(records=records, fig_dir=out / "figures", tex_dir=out)
        tex = document.write_document(out, doc)
        paths = [out / "fragments" / f"{i}.tex" for i in doc.fragments]
        done = [StepResult("derive", [tex] + paths)]
        if compile_pdf:
            return done + [StepResult("pdf", [pdfmod.compile_pdf(tex)])]
        return done + [StepResult("pdf", skipped=pdfmod.missing_message("pass --no-pdf") if pdf else "--no-pdf")]

    say("derive" + (" + pdflatex" if compile_pdf else ""))
    if not notebooks:
        steps += derive_and_pdf()
    else:
        # the notebooks run in their own kernels (processes) and need nothing from the document: the document
        # is built and compiled beside them (one thread: pdflatex is a process, the kernels are processes)
        from concurrent.futures import ThreadPoolExecutor

        from local2global.proofs.outputs.notebooks import run_notebooks, sources
        with ThreadPoolExecutor(1) as side:
            document_steps = side.submit(derive_and_pdf)
            say("notebooks")
            total, done = len(sources()), [0]

            def notebook_progress(name):
                done[0] += 1
                say("notebooks", done[0], total, name)
            runs = run_notebooks(out / "notebooks", workers=workers, progress=notebook_progress)
            steps += document_steps.result()
        steps.append(StepResult("notebooks", [r.output for r in runs]))

    # last: the site copies the figures and links the executed notebooks and the PDF written above;
    # the derivation sections it shows were built (and cached) by the derive step; every registered
    # claim gets a page (those outside `claim_ids` as "not run")
    from local2global.proofs.outputs import site
    say("site")
    steps.append(StepResult("site", site.write_site(records, out)))
    manifest.finish(out, [p for s in steps for p in s.paths])
    return records, steps


def _write(path: Path, text: str) -> None:
    from local2global.numeric.infra.atomic import atomic_write
    atomic_write(path, text)
