"""Plain-text rendering of claim records (the `l2g check` table and summary line): the status column is the record's
status line (`records.claim_line`, as every output prints it), the evidence its steps as one line of text
(`_steps.steps_text`, set when the outcome was built)."""
from __future__ import annotations

from collections import Counter

from local2global.proofs._registry import STATUSES, Record


def format_table(records: list[Record], width: int = 70) -> str:
    """Fixed-width table: id, reference, method, status line, evidence (truncated to `width`)."""
    from local2global.proofs.outputs.records import claim_line
    rows = [("id", "reference", "method", "status", "evidence")]
    for r in records:
        ev = r.evidence.replace("\n", " ")
        rows.append((r.id, r.ref, r.method[:34], claim_line(r), ev if len(ev) <= width else ev[: width - 3] + "..."))
    widths = [max(len(row[i]) for row in rows) for i in range(4)]
    lines = ["  ".join(row[i].ljust(widths[i]) for i in range(4)) + "  " + row[4] for row in rows]
    lines.insert(1, "-" * min(200, sum(widths) + 8 + width))
    return "\n".join(lines)


def summary_line(records: list[Record]) -> str:
    """'N claims: a proved, b certified, ...' in the fixed order of STATUSES."""
    counts = Counter(r.status for r in records)
    return f"{len(records)} claim{'' if len(records) == 1 else 's'}: " + ", ".join(f"{counts.get(s, 0)} {s}" for s in STATUSES)
