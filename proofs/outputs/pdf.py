"""Compile the derivations document (`l2g derive --pdf`) and the LaTeX sections it gets from the checks.

- `compile_pdf(tex, out_dir)`: runs pdflatex twice (cross references) in a temporary directory and copies the
  PDF next to the source (or into `out_dir`). The output is byte-identical from run to run: no dates
  (`SOURCE_DATE_EPOCH=0`, `FORCE_SOURCE_DATE=1`, `\\pdfinfoomitdate=1`), no trailer id (`\\pdftrailerid{}`), no
  pdfTeX banner (`\\pdfsuppressptexinfo=-1`); none of this has to be in the `.tex` file itself.
- `errata_section(records)`: the errata of the paper found by the checks (printed and corrected form).
- `figures_section(fig_dir)`: the regenerated figures (`l2g figures`), as LaTeX to include in the document.

The two sections need `\\usepackage{amsmath,graphicx}` in the preamble (see `PREAMBLE_PACKAGES`).
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

#: LaTeX packages the sections below rely on (the document's preamble must load them).
PREAMBLE_PACKAGES = ("amsmath", "amssymb", "graphicx")

#: Debian packages that provide pdflatex and the LaTeX packages the document uses.
DEBIAN_PACKAGES = ("texlive-latex-base", "texlive-latex-recommended")

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


def compile_pdf(tex_path, out_dir=None, *, runs: int = 2, timeout: float = 300) -> Path:
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
    env = dict(os.environ, SOURCE_DATE_EPOCH="0", FORCE_SOURCE_DATE="1",
               TEXINPUTS=str(tex_path.parent) + os.sep + os.pathsep + os.environ.get("TEXINPUTS", ""))
    with tempfile.TemporaryDirectory(prefix="l2g-latex-") as tmp:
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


# ----------------------------------------------------------------------------------------------- sections
_SPECIAL = {"&": r"\&", "%": r"\%", "#": r"\#", "_": r"\_", "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}",
            "^": r"\textasciicircum{}", "\\": r"\textbackslash{}", "$": r"\$", "<": r"\textless{}",
            ">": r"\textgreater{}"}


def escape_text(text: str) -> str:
    """Plain text -> LaTeX text, keeping `$...$` segments as math (they are the claims' own LaTeX)."""
    parts = re.split(r"(\$[^$]+\$)", str(text))
    out = []
    for part in parts:
        if len(part) > 2 and part.startswith("$") and part.endswith("$") and part.count("{") == part.count("}"):
            out.append(part)
        else:
            out.append("".join(_SPECIAL.get(ch, ch) for ch in part))
    return "".join(out)


def _latex_of(form) -> str:
    """A claim's form (SymPy expression, or a dict / sequence of them) as display LaTeX."""
    import sympy as sp
    try:
        from local2global.symbolic.latex import latex as paper_latex   # the paper-notation printer, if present
    except Exception:                                                 # noqa: BLE001 - optional module
        paper_latex = sp.latex

    def one(x) -> str:
        if isinstance(x, (sp.Basic, sp.MatrixBase)):
            body = paper_latex(x)
            if len(body) > 300:     # long expressions: scaled to the line instead of running off the page
                return r"\[\resizebox{\linewidth}{!}{$\displaystyle " + body + r"$}\]"
            return r"\[" + body + r"\]"
        if callable(x):         # a procedure, not a formula: its repr would carry a memory address
            return r"\begin{quote}\emph{a procedure (see the claim's check in the source)}\end{quote}"
        shown = x if isinstance(x, str) else re.sub(r" at 0x[0-9a-fA-F]+", "", repr(x))
        return r"\begin{quote}" + escape_text(shown[:600]) + r"\end{quote}"

    if isinstance(form, dict):
        return "\n".join(r"\noindent " + escape_text(str(k)) + ":\n" + one(v)
                         for k, v in sorted(form.items(), key=lambda kv: str(kv[0])))
    if isinstance(form, (list, tuple)):
        return "\n".join(one(x) for x in form)
    return one(form)


def errata_section(records=None, *, claims=None, heading: str = r"\section{Errata}") -> str:
    """LaTeX for the errata of the paper: the paper's printed form, our corrected form, the note, the evidence.

    With `records` (`Record`s or their dicts, e.g. from `l2g check --json`): every record with status
    `erratum` or a non-empty `erratum` note, with the check's evidence. Without records (no check was run):
    every registered claim that declares a correction, marked as not run. `claims` defaults to the registry.
    """
    from local2global.proofs import select
    if claims is None:
        claims = select()                      # loads every claim module
    registry = {c.id: c for c in claims}
    if records is not None:
        recs = [r.as_dict() if hasattr(r, "as_dict") else dict(r) for r in records]
        errata = [r for r in recs if r.get("status") == "erratum" or r.get("erratum")]
        intro = ("The checks found {n} {place} where the paper's printed form fails, or needs a note, and a "
                 "corrected form passes the same check (whose negative control is rejected).")
    else:
        errata = [dict(id=c.id, ref=c.ref, title=c.title, status="not run", erratum=c.erratum,
                       evidence="run l2g check for the evidence")
                  for c in registry.values() if c.corrected is not None or c.erratum]
        intro = ("{n} registered {claim} {declare} a correction of the paper (statuses need \\texttt{{l2g check}}).")
    out = [heading, ""]
    if not errata:
        out.append("No erratum was found by the registered checks." if records is not None
                   else "No registered claim declares a correction of the paper.")
        return "\n".join(out) + "\n"
    one = len(errata) == 1
    out.append(intro.format(n=len(errata), place="place" if one else "places", claim="claim" if one else "claims",
                            declare="declares" if one else "declare"))
    for r in errata:
        cl = registry.get(r.get("id"))
        out += ["", r"\subsection*{" + escape_text(f"{r.get('ref', '')}: {r.get('title', '')}") + "}",
                r"\noindent Claim \texttt{" + escape_text(r.get("id", "?")) + "}, status "
                + escape_text(r.get("status", "?")) + "."]
        note = r.get("erratum") or (cl.erratum if cl is not None else "")
        if note:
            out += ["", escape_text(note)]
        if cl is not None:
            for label, make in (("Printed in the paper", cl.printed), ("Corrected", cl.corrected)):
                if make is None:
                    continue
                try:
                    body = _latex_of(make())
                except Exception as ex:                               # noqa: BLE001 - report, never crash
                    body = escape_text(f"(could not render: {type(ex).__name__})")
                out += ["", r"\paragraph{" + label + ".}", body]
        out += ["", r"\paragraph{Evidence.} " + escape_text(r.get("evidence", ""))]
    return "\n".join(out) + "\n"


def figures_section(fig_dir, *, relative_to=None, heading: str = r"\section{Figures}") -> str:
    """LaTeX including every figure of `fig_dir` (PDF preferred, PNG otherwise), in file-name order.

    Paths are written relative to `relative_to` (the directory of the .tex file; `compile_pdf` puts it on
    TEXINPUTS), so the source is the same on every machine. Returns "" when there is no figure.
    """
    fig_dir = Path(fig_dir)
    if not fig_dir.is_dir():
        return ""
    stems = sorted({f.stem for f in fig_dir.iterdir() if f.suffix in (".pdf", ".png")})
    if not stems:
        return ""
    base = Path(os.path.relpath(fig_dir.resolve(), Path(relative_to).resolve())) if relative_to else Path(fig_dir.name)
    out = [heading, "", "Figures regenerated by \\texttt{l2g figures} from the derived expressions."]
    for stem in stems:
        name = stem + (".pdf" if (fig_dir / f"{stem}.pdf").exists() else ".png")
        caption = escape_text(stem.replace("_", " "))
        out += ["", r"\begin{figure}[htbp]", r"\centering",
                r"\includegraphics[width=\linewidth,height=0.42\textheight,keepaspectratio]{"
                + (base / name).as_posix() + "}",
                r"\caption{" + caption + "}", r"\end{figure}"]
    out.append(r"\clearpage")
    return "\n".join(out) + "\n"
