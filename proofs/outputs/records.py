r"""The claim records as every output reads them: one loader, one dict form, one rule for the status of a
numbered result, one trust base over a uses-closure, and text with mathematics split for the printers.

Every output (the `l2g check` table, report.md, report.json, the derivations document, the site, `l2g verify`)
takes its statuses from here, so that they cannot disagree:

* a claim's status and status line are the record's own (`_registry.propagate` set them: the weakest strength
  over its uses-closure, and what it rests on that no machine checked, e.g. "proved, 2 argued steps");
* a numbered result's status is the weakest over the claims that state it or a step of its proof (`result_of`):
  a *confrontation* (the same statement checked again on the torch transformer) must pass but does not weaken
  it, a failed claim fails it; its trust base is the one of `_steps.trust_base` over the union of the
  uses-closures (`_registry.uses_closure`) of those claims, and its status line names that trust base's argued
  and cited steps (`_steps.status_line`).

Records are dicts here (`as_dict` of a `Record`, or as read from checks.json / report.json by `load_records`).
"""
from __future__ import annotations

import functools
import json
from pathlib import Path

from local2global.proofs._steps import (KINDS, KIND_WORDS, SOFTWARE, STRENGTHS, software_versions, status_line,
                                        trust_base, uses_closure)
from local2global.proofs.outputs import palette

#: statuses a record may carry: the strengths, `erratum`, and `verified` (the old single word for a passing check)
KNOWN_STATUSES = STRENGTHS + ("erratum", "verified")
#: rank of a status for a numbered result, weakest first (erratum below experiment: a result of the paper that does
#: not hold as printed is weaker than one supported by experiment only)
RESULT_RANK = {"failed": 0, "open": 1, "erratum": 2, "experiment": 3, "sampled": 4, "verified": 4, "certified": 5,
               "proved": 6}
#: one palette for the site, the PDF and the dependency graph (fill, and the ink that reads on it): `palette`
COLOURS = palette.STATUS
INK = palette.STATUS_INK
#: how each kind of step is named above a list of such steps
KIND_HEADINGS = {"kernel": "kernel-checked (Coq)", "exact": "exact (SymPy / python-flint)",
                 "interval": "interval arithmetic (arb)", "sampled": "sampled", "experiment": "experiment",
                 "argued": "argued (prose, not machine-checked)", "cited": "cited (a published theorem)"}


class RecordsError(ValueError):
    """A records file that cannot be read as claim records (one line, for a usage error)."""


def as_dict(r) -> dict:
    """A record as a dict: a `Record` through its `as_dict`, a dict as a copy."""
    return r.as_dict() if hasattr(r, "as_dict") else dict(r)


def by_id(records) -> dict[str, dict]:
    """Records (a list of `Record`s or dicts, or {id: record}) as {id: dict}, in their order."""
    if isinstance(records, dict):
        return {str(k): dict(as_dict(v), id=str(as_dict(v).get("id", k))) for k, v in records.items()}
    return {str(d["id"]): d for d in map(as_dict, records or ())}


#: the text fields every claim record carries (`_registry.Record`'s fields without a default): the outputs read them
REQUIRED_TEXT = ("ref", "title", "section", "method", "evidence", "control")


def _check_record(r, where: str) -> None:
    if not isinstance(r, dict) or not isinstance(r.get("id"), str):
        raise RecordsError(f"{where}: a record without an id")
    absent = [k for k in REQUIRED_TEXT if not isinstance(r.get(k), str)]
    if absent:
        raise RecordsError(f"{where}: record {r['id']!r} lacks {', '.join(absent)} (a claim record of `l2g check` "
                           "has them all)")
    if r.get("status") not in KNOWN_STATUSES:
        raise RecordsError(f"{where}: record {r['id']!r} has no known status (got {r.get('status')!r})")
    for key in ("steps", "printed_steps", "control_steps", "corroborations"):
        steps = r.get(key, [])
        if not isinstance(steps, list) or not all(isinstance(s, dict) and s.get("kind") in KINDS
                                                  and isinstance(s.get("states"), str) for s in steps):
            raise RecordsError(f"{where}: record {r['id']!r} has malformed {key}")
    if not isinstance(r.get("uses", []), list):
        raise RecordsError(f"{where}: record {r['id']!r} has malformed uses")


