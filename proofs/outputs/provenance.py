r"""Where a build comes from, and how to cite it: the package version, the commit, a reproducible date, and the
one source of the citation (CITATION.cff and the BibTeX that the README and the PDF print).

`current()` is the `Provenance` of the running code:

* the version is the installed distribution's (`importlib.metadata`);
* the commit is the git ``HEAD`` of the checkout this module is imported from, only when this package's files
  are tracked there (an editable install or a run from the tree); a wheel installed anywhere, even into a virtual
  environment inside a checkout, has none and says "not built from a checkout";
* the date follows the reproducible-builds convention: ``SOURCE_DATE_EPOCH`` when it is set (a malformed value
  is refused, `ProvenanceError`), else the commit's committer date, else no date at all (stated as such): never
  the clock, so two builds of the same commit are byte-identical.

The citation data (`SOFTWARE`, `PAPER`) are written once here; `citation_cff()` renders CITATION.cff and
`bibtex()` the BibTeX entries, and the tests hold the repository's CITATION.cff and the README's "Citing"
block equal to them.
"""
from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

#: the variable of the reproducible-builds convention (https://reproducible-builds.org/specs/source-date-epoch/)
EPOCH_VARIABLE = "SOURCE_DATE_EPOCH"


class ProvenanceError(ValueError):
    """A build setting that cannot be honoured (a malformed SOURCE_DATE_EPOCH): one line, for a usage error."""


@dataclass(frozen=True)
class Provenance:
    """What a build says about itself: the package version, the commit (None: not built from a checkout), whether
    tracked files differ from it, the date as seconds since 1970 UTC (None: no date) and where that date comes
    from ("SOURCE_DATE_EPOCH", "commit" or "none")."""

    version: str
    commit: str | None = None
    modified: bool = False
    epoch: int | None = None
    date_source: str = "none"
    why_no_commit: str = "not built from a checkout"

    @property
    def date(self) -> str | None:
        """The build date as ISO 8601 (UTC), or None."""
        if self.epoch is None:
            return None
        return datetime.fromtimestamp(self.epoch, tz=timezone.utc).strftime("%Y-%m-%d")

    def commit_text(self) -> str:
        """The commit as a reader sees it: the full hash (and whether the tree had changes), or why there is none."""
        if self.commit is None:
            return self.why_no_commit
        return self.commit + (" with uncommitted changes" if self.modified else "")

    def date_text(self) -> str:
        """The date and where it comes from, in words."""
        if self.epoch is None:
            return "none (no commit and SOURCE_DATE_EPOCH unset; the clock is never read)"
        how = {"SOURCE_DATE_EPOCH": "from SOURCE_DATE_EPOCH", "commit": "the date of the commit"}[self.date_source]
        return f"{self.date} ({how})"


def package_version() -> str:
    """The version of the installed local2global distribution (the one pip reports), or "unknown (not installed)"
    for a tree imported without an install (proofs/ may not import the command layer's `__version__`)."""
    from importlib import metadata
    try:
        return metadata.version("local2global")
    except metadata.PackageNotFoundError:
        return "unknown (not installed)"


def source_date_epoch(env=None) -> int | None:
    """SOURCE_DATE_EPOCH as an integer, None when unset or empty; a value that is not a non-negative decimal
    integer is refused (`ProvenanceError`), as the convention asks, instead of being ignored."""
    raw = (os.environ if env is None else env).get(EPOCH_VARIABLE)
    if raw is None or raw == "":
        return None
    text = raw.strip()
    if not text.isascii() or not text.isdigit() or len(text) > 12:
        raise ProvenanceError(f"{EPOCH_VARIABLE} must be a non-negative whole number of seconds since 1970-01-01 "
                              f"UTC, got {raw[:40]!r}")
    return int(text)


