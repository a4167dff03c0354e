"""`l2g derive`: write the derivations document (derivations.tex and one fragment per result).

The output folder `--out` is validated before any work; the document is built in memory first
(`proofs.outputs.document.build_document`), then every file is written to a temporary name in the target
folder and renamed, so a failed run leaves either the previous files or the new ones, never half a
file. `--pdf` compiles derivations.pdf next to it (pdflatex, `proofs.outputs.pdf.compile_pdf`).
"""
from __future__ import annotations

from pathlib import Path

from ._common import UsageError, output_dir as _output_dir, plural, shown

NAME = "derive"
HELP = ("write the derivations document, an appendix to the paper (derivations.tex, one fragment per result in "
        "fragments/<id>.tex), to --out (default ./build); --pdf compiles it")
SUMMARY = 'write the derivations document, an appendix to the paper (LaTeX; --pdf compiles it)'
EXAMPLE = "l2g derive --out build --pdf"


def add_arguments(parser) -> None:
    parser.add_argument("--out", default="build", metavar="DIR", help="output directory (default: ./build)")
    parser.add_argument("--records", default=None, metavar="FILE",
                        help="claim records to show their statuses: the checks.json of `l2g check` / `l2g all`, "
                             "or `l2g check --json > FILE` (default: DIR/checks.json if it exists)")
    parser.add_argument("--no-records", action="store_true",
                        help="write the document without claim records (every status box then reads 'not run'); "
                             "without it, a run that finds no records is refused")
    parser.add_argument("--pdf", action="store_true", help="also compile derivations.pdf with pdflatex")


def output_dir(text: str) -> Path:
    """Validate the output folder before any work (`_common.output_dir`: a writable folder or one that can be
    created; derivations.tex, derivations.pdf and fragments/ inside it of the right kind)."""
    return Path(_output_dir(text, "--out", files=("derivations.tex", "derivations.pdf"), folders=("fragments",)))


def make_output_dir(out: Path) -> None:
    (out / "fragments").mkdir(parents=True, exist_ok=True)     # validated: an OSError here is the machine's


def write_outputs(out: Path, doc) -> Path:
    """Write the fragments, then the full document; returns the path of derivations.tex."""
    from local2global.proofs.outputs.document import write_document
    try:
        return write_document(out, doc)
    except OSError as ex:
        raise UsageError(f"cannot write to {str(out)!r}: {ex.strerror or ex}") from None


def run(args) -> int:
    import sys

    out = output_dir(args.out)                      # before any heavy import: a refusal is instant
    if args.records is not None and not (args.records.strip() and Path(args.records).is_file()):
        raise UsageError(f"--records {shown(args.records)} is not a file")
    from local2global.proofs.outputs import pdf as _pdf
    from local2global.proofs.outputs.provenance import ProvenanceError, source_date_epoch
    try:
        source_date_epoch()                         # the title page's date: a malformed SOURCE_DATE_EPOCH is refused
    except ProvenanceError as ex:
        raise UsageError(str(ex)) from None
    if args.pdf and _pdf.pdflatex_path() is None:
        raise UsageError(_pdf.missing_message("run without --pdf"))

    if args.no_records and args.records is not None:
        raise UsageError("--no-records and --records cannot be combined")
    from local2global.proofs.outputs import document
    from local2global.proofs.outputs.records import RecordsError, load_records
    records_path = Path(args.records) if args.records else out / document.RECORDS_NAME
    from local2global.proofs.outputs.manifest import incomplete
    why = incomplete(out)
    records = []
    if not args.no_records:
        if not records_path.exists():
            # one line, the folder's state first (the test and a reader look for it there)
            raise UsageError((f"{out} is incomplete: {why}; " if why else "") +
                             f"no claim records: {str(records_path)!r} does not exist (run `l2g check --out "
                             f"{shown(str(out))}` first, pass --records FILE, or --no-records for a document whose "
                             "statuses all read 'not run')")
        try:
            records = load_records(records_path)
        except RecordsError as ex:
            raise UsageError(str(ex)) from None
    if why:                                         # its records and figures may be missing or of another run
        print(f"l2g: note: {out} is incomplete: {why}; rerun `l2g all` to make it whole", file=sys.stderr)
    from local2global.proofs import select
    claims = list(select())
    missing = len({c.id for c in claims} - {str(r["id"]) for r in records})
    doc = document.build_document(records, claims=claims, fig_dir=out / "figures", tex_dir=out)   # all in memory first
    make_output_dir(out)
    main = write_outputs(out, doc)
    n = len(doc.fragments)
    print(f"wrote {main} ({plural(n, 'section')}) and {plural(n, 'fragment')} in {out / 'fragments'}")
    if records and missing:
        print(f"l2g derive: {missing} of {len(claims)} claims have no record in {str(records_path)!r}: their status "
              "boxes read 'not run'", file=sys.stderr)
    if args.pdf:
        try:
            print(f"wrote {_pdf.compile_pdf(main, out)}")
        except _pdf.LatexError as ex:
            print(f"l2g: error: {ex}", file=sys.stderr)
            return 1
    return 0