def load_records(path) -> list[dict]:
    """The claim records of a file: checks.json (`l2g check --out`, a list), report.json ({"claims": [...]}),
    `l2g check --json` output, {"records": [...]} or {id: record}. RecordsError (one line) when the file cannot
    be read or is not claim records; nothing is half-accepted."""
    path = Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeError, ValueError) as ex:
        raise RecordsError(f"cannot read claim records {str(path)!r}: {' '.join(str(ex).split())}") from None
    if isinstance(data, dict) and isinstance(data.get("claims", data.get("records")), list):
        data = data.get("claims", data.get("records"))
    elif isinstance(data, dict) and data and all(isinstance(v, dict) for v in data.values()):
        data = [dict(v, id=k) for k, v in data.items()]
    if not isinstance(data, list) or not data:
        raise RecordsError(f"{str(path)!r}: expected claim records (checks.json or report.json)")
    for r in data:
        _check_record(r, repr(str(path)))
    return data


# ---------------------------------------------------------------------------------------------
# Statuses and trust bases
# ---------------------------------------------------------------------------------------------

def claim_line(rec) -> str:
    """A claim's status line as every output prints it (the record's own, set by `_registry.propagate`; a record
    that was never propagated has its bare status). `rec`: a `Record` or its dict."""
    get = rec.get if isinstance(rec, dict) else (lambda k, d=None: getattr(rec, k, d))
    return get("status_line") or status_line(get("status", "failed"), get("trust") or None)


def closure(recs: dict, ids) -> list[str]:
    """The claims `ids` rest on (themselves included), in record order: the one resolver of `uses`."""
    return uses_closure({cid: tuple(r.get("uses", ())) for cid, r in recs.items()}, list(ids))


def trust_of(recs: dict, ids) -> dict:
    """The trust base of the claims `ids` over the union of their uses-closures, as data (`TrustBase.as_dict` with
    its `note`, the words a status line adds)."""
    tb = trust_base(recs, closure(recs, ids))
    return {**tb.as_dict(), "note": tb.note()}


def result_of(recs: dict, covering: list[str]) -> dict:
    """The status of a result stated by the claims `covering` (ids in `recs`): the weakest over its proof claims
    (a confrontation must pass but does not weaken it; a failed claim fails it), the claim that sets it, the trust
    base over the proof claims' uses-closures and the status line.

    {"status", "weakest", "status_line", "trust"}; "uncovered" with no claim."""
    covering = [c for c in covering if c in recs]
    if not covering:
        return {"status": "uncovered", "weakest": "", "status_line": "uncovered", "trust": {}}
    proof = [c for c in covering if recs[c].get("role", "proof") != "confrontation"] or covering
    failed = [c for c in covering if recs[c]["status"] == "failed"]
    worst = failed[0] if failed else min(proof, key=lambda c: RESULT_RANK.get(recs[c]["status"], -1))
    status = recs[worst]["status"]
    trust = trust_of(recs, proof)
    return {"status": status, "weakest": recs[worst].get("weakest") or worst,
            "status_line": status_line(status, trust), "trust": trust}


@functools.lru_cache(maxsize=None)
def _versions() -> tuple:
    return tuple(sorted(software_versions().items()))


def software(keys) -> list[dict]:
    """The software a trust base names, with the installed versions: [{"name", "label", "version"}] in the order of
    `_steps.SOFTWARE` ("" where the package is not installed here)."""
    versions = dict(_versions())
    return [{"name": k, "label": SOFTWARE.get(k, k), "version": versions.get(k, "")} for k in keys]


def software_text(keys) -> str:
    """"SymPy 1.13.3, mpmath 1.3.0" (the software of a trust base, with versions)."""
    return ", ".join(f"{s['label']} {s['version']}".strip() for s in software(keys)) or "none"


def counts_text(counts: dict) -> str:
    """"4 exact, 1 sampled, 2 argued" (the kinds with at least one step, strongest first)."""
    parts = [f"{counts.get(k, 0)} {KIND_WORDS[k]}" for k in KINDS if counts.get(k, 0)]
    return ", ".join(parts) or "no steps"


