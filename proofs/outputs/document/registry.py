r"""The document's units: one per result of the paper, grouped by topic, with the claims that back it.

A unit is a function returning a `Block` (the statement, the derivation and the derived formulas of one
paper result), registered with `section`::

    @section("optimal_bias", order=240, topic="landscape", kind="Lemma", number="5", title="Optimal bias",
             where="App. E", refs=("Lemma 5",))
    def _optimal_bias() -> Block:
        opt = canonical_model().optimal_bias              # every formula from symbolic/
        return Block(ref="Lemma 5", statement=..., derivation=..., entries=(Entry("b^\\star", opt["b_star"]),))

`order` fixes the position in the document, `topic` the paper topic (a top-level section, `TOPICS`),
`kind`/`number` the paper's name of the result (typeset as an amsthm environment: "Lemma 5"), `refs` the
paper labels whose claims back the unit (a claim matches when one of its labels, e.g. "Thm 6/7" ->
Thm 6 and Thm 7, is in `refs`). `id` names the fragment file `fragments/<id>.tex`.

Blocks hold LaTeX text (mathematics in `$...$`) and SymPy objects; they are rendered twice, by
`assemble.render_section` (the PDF) and by the blueprint site (`site._block_html`, MathML), so their
LaTeX stays within what both understand: `align*`, `itemize`, `\paragraph`, inline mathematics.
"""
from __future__ import annotations

import re

# what a unit is and the list it registers into (re-exported: the document's modules read them from here)
from .unit import SECTIONS as SECTIONS, TOPIC_KEYS as TOPIC_KEYS, TOPICS as TOPICS, Block as Block, Entry as Entry
from .unit import Section as Section, section as section


def sections() -> list[Section]:
    """Registered units in document order (the section modules are imported on first use)."""
    from . import units as _register  # noqa: F401 - importing registers every unit
    return sorted(SECTIONS.values(), key=lambda s: (s.order, s.id))


_LABEL = re.compile(r"(Lemma|Lemmas|Thm|Thms|Theorem|Remark|Eq\.|Sec\.|App\.|Cor\.|Prop\.|Fig\.|Figs\.|Figure)"
                    r"\s*([0-9][0-9/,\s]*)")
_KIND = {"Lemmas": "Lemma", "Thms": "Thm", "Theorem": "Thm", "Figs.": "Fig.", "Figure": "Fig."}


def labels(ref: str) -> set[str]:
    """Paper labels in a reference string: 'Thm 6/7 (ii)' -> {'Thm 6', 'Thm 7'}."""
    return set(ordered_labels(ref))


def ordered_labels(ref: str) -> list[str]:
    """Paper labels in the order the reference names them ('Fig. 2 / Fig. 5' -> ['Fig. 2', 'Fig. 5'])."""
    out: list[str] = []
    for kind, nums in _LABEL.findall(ref or ""):
        kind = _KIND.get(kind, kind)
        for n in re.split(r"[/,\s]+", nums.strip()):
            if n and f"{kind} {n}" not in out:
                out.append(f"{kind} {n}")
    return out


def _exact(ref: str) -> bool:
    """A unit ref with a qualifier ("Sec. 4 (I_common)") matches that claim reference exactly, not by label."""
    return "(" in ref


def claims_for(sec: Section, claims) -> list:
    """The registry's claims whose paper labels meet the unit's `refs` (registry order); a ref with a
    qualifier in parentheses matches only claims with exactly that reference."""
    wanted = set().union(*(labels(r) for r in sec.refs if not _exact(r))) if sec.refs else set()
    exact = {r for r in sec.refs if _exact(r)}
    return [c for c in claims if (c.ref in exact or labels(c.ref) & wanted)
            and (not sec.only_topic or CLAIM_TOPIC.get(getattr(c, "section", ""), None) == sec.topic)]


def pointers(sec: Section, claims, home: dict) -> list:
    """Claims that back this unit but are shown in full in another one (their home names their reference
    exactly, or they match this unit only by a label)."""
    out = []
    for c in claims_for(sec, claims):
        h = home.get(c.id)
        if h is None or h == sec.id or c.ref in set(SECTIONS[h].refs):
            continue
        out.append(c)
    return out


#: a claim's `section` (its topic in the registry) -> the document topic it is shown in
CLAIM_TOPIC = {"setting": "setting", "canonical": "setting", "bias": "landscape", "landscape": "landscape",
               "critical": "landscape", "certified": None, "flow": "flow", "attention": "attention",
               "full model": "full", "untied": "untied"}


def homes(secs: list[Section], claims) -> dict[str, str]:
    """The unit each claim is shown in full (claim id -> section id): a unit naming its reference exactly;
    else, among the units whose refs meet its labels (preferring units of the claim's own topic), the first
    one matching the claim's first label. Other matching units only point to it."""
    out = {}
    for c in claims:
        matching = [s for s in secs if claims_for(s, [c])]
        if not matching:
            continue
        exact = [s for s in matching if c.ref in s.refs]
        if exact:
            out[c.id] = exact[0].id
            continue
        topic = CLAIM_TOPIC.get(getattr(c, "section", ""), None)
        same = [s for s in matching if topic is None or s.topic == topic] or matching
        best = None
        for lab in ordered_labels(c.ref):
            best = next((s for s in same if lab in set().union(*(labels(r) for r in s.refs if not _exact(r)))), None)
            if best is not None:
                break
        out[c.id] = (best or same[0]).id
    return out
