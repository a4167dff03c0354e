r"""Text for the derivations document: plain text escaped for LaTeX, text with $...$ mathematics, authored titles.

Nothing here reads evidence: the records are data (`proofs._steps`), printed by `document.steps`. This module only
writes text in LaTeX:

* `escape`: plain text (a value a check found, a method, a domain, a reference) in LaTeX text mode, every
  special character escaped; never interpreted;
* `mixed`: text with LaTeX mathematics inside ``$...$`` (a step's `states`, an argued step's argument, a form
  printed by `document.forms`): the text escaped, the mathematics kept; unbalanced ``$`` make it all text;
* `authored`: the registry's titles and erratum notes and the report's result titles, written by people in plain
  text with a few conventions of their own (``R^3``, ``Theta_station``, ``x_n``, ``t^(1/3)``, ``oo``, ``->``,
  ``A*``), set as the paper would; no other rewriting;
"""
from __future__ import annotations

import re

from local2global.proofs.outputs.records import split_math
from local2global.symbolic.latex import SYMBOL_NAMES

_ESC = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_", "{": r"\{",
        "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}", "±": r"$\pm$", "²": r"$^2$",
        "³": r"$^3$", "≠": r"$\neq$", "≤": r"$\leq$", "≥": r"$\geq$", "∪": r"$\cup$", "π": r"$\pi$",
        "θ": r"$\theta$", "Θ": r"$\Theta$", "Γ": r"$\Gamma$", "σ": r"$\sigma$", "∇": r"$\nabla$",
        "∂": r"$\partial$", "−": "-", "×": r"$\times$", "→": r"$\to$", "·": r"$\cdot$", "∈": r"$\in$",
        "ℓ": r"$\ell$", "√": r"$\surd$", "–": "--", "—": "---", "’": "'", "§": r"\S{}", "≈": r"$\approx$",
        "∞": r"$\infty$", "⋆": r"$\star$", "α": r"$\alpha$", "κ": r"$\kappa$", "λ": r"$\lambda$",
        "ε": r"$\varepsilon$", "∧": "and", "∨": "or", "⊂": r"$\subset$", "∅": r"$\emptyset$", "δ": r"$\delta$",
        "Δ": r"$\Delta$", "μ": r"$\mu$", "ρ": r"$\rho$", "ω": r"$\omega$", "φ": r"$\varphi$", "ψ": r"$\psi$",
        "⊥": r"$\perp$", "∑": r"$\sum$", "∫": r"$\int$", "‖": r"$\|$", "⟨": r"$\langle$", "⟩": r"$\rangle$",
        "…": r"\dots{}", "“": "``", "”": "''", "‘": "`", "≡": r"$\equiv$", "⇒": r"$\Rightarrow$",
        "↦": r"$\mapsto$", "∉": r"$\notin$", "⊆": r"$\subseteq$", "∩": r"$\cap$", "°": r"$^\circ$",
        "¹": r"$^1$", "⁰": r"$^0$", "⁻": r"$^-$", "½": r"$\frac12$", "\u00a0": "~", "ℝ": r"$\mathbb{R}$", "β": r"$\beta$", "γ": r"$\gamma$", "η": r"$\eta$",
        "ζ": r"$\zeta$", "ξ": r"$\xi$", "τ": r"$\tau$", "χ": r"$\chi$", "Σ": r"$\Sigma$", "Λ": r"$\Lambda$",
        "Φ": r"$\Phi$", "Ψ": r"$\Psi$", "Ω": r"$\Omega$",
        "ϱ": r"$\varrho$", "ϑ": r"$\vartheta$", "ϵ": r"$\epsilon$", "∝": r"$\propto$", "Ł": r"\L{}", "ł": r"\l{}"}


def escape(s: str) -> str:
    """Plain text -> LaTeX text mode (T1 encoding: <, > and | print as themselves); a character the document's
    fonts lack prints as '?'."""
    out = []
    for ch in str(s):
        if ch in _ESC:
            out.append(_ESC[ch])
        elif ord(ch) > 127:
            out.append("?")
        else:
            out.append(ch)
    return "".join(out)


def mixed(s: str) -> str:
    """Text with LaTeX mathematics inside $...$ (a step's `states`, an argument, a form): text escaped, mathematics
    kept as written; with unbalanced $ the whole string is text."""
    return "".join(("$%s$" % t) if is_math else escape(t) for is_math, t in split_math(s))


# ---------------------------------------------------------------------------------------------
# Authored text: titles and erratum notes
# ---------------------------------------------------------------------------------------------

#: names the registry's titles use that the symbol table does not hold
EXTRA_NAMES = {"Theta_station": r"\Theta_{\mathrm{station}}", "Gamma_station": r"\Gamma_{\mathrm{station}}",
               "E_sad": r"E_{\mathrm{sad}}", "w_sad": r"w_{\mathrm{sad}}", "I_common": r"I_{\mathrm{common}}",
               "Theta_star": r"\Theta^{\star}", "Theta_min": r"\Theta_{\min}", "I_min": r"I_{\min}"}
_GREEK = {"theta": r"\theta", "Theta": r"\Theta", "sigma": r"\sigma", "pi": r"\pi", "alpha": r"\alpha",
          "Gamma": r"\Gamma", "lambda": r"\lambda", "kappa": r"\kappa", "eps": r"\varepsilon"}
_NAMED = "|".join(sorted(map(re.escape, set(EXTRA_NAMES) | {n for n in SYMBOL_NAMES if "_" in n}), key=len, reverse=True))
_AUTHORED = re.compile(
    r"(?P<space>\bR\^?(?P<dim>[234])\b)"                                          # R^3, R3: the space
    r"|(?P<power>(?P<pbase>(?<![\w\\])(?:[A-Za-z]+_[A-Za-z0-9]+|[^\W_][\w’']*?)|[)\]}|∫])"           # e^2, t^(1/3), φ’^2
    r"\^(?:\((?P<pexp>[^()]{1,12})\)|(?P<exp>-?(?:[^\W_]{1,3}|∞))))"                               # a_inf^2, ∫^∞
    r"|(?P<ident>(?<![\w\\])(?:%s|(?:[A-Za-z]|%s)_[A-Za-z0-9]{1,5})(?![\w]))"      # Theta_station, x_n, W_1
    r"|(?P<star>(?<![\w\\])(?:[A-Z]|theta|Theta)\*(?![\w*]))"                      # A*, I*, Theta*
    r"|(?P<inf>(?<![\w$])-?oo\b)|(?P<arrow>->)" % (_NAMED, "|".join(_GREEK)))


def _ident_tex(word: str) -> str:
    if word in EXTRA_NAMES:
        return EXTRA_NAMES[word]
    if word in SYMBOL_NAMES and "_" in word:
        return SYMBOL_NAMES[word]
    head, _, tail = word.partition("_")
    head = _GREEK.get(head, head if len(head) == 1 else r"\mathrm{%s}" % head)
    return "%s_{%s}" % (head, tail if len(tail) == 1 or tail.isdigit() else r"\mathrm{%s}" % tail)


def _math_chars(s: str) -> str:
    """Text inside mathematics: a Unicode symbol as its LaTeX command (φ -> \\varphi), a typographic prime as '."""
    out = []
    for ch in s:
        if ch in "’′":
            out.append("'")
        elif ch in _ESC and _ESC[ch].startswith("$"):
            out.append(_ESC[ch][1:-1] + " ")
        elif ch == "∫":
            out.append(r"\int ")
        else:
            out.append(ch)
    return "".join(out).strip()


def _authored_math(m) -> str:
    if m.group("space"):
        return r"$\mathbb{R}^%s$" % m.group("dim")
    if m.group("power"):
        base = m.group("pbase")
        exp = _math_chars(m.group("pexp") if m.group("pexp") is not None else m.group("exp"))
        if base in ")]}|":                                    # (0,1)^2, |grad A|^2: the power of a bracket
            return "%s$^{%s}$" % (escape(base), exp)
        if "_" in base:
            return "$%s^{%s}$" % (_ident_tex(base), exp)
        return "$%s^{%s}$" % (_GREEK.get(base, _math_chars(base)), exp)
    if m.group("ident"):
        return "$%s$" % _ident_tex(m.group("ident"))
    if m.group("star"):
        base = m.group("star")[:-1]
        return r"$%s^{\star}$" % _GREEK.get(base, base)
    if m.group("inf"):
        return r"$%s\infty$" % ("-" if m.group("inf").startswith("-") else "")
    return r"$\to$"


def authored(s: str) -> str:
    """A title or note the registry's authors wrote in plain text, in LaTeX: escaped, with their notations for
    powers, subscripts, the spaces R^n, starred points, infinity and arrows set as mathematics; mathematics they
    wrote inside $...$ is kept as written."""
    pieces = split_math(s)
    if len(pieces) > 1 or (pieces and pieces[0][0]):
        return "".join(("$%s$" % t) if is_math else authored(t) for is_math, t in pieces)
    out, pos = [], 0
    s = str(s)
    for m in _AUTHORED.finditer(s):
        out.append(escape(s[pos:m.start()]))
        out.append(_authored_math(m))
        pos = m.end()
    out.append(escape(s[pos:]))
    return "".join(out)


