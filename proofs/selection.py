"""The selection language of `l2g check --only`, `l2g all --only` and `l2g figures --only`.

A selector is, tried in this order,

1. a claim id, exactly (`lemma5.b_star`; case does not matter);
2. a paper label in any spelling a reader would type: "Lemma 12", "Lem. 12", "lemma12", "Theorem 2", "Thm 2",
   "Thm. 2 (i)", "Fig. 1", "Figure 1", "Remark 5", "Rem 5", "Eq. 3", "Sec. 4", "App. C". It is read by the
   report's own reference parser (`proofs.labels.ref_mentions`, behind `numbered_results`), so it selects
   exactly the claims the report lists under that result, and "Lemma 1" never selects Lemma 12. A selector
   that reads as a label is a label: `lemma9` selects the claims under Lemma 9, not every id starting with
   `lemma9.` (`lemma9.barrier` is about Sec. 4; select it by its id). A sub-item ("Thm 2 (ii)", "Fig. 1 (b)")
   selects the claims whose reference names that item of that result; if none does, the whole result (and a
   note says so);
3. a claim's reference as printed ("Thm 2 (proof)", "Lemma 5 (stable form)");
4. an id prefix: `cert` selects `cert.*`, `full` selects `full.*`.

Anything else is refused, with the nearest ids and labels as suggestions (difflib). For figures the same
labels select the figures of that paper figure (`fig1a` ... `fig1d` for "Fig. 1", `fig1b` for "Fig. 1 (b)"),
besides the figure names themselves.
"""
from __future__ import annotations

import difflib
import re
from typing import Iterable, Sequence

from local2global.proofs.labels import NOT_CHECKABLE, NUMBERED_RESULTS, parse_label as parse_label, ref_mentions


def _labels(ref: str) -> dict[str, tuple[str, ...]]:
    return dict(ref_mentions(ref))


def _suggest(token: str, candidates: Iterable[str]) -> str:
    cands = sorted(set(candidates))
    low = {c.lower(): c for c in cands}
    key = " ".join(token.lower().split())
    near = difflib.get_close_matches(key, list(low), n=4, cutoff=0.6)
    if not near:          # compare with the spaces and dots a reader may or may not type
        squash = {re.sub(r"[\s.]", "", c): c for c in low}
        near = [squash[c] for c in difflib.get_close_matches(re.sub(r"[\s.]", "", key), list(squash), n=4, cutoff=0.6)]
    return ", ".join(repr(low[c]) for c in near)


def _refuse(unknown: list[str], candidates: Iterable[str], what: str) -> None:
    cands = list(candidates)
    parts = []
    for u in unknown:
        s = _suggest(u, cands)
        parts.append(f"{u!r}" + (f" (nearest: {s})" if s else ""))
    raise KeyError(f"unknown {what}: " + "; ".join(parts))


def select_claims(tokens: Sequence[str] | None, claims: Sequence, notes: list | None = None) -> list:
    """The claims (in the given, paper order) that `tokens` select; KeyError naming the unknown selectors.

    `notes` (a list) receives one line per selector whose sub-item named no claim of its own."""
    claims = list(claims)
    if not tokens:
        return claims
    known = {name for name, _, _ in NUMBERED_RESULTS}
    chosen: set[str] = set()
    unknown: list[str] = []
    empty: list[str] = []
    for raw in tokens:
        tok = str(raw).strip()
        low = tok.lower()
        hit = [c for c in claims if c.id.lower() == low]
        label = parse_label(tok) if not hit else None
        if label is not None:
            name, items = label
            hit = [c for c in claims if name in _labels(c.ref)]
            if items and hit:
                sub = [c for c in hit if set(items) & set(_labels(c.ref)[name])]
                if sub:
                    hit = sub
                elif notes is not None:
                    notes.append(f"no claim names {tok!r} on its own: selecting all of {name}")
        if not hit:
            hit = [c for c in claims if c.ref.lower() == low]
        if not hit:
            hit = [c for c in claims if c.id.lower().startswith(low + ".")]
        if not hit:
            if label is not None and label[0] in known:     # a result of the paper that no claim covers
                reason = NOT_CHECKABLE.get(label[0], "no registered claim refers to it yet")
                shown = repr(tok) + ("" if tok == label[0] else f" ({label[0]})")
                empty.append(f"{shown} has no claims: {reason}")
            else:
                unknown.append(tok)
            continue
        chosen.update(c.id for c in hit)
    if unknown:
        cands = [c.id for c in claims] + sorted({c.id.split(".")[0] for c in claims})
        cands += sorted(known) + sorted({n for c in claims for n in _labels(c.ref)})
        _refuse(unknown, cands, "claim id or label")
    if empty:
        raise KeyError("; ".join(empty))
    return [c for c in claims if c.id in chosen]


_FIG_NAME = re.compile(r"fig(\d+)([a-h])?(?:_.*)?$")


def figure_label(name: str) -> tuple[str, tuple[str, ...]] | None:
    """The paper figure a figure name draws: "fig1b" -> ("Figure 1", ("b",)), "fig2_p09" -> ("Figure 2", ());
    None for figures of our own (`fig_attn_basins`)."""
    m = _FIG_NAME.match(name)
    if not m:
        return None
    return f"Figure {int(m.group(1))}", ((m.group(2),) if m.group(2) else ())


def select_figures(tokens: Sequence[str] | None, names: Sequence[str], notes: list | None = None) -> list[str]:
    """The figure names (in the given order) that `tokens` select: names, name prefixes ("fig2" is read as
    the label "Fig. 2") or paper figure labels ("Fig. 1", "Figure 1 (b)"); KeyError for the unknown ones."""
    names = list(names)
    if not tokens:
        return names
    chosen: set[str] = set()
    unknown: list[str] = []
    for raw in tokens:
        tok = str(raw).strip()
        low = tok.lower()
        hit = [n for n in names if n.lower() == low]
        label = parse_label(tok) if not hit else None
        if label is not None and label[0].startswith("Figure "):
            fig, items = label
            hit = [n for n in names if (figure_label(n) or ("",))[0] == fig]
            if items and hit:
                sub = [n for n in hit if set(items) & set(figure_label(n)[1])]
                if sub:
                    hit = sub
                elif notes is not None:
                    notes.append(f"no figure draws {tok!r} on its own: selecting all of {fig}")
        if not hit:
            hit = [n for n in names if n.lower().startswith(low + "_")]
        if not hit:
            unknown.append(tok)
            continue
        chosen.update(hit)
    if unknown:
        labels = sorted({figure_label(n)[0] for n in names if figure_label(n)})
        _refuse(unknown, names + labels, "figure (known: " + ", ".join(names) + ")")
    return [n for n in names if n in chosen]
