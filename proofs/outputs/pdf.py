"""Compile the derivations document (`l2g derive --pdf`) with pdflatex.

`compile_pdf(tex, out_dir)` runs pdflatex three times (cross references, the table of contents and the
page references of the coverage table) in a temporary directory and copies the PDF next to the source (or
into `out_dir`). The output is byte-identical from run to run: no dates (`FORCE_SOURCE_DATE=1` with the
build's `SOURCE_DATE_EPOCH`, 0 when unset; `\\pdfinfoomitdate=1`), no trailer id (`\\pdftrailerid{}`), no pdfTeX banner
(`\\pdfsuppressptexinfo=-1`); none of this has to be in the `.tex` file itself. The document itself is
built by `proofs.outputs.document`.
"""
from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from local2global.numeric.infra.atomic import scratch_folder

#: Debian packages that provide pdflatex and the LaTeX packages and fonts the document uses.
DEBIAN_PACKAGES = ("texlive-latex-base", "texlive-latex-recommended", "lmodern")

#: Prefix run before the document: removes everything that would change from one run to the next.
_DETERMINISM = r"\pdfinfoomitdate=1 \pdftrailerid{} \pdfsuppressptexinfo=-1 "


class PdflatexMissing(RuntimeError):
    """pdflatex is not installed (the message is one line naming the packages to install)."""


class LatexError(RuntimeError):
    """pdflatex ran and failed; the message quotes the first error of the log."""


def pdflatex_path() -> str | None:
    """Path of the pdflatex executable, or None."""
    return shutil.which("pdflatex")


def missing_message(skip: str = "") -> str:
    """One line: pdflatex is missing, the Debian packages that provide it, and (`skip`, e.g. "pass --no-pdf")
    how to do without it, in the words of the command the user actually ran."""
    return ("pdflatex not found: install it (Debian/Ubuntu: apt-get install " + " ".join(DEBIAN_PACKAGES) + ")"
            + (f" or {skip}" if skip else ""))


def _first_error(log: str) -> str:
    lines = log.splitlines()
    for i, line in enumerate(lines):
        if line.startswith("!"):
            context = " ".join(s.strip() for s in lines[i:i + 3] if s.strip())
            return context[:400]
    return (lines[-1] if lines else "no log")[:400]


def compile_pdf(tex_path, out_dir=None, *, runs: int = 3, timeout: float = 300) -> Path:
    """Compile `tex_path` with pdflatex (`runs` passes, nonstop, halt on error); return the PDF's path.

    Files the document includes (figures, `\\input` fragments) are found relative to the directory of
    `tex_path` (it is put on TEXINPUTS), so the source directory is never littered with aux files.
    Raises `PdflatexMissing` without pdflatex and `LatexError` when LaTeX fails (no PDF is written then).
    """
    exe = pdflatex_path()
    if exe is None:
        raise PdflatexMissing(missing_message())
    tex_path = Path(tex_path).resolve()
    if not tex_path.is_file():
        raise FileNotFoundError(f"no such LaTeX source: {tex_path}")
    out_dir = Path(out_dir).resolve() if out_dir is not None else tex_path.parent
    job = tex_path.stem
    from local2global.proofs.outputs.provenance import source_date_epoch
    # the date pdfTeX would use (\today, \year) is the build's reproducible one, never the clock; the PDF's
    # own date fields are left out (\pdfinfoomitdate)
    env = dict(os.environ, SOURCE_DATE_EPOCH=str(source_date_epoch() or 0), FORCE_SOURCE_DATE="1",
               TEXINPUTS=str(tex_path.parent) + os.sep + os.pathsep + os.environ.get("TEXINPUTS", ""))
    with scratch_folder("l2g-latex-") as tmp:           # an interruption removes it
        shutil.copyfile(tex_path, Path(tmp) / tex_path.name)
        for _ in range(runs):
            proc = subprocess.run([exe, "-interaction=nonstopmode", "-halt-on-error", f"-jobname={job}",
                                   _DETERMINISM + r"\input{" + tex_path.name + "}"],
                                  cwd=tmp, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                  stderr=subprocess.STDOUT, timeout=timeout)
            if proc.returncode != 0:
                log_file = Path(tmp) / f"{job}.log"
                log = (log_file.read_text(errors="replace") if log_file.exists()
                       else proc.stdout.decode(errors="replace"))
                raise LatexError(f"pdflatex failed on {tex_path.name}: {_first_error(log)}")
        out_dir.mkdir(parents=True, exist_ok=True)
        target = out_dir / f"{job}.pdf"
        from local2global.numeric.infra.atomic import atomic_write
        atomic_write(target, (Path(tmp) / f"{job}.pdf").read_bytes())
    return target
