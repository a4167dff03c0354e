"""`l2g derive`: write the derivations document (derivations.tex and one fragment per result).

The document is built in memory first (`proofs.outputs.document.build_document`), then every file is
written to a temporary name in the target directory and renamed, so a failed run leaves either
the previous files or the new ones, never half a file. With `--pdf` derivations.tex is compiled
with pdflatex (`proofs.outputs.pdf.compile_pdf`).
"""
from __future__ import annotations

import os
from pathlib import Path

from ._common import UsageError

NAME = "derive"
HELP = ("write the derivations document, an appendix to the paper (derivations.tex, one fragment per result in "
        "fragments/<id>.tex), to --out (default ./build); --pdf compiles it")


def add_arguments(parser) -> None:
    parser.add_argument("--out", default="build", metavar="DIR", help="output directory (default: ./build)")
    parser.add_argument("--records", default=None, metavar="FILE",
                        help="JSON of `l2g check --json` to show claim statuses "
                             "(default: DIR/checks.json if it exists)")
    parser.add_argument("--pdf", action="store_true", help="also compile derivations.pdf with pdflatex")


def output_dir(text: str) -> Path:
    """Validate the output directory before any work: refused if it (or an ancestor) is a file."""
    out = Path(text)
    for part in (out, *out.parents):
        if part.exists():
            if not part.is_dir():
                raise UsageError(f"--out {text!r}: {str(part)!r} exists and is not a directory")
            if not os.access(part, os.W_OK | os.X_OK):
                raise UsageError(f"--out {text!r}: {str(part)!r} is not writable")
            break
    frag = out / "fragments"
    if frag.exists() and not frag.is_dir():
        raise UsageError(f"{str(frag)!r} exists and is not a directory")
    return out


def make_output_dir(out: Path) -> None:
    try:
        (out / "fragments").mkdir(parents=True, exist_ok=True)
    except OSError as ex:
        raise UsageError(f"cannot create output directory {str(out)!r}: {ex.strerror or ex}") from None


def write_outputs(out: Path, doc) -> Path:
    """Write the fragments, then the full document; returns the path of derivations.tex."""
    from local2global.proofs.outputs.document import write_document
    try:
        return write_document(out, doc)
    except OSError as ex:
        raise UsageError(f"cannot write to {str(out)!r}: {ex.strerror or ex}") from None


def run(args) -> int:
    import sys

    from local2global.proofs.outputs import document
    from local2global.proofs.outputs import pdf as _pdf

    if args.pdf and _pdf.pdflatex_path() is None:
        raise UsageError(_pdf.missing_message())

    out = output_dir(args.out)
    records_path = Path(args.records) if args.records else out / document.RECORDS_NAME
    if args.records and not records_path.is_file():
        raise UsageError(f"--records {args.records!r} is not a file")
    try:
        records = document.load_records(records_path)
    except ValueError as ex:
        raise UsageError(str(ex)) from None
    doc = document.build_document(records, fig_dir=out / "figures", tex_dir=out)   # all in memory first
    make_output_dir(out)
    main = write_outputs(out, doc)
    print(f"wrote {main} ({len(doc.fragments)} sections) and {len(doc.fragments)} fragments in {out / 'fragments'}")
    if args.pdf:
        try:
            print(f"wrote {_pdf.compile_pdf(main, out)}")
        except _pdf.LatexError as ex:
            print(f"l2g: error: {ex}", file=sys.stderr)
            return 1
    return 0