def _git(args: list[str], cwd: Path) -> str | None:
    exe = shutil.which("git")
    if exe is None:
        return None
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}     # the checkout of *this* file
    try:
        proc = subprocess.run([exe, *args], cwd=cwd, env=env, stdin=subprocess.DEVNULL, capture_output=True,
                              text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return None
    return proc.stdout.strip() if proc.returncode == 0 else None


def checkout_state(here: Path | None = None) -> tuple[str | None, bool, int | None, str]:
    """(commit, modified, commit time, why there is none) of the git checkout that tracks `here` (default: this
    package's `__init__.py`, tracked since the package began). A file that git does not track where it lies (a
    wheel's copy, even under a checkout's `.venv`) has no commit."""
    here = Path(__file__).with_name("__init__.py").resolve() if here is None else Path(here).resolve()
    if shutil.which("git") is None:
        return None, False, None, "not known (git is not installed)"
    if _git(["ls-files", "--error-unmatch", "--", here.name], here.parent) is None:
        return None, False, None, "not built from a checkout"
    commit = _git(["rev-parse", "--verify", "HEAD"], here.parent)
    when = _git(["log", "-1", "--format=%ct", "HEAD"], here.parent)
    if not commit:
        return None, False, None, "not built from a commit (a checkout without one)"
    modified = bool(_git(["status", "--porcelain", "--untracked-files=no"], here.parent))
    return commit, modified, int(when) if when and when.isdigit() else None, ""


def current(env=None, here: Path | None = None) -> Provenance:
    """The provenance of the running code (see the module's docstring); `env` defaults to os.environ."""
    epoch = source_date_epoch(env)
    commit, modified, committed, why = checkout_state(here)
    if epoch is not None:
        source = EPOCH_VARIABLE
    elif committed is not None:
        epoch, source = committed, "commit"
    else:
        source = "none"
    return Provenance(version=package_version(), commit=commit, modified=modified, epoch=epoch, date_source=source,
                      why_no_commit=why or "not built from a checkout")


# ---------------------------------------------------------------------------------------------
# Citation: the one source of CITATION.cff and of the BibTeX entries
# ---------------------------------------------------------------------------------------------

#: the paper this package accompanies (arXiv 2406.03072; NeurIPS 2024)
PAPER = {
    "key": "makkuva2024local",
    "title": "Local to Global: Learning Dynamics and Effect of Initialization for Transformers",
    "authors": (("Ashok Vardhan", "Makkuva"), ("Marco", "Bondaschi"), ("Chanakya", "Ekbote"), ("Adway", "Girish"),
                ("Alliot", "Nagle"), ("Hyeji", "Kim"), ("Michael", "Gastpar")),
    "collection": "Advances in Neural Information Processing Systems 37 (NeurIPS 2024)",
    "year": 2024,
    "arxiv": "2406.03072",
}
#: this package, as software
SOFTWARE = {
    "key": "local2global",
    "title": "local2global: machine-checked derivations of Local to Global (NeurIPS 2024)",
    "authors": "The local2global contributors",
    "license": "MIT",
    "abstract": ("Derives every formula of the paper from scratch with SymPy, checks each claim (exactly, by interval "
                 "arithmetic or at sampled points, each with a negative control), confronts the reduction with the "
                 "full transformer in torch, and writes the derivations as a paper appendix."),
}


def _bib_escape(text: str) -> str:
    return text.replace("&", r"\&").replace("%", r"\%")


def bibtex(version: str | None = None) -> str:
    """The BibTeX entries to cite: the paper, then this software at `version` (default the package's)."""
    version = package_version() if version is None else version
    names = [f"{last}, {first}" for first, last in PAPER["authors"]]
    # the author list wrapped at 96 characters (BibTeX reads a field across lines), so that the PDF prints it whole
    lines, line = [], "  author    = {" + names[0]
    for name in names[1:]:
        if len(line) + len(" and " + name) > 96:
            lines.append(line + " and")
            line = "               " + name
        else:
            line += " and " + name
    paper_authors = "\n".join(lines + [line])[len("  author    = {"):]
    return (
        f"@inproceedings{{{PAPER['key']},\n"
        f"  title     = {{{PAPER['title']}}},\n"
        f"  author    = {{{paper_authors}}},\n"
        f"  booktitle = {{{PAPER['collection']}}},\n"
        f"  year      = {{{PAPER['year']}}},\n"
        f"  eprint    = {{{PAPER['arxiv']}}},\n"
        f"  archivePrefix = {{arXiv}},\n"
        f"  url       = {{https://arxiv.org/abs/{PAPER['arxiv']}}}\n"
        "}\n\n"
        f"@software{{{SOFTWARE['key']},\n"
        f"  title   = {{{{local2global}}{_bib_escape(SOFTWARE['title'][len('local2global'):])}}},\n"
        f"  author  = {{{{{SOFTWARE['authors']}}}}},\n"
        f"  version = {{{version}}},\n"
        f"  license = {{{SOFTWARE['license']}}},\n"
        f"  note    = {{A companion to arXiv:{PAPER['arxiv']}}}\n"
        "}\n")


def _yaml_str(text: str) -> str:
    """A YAML double-quoted scalar (JSON's escaping is valid YAML)."""
    import json
    return json.dumps(text, ensure_ascii=False)


def citation_cff(version: str | None = None) -> str:
    """CITATION.cff (Citation File Format 1.2.0): this software at `version`, with the paper as its
    preferred citation and as a reference."""
    version = package_version() if version is None else version
    paper = ["  type: conference-paper",
             f"  title: {_yaml_str(PAPER['title'])}",
             "  authors:"]
    for first, last in PAPER["authors"]:
        paper += [f"    - family-names: {_yaml_str(last)}", f"      given-names: {_yaml_str(first)}"]
    paper += [f"  collection-title: {_yaml_str(PAPER['collection'])}",
              f"  year: {PAPER['year']}",
              "  identifiers:",
              "    - type: other",
              f"      value: {_yaml_str('arXiv:' + PAPER['arxiv'])}",
              "      description: the arXiv identifier",
              f"  url: {_yaml_str('https://arxiv.org/abs/' + PAPER['arxiv'])}"]
    lines = ["# Generated from local2global.proofs.outputs.provenance (tests/test_citation.py holds it equal)",
             "cff-version: 1.2.0",
             "message: \"If you use this software, please cite the paper it accompanies and the software.\"",
             "type: software",
             f"title: {_yaml_str(SOFTWARE['title'])}",
             "authors:",
             f"  - name: {_yaml_str(SOFTWARE['authors'])}",
             f"version: {_yaml_str(version)}",
             f"license: {SOFTWARE['license']}",
             f"abstract: {_yaml_str(SOFTWARE['abstract'])}",
             "preferred-citation:", *paper,
             "references:", "  - " + paper[0].strip(), *("  " + line for line in paper[1:])]
    return "\n".join(lines) + "\n"
