r"""The derivations document (`l2g derive`, build/derivations.pdf): an appendix to the paper.

* `layout`: LaTeX of text and formulas (line breaking of long expressions, matrices);
* `reader`: text in LaTeX (escaped plain text, text with $...$ mathematics, the registry's authored titles);
* `steps`: the records' proof steps, controls and trust bases in LaTeX (the one printer of records);
* `forms`: a claim's printed and corrected forms as text with mathematics (the PDF and the site);
* `sets`: basins and critical sets in set-builder notation;
* `registry`: the units (one per paper result: `section`, `Block`, `Entry`, `claims_for`);
* `units/`: the units, one module per paper topic; every formula comes from `local2global.symbolic`;
* `figures`: the figures, numbered as the paper's, with their captions;
* `assemble`: preamble, front matter, errata, appendices, `build_document`, `write_document`.

The records come from `proofs.outputs.records` (`load_records` reads checks.json).
"""
from .assemble import RECORDS_NAME, Document, build_document, errata_section, render_section, write_document
from .registry import Block, Entry, Section, claims_for, homes, labels, section, sections

__all__ = ["RECORDS_NAME", "Document", "build_document", "errata_section", "render_section",
           "write_document", "Block", "Entry", "Section", "claims_for", "homes", "labels", "section", "sections"]