def how(s: dict) -> str:
    """How and where a step was established, as plain text: its method, its domain, its counts ("24 points, 50
    digits"; "12 boxes, 128 bits"; "3 runs"); "" for argued and cited steps (they say it in their argument or
    reference)."""
    if s["kind"] in ("argued", "cited"):
        return ""
    parts = [s["method"]] if s.get("method") else []
    if s.get("domain"):
        parts.append("on " + s["domain"])
    n, dg = s.get("count") or 0, s.get("digits") or 0
    unit = {"sampled": ("points", "digits"), "interval": ("boxes", "bits"), "experiment": ("runs", "")}.get(s["kind"])
    if unit and (n or dg):
        parts.append(", ".join(x for x in (f"{n} {unit[0]}" if n else "", f"{dg} {unit[1]}" if dg and unit[1] else "")
                               if x))
    return "; ".join(parts)


def by_kind(steps) -> list[tuple[str, list[dict]]]:
    """Steps grouped by kind, strongest kind first, each group in the steps' order."""
    steps = [as_dict(s) if not isinstance(s, dict) else s for s in steps]
    return [(k, [s for s in steps if s["kind"] == k]) for k in KINDS if any(s["kind"] == k for s in steps)]


def numbered_steps(records) -> dict[tuple[str, int], str]:
    """A label for every argued and cited proof step of the records ("A1", "A2", ..., "C1", ...), in record order
    then step order: (claim id, index in its steps) -> label. A step several claims carry word for word (the same
    argument, the same reference) has one label, as the trust base counts it once (`_steps.trust_base`). The PDF and
    report.md print each labelled step in full once and name it by its label in the trust bases."""
    out, n, first = {}, {"argued": 0, "cited": 0}, {}
    for cid, r in by_id(records).items():
        for i, s in enumerate(r.get("steps", ())):
            if s["kind"] in n:
                key = (s["kind"], s["states"], s.get("argument", ""), s.get("reference", ""))
                if key not in first:
                    n[s["kind"]] += 1
                    first[key] = ("A" if s["kind"] == "argued" else "C") + str(n[s["kind"]])
                out[(cid, i)] = first[key]
    return out


def labelled(labels: dict) -> list[tuple[str, list[tuple[str, int]]]]:
    """Each label of `numbered_steps` once, A1.. then C1.., with the (claim, step index) places that carry it."""
    places: dict[str, list] = {}
    for where, lab in labels.items():
        places.setdefault(lab, []).append(where)
    return sorted(places.items(), key=lambda kv: (kv[0][0], int(kv[0][1:])))


def step_label(labels: dict, recs: dict, entry: dict) -> str:
    """The label of a trust-base entry ({"claim", ...the step}) among `numbered_steps`' labels ("" if none)."""
    rec = recs.get(entry.get("claim"), {})
    for i, s in enumerate(rec.get("steps", ())):
        if s.get("kind") == entry.get("kind") and s.get("states") == entry.get("states") and \
                s.get("argument") == entry.get("argument") and s.get("reference") == entry.get("reference"):
            return labels.get((entry["claim"], i), "")
    return ""


# ---------------------------------------------------------------------------------------------
# Text with mathematics
# ---------------------------------------------------------------------------------------------

def _dollars(s: str) -> list[int]:
    return [j for j, ch in enumerate(s) if ch == "$" and (j == 0 or s[j - 1] != "\\")]


def unbalanced(s: str) -> bool:
    """Whether `s` has an odd number of unescaped $ (then `split_math` reads it all as text)."""
    return len(_dollars(str(s))) % 2 == 1


def split_math(s: str) -> list[tuple[bool, str]]:
    """A step's `states` (plain text with LaTeX mathematics inside $...$) as [(is_math, text)]; text with an odd
    number of unescaped $ is one plain piece (printed as text, never half as mathematics)."""
    s = str(s)
    dollars = _dollars(s)
    if len(dollars) % 2:
        return [(False, s)] if s else []
    pieces, math, last = [], False, 0
    for j in dollars:
        if j > last:
            pieces.append((math, s[last:j]))
        math, last = not math, j + 1
    if last < len(s):
        pieces.append((False, s[last:]))
    return pieces
