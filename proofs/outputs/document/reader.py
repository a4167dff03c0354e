r"""Check records written for a reader: evidence, method and control strings as LaTeX text.

The claim modules write their evidence as one line of plain text meant for a terminal (`l2g check`):
Python reprs of dicts and lists, SymPy's `str()` notation (``2*sqrt(2)*e*(p + q - 1)/(p + q)**2``),
floats in e-notation, pointers to source files or to other documents. This module turns such a line
into LaTeX text mode with the mathematics in `$...$`, without changing what it says:

* Python literal reprs are flattened with the site's reader formatter (`site._unrepr`, shared);
* spans in SymPy notation are parsed (`sympy.parse_expr`, every name a plain symbol) and printed with
  the project's one LaTeX printer; spans with a decimal point are never re-printed (a float printed
  by another routine could show digits the check did not guarantee), they stay as written;
* ``4.8e-55`` becomes $4.8\times 10^{-55}$ (the mantissa's digits as written);
* pointers a reader of the PDF does not have (source paths, module names, "see the issue ...",
  "the README") are dropped, as are the clauses that only name a command;
* identifiers become words or the paper's symbols (``Theta_min`` -> $\Theta_{\min}$,
  ``global_min`` -> "global minimum", ``True`` -> "yes").

Deterministic, no state. `scrubbed(text)` lists what a line still contains that a reader should not
see (the tests and `l2g derive` use it to report evidence to fix at its source).
"""
from __future__ import annotations

import re
from functools import lru_cache

import sympy as sp

from local2global.symbolic.latex import SYMBOL_NAMES, latex

#: limit of one evidence line in the document (characters of the source string); longer ones keep
#: their first findings whole and say how many were left out
MAX_EVIDENCE = 900

#: class labels of the critical sets, as words
CLASS_WORDS = {"global_min": "global minimum", "local_min": "local minimum", "local_max": "local maximum",
               "saddle": "saddle", "station": "stationary set", "converged_distance": "converged",
               "converged_gradient": "converged"}

#: identifiers the records use that the printer's table does not name (display only)
EXTRA_NAMES = {"Theta_station": r"\Theta_{\mathrm{station}}", "Gamma_station": r"\Gamma_{\mathrm{station}}",
               "G_second": "G''", "H_rate": r"H(x_{n+1}\mid x_n)", "F_cc": "F_{cc}", "w_sad": r"w_{\mathrm{sad}}",
               "E_sad": r"E_{\mathrm{sad}}", "theta_lim": r"\theta_{\lim}", "theta_0": r"\theta_0",
               "I_common": r"I_{\mathrm{common}}", "I_star": r"I^{\star}", "Theta_star": r"\Theta^{\star}"}

_FUNCS = ("sqrt", "Abs", "log", "exp", "sign", "sigma")
_TOOLS = ((r"\bmp\.quad\b", "numerical quadrature (mpmath)"), (r"\bsp\.solve\b", "SymPy's solve"),
          (r"\bsp\.integrate\b", "SymPy's integrate"), (r"\bsp\.limit\b", "SymPy's limit"),
          (r"\bsp\.simplify\b", "SymPy's simplify"), (r"\bnp\.\w+", "NumPy"))

# pointers a reader of the document cannot follow
_POINTER = re.compile(r"\bissue\b|\bissues\b|README|\.py\b|python -m|cached under|\bbuild/|`[a-z_]+(\.[a-z_]+)+`|"
                      r"formula sheet", re.I)
_PATH = re.compile(r"\b[\w-]+(?:/[\w.-]+)*\.(?:py|json|md|tex|ipynb)\b(?::\d+)?"
                   r"|\b(?:build|symbolic|numeric|proofs|src|tests|notebooks|benchmarks)/[\w./*-]*")


def _name_tex(word: str) -> str | None:
    if word in EXTRA_NAMES:
        return EXTRA_NAMES[word]
    if word in SYMBOL_NAMES and ("_" in word or len(word) > 1 or word in "ewabpq"):
        return SYMBOL_NAMES[word]
    return None


# ---------------------------------------------------------------------------------------------
# Removing what points outside the document
# ---------------------------------------------------------------------------------------------

def _split_top(s: str, sep: str = "; ") -> list[str]:
    from local2global.proofs.outputs.site import split_top
    return split_top(s, sep)


def formula_sheet(s: str) -> str:
    """Drop references to the authors' formula sheet (a document the reader does not have)."""
    s = re.sub(r"\s*\((?:the )?formula sheet(?:'s)?[^()]*\)", "", s)
    s = re.sub(r"\s*(?:of|in|from|per) (?:the )?formula sheet(?:'s)?\s*(?:\\S\{\}|§)?\s*\d*(?:\.\d+)?", "", s)
    s = re.sub(r"(?:the |The )?formula sheet's\s+", lambda m: "the " if m.group(0)[0] == "t" else "The ", s)
    s = re.sub(r"\bformula sheet\s*(?:\\S\{\}|§)?\s*\d*\s*", "", s)
    return s


def scrub(s: str) -> str:
    """`s` without the clauses and parentheses that point at files, modules, issues or the README."""
    s = formula_sheet(" ".join(str(s).split()))
    for pat, rep in _TOOLS:
        s = re.sub(pat, rep, s)
    # innermost parentheses that hold a pointer
    while True:
        m = next((m for m in re.finditer(r"\(([^()]*)\)", s)
                  if _POINTER.search(m.group(1)) or _PATH.search(m.group(1))), None)
        if m is None:
            break
        s = (s[:m.start()].rstrip() + s[m.end():]).strip()
    items = _split_top(s) if "; " in s else [s]
    kept = [it for it in items if not _POINTER.search(it) and not re.match(r"(?i)run\s+`", it)]
    s = "; ".join(kept)
    s = _PATH.sub("", s)
    s = re.sub(r"`[^`]*\.[^`]*`", "", s)                       # a dotted code name left inside a clause
    s = s.replace("`", "")
    s = re.sub(r"\s+([,;:)])", r"\1", s)
    s = re.sub(r"\(\s*\)", "", s)
    return " ".join(s.split()).strip(" ;,")


def scrubbed(tex: str) -> list[str]:
    """What a finished LaTeX line still contains that a reader should not see (empty list: clean)."""
    plain = re.sub(r"\$[^$]*\$", " ", tex)
    bad = []
    for pat, what in ((r"\*\*", "**"), (r"\^", "^ outside mathematics"), (r"\{'", "a Python dict"),
                      (r"\.py\b", "a source file"), (r"\bissue\b", "an issue"), (r"README", "the README"),
                      (r"\bsp\.|\bmp\.|\bnp\.", "a Python module name")):
        if re.search(pat, plain.replace(r"\^{}", "^")):
            bad.append(what)
    return bad


# ---------------------------------------------------------------------------------------------
# SymPy notation -> mathematics
# ---------------------------------------------------------------------------------------------

_TOKEN = re.compile(r"\s*(\*\*|[-+*/(),]|\d+(?:\.\d+)?(?:[eE][-+]?\d+)?|[A-Za-z_][A-Za-z_0-9]*)")


def _balanced(s: str, i: int) -> int:
    """Index after the parenthesis closing s[i] == '(' (or -1)."""
    depth = 0
    for j in range(i, len(s)):
        if s[j] == "(":
            depth += 1
        elif s[j] == ")":
            depth -= 1
            if depth == 0:
                return j + 1
    return -1


def _factor_end(s: str, i: int) -> int:
    """End of one factor starting at i (a number, a name, a call, a parenthesis), or -1."""
    m = re.match(r"\d+(?:\.\d+)?(?:[eE][-+]?\d+)?", s[i:])
    if m:
        return i + m.end()
    m = re.match(r"[A-Za-z_][A-Za-z_0-9]*", s[i:])
    if m:
        j = i + m.end()
        if j < len(s) and s[j] == "(":
            k = _balanced(s, j)
            return k if k > 0 else j
        return j
    if i < len(s) and s[i] == "(":
        return _balanced(s, i)
    return -1


def _term_end(s: str, i: int) -> int:
    if i < len(s) and s[i] == "-":
        i += 1
    j = _factor_end(s, i)
    if j < 0:
        return -1
    while True:
        m = re.match(r"\*\*|\*|/", s[j:])
        if not m:
            return j
        k = _factor_end(s, j + m.end())
        if k < 0:
            return j
        j = k


def _expr_end(s: str, i: int) -> int:
    j = _term_end(s, i)
    if j < 0:
        return -1
    while True:
        m = re.match(r" [-+] ", s[j:])
        if not m:
            break
        k = _term_end(s, j + m.end())
        if k < 0:
            break
        j = k
    m = re.match(r" ?(>=|<=|==|!=|>|<) ?", s[j:])          # a relation to a second expression
    if m:
        k = _expr_end(s, j + m.end())
        if k > 0:
            j = k
    return j


_REL = re.compile(r"(>=|<=|==|!=|>|<)")
_ALLOWED_WORDS = set(_FUNCS) | {"oo", "pi"}


def _is_formula(span: str) -> bool:
    """Whether a span in SymPy notation is worth re-printing as mathematics (and is not prose)."""
    if re.search(r"\d\.\d", span):                           # decimals stay as written
        return False
    if re.search(r"[\w)] [-+][\w(]|[\w)][-+] [\w(]", span):   # "a -b": SymPy writes " - " (prose otherwise)
        return False
    for word in re.findall(r"[A-Za-z_][A-Za-z_0-9]*", span):
        if len(word) > 3 and word not in _ALLOWED_WORDS and _name_tex(word) is None and "_" not in word:
            return False                                     # an English word: prose, not a formula
    if "*" in span or re.search(r"\b(%s)\(" % "|".join(_FUNCS), span):
        return True
    return bool(_REL.search(span) and re.search(r"[A-Za-z]", span) and " " in span)


@lru_cache(maxsize=4096)
def formula_tex(span: str) -> str | None:
    """LaTeX of a span in SymPy notation, or None if it does not parse as one formula."""
    from sympy.parsing.sympy_parser import parse_expr, standard_transformations
    names = set(re.findall(r"[A-Za-z_][A-Za-z_0-9]*", span)) - set(_FUNCS) - {"oo", "pi"}
    local = {n: sp.Symbol(n) for n in names}
    local.update(sqrt=sp.sqrt, Abs=sp.Abs, log=sp.log, exp=sp.exp, sign=sp.sign, oo=sp.oo,
                 sigma=sp.Function("sigma"))
    src = span.replace("==", "=") if "==" in span else span
    rel = re.search(r"\s?(>=|<=|!=|=|>|<)\s?", src)
    try:
        if rel:
            lhs, rhs = src[:rel.start()], src[rel.end():]
            if re.search(r"(>=|<=|!=|=|>|<)", rhs):
                return None
            a = parse_expr(lhs, local_dict=dict(local), transformations=standard_transformations)
            b = parse_expr(rhs, local_dict=dict(local), transformations=standard_transformations)
            op = {">=": r"\geq", "<=": r"\leq", "!=": r"\neq", "=": "=", ">": ">", "<": "<"}[rel.group(1)]
            return "%s %s %s" % (_tex(a), op, _tex(b))
        return _tex(parse_expr(src, local_dict=local, transformations=standard_transformations))
    except Exception:                                        # noqa: BLE001 - not a formula: leave the text
        return None


def _tex(x) -> str:
    if isinstance(x, tuple):
        return r"\left(%s\right)" % ", ".join(_tex(y) for y in x)
    if isinstance(x, sp.Tuple):
        return r"\left(%s\right)" % ", ".join(_tex(y) for y in x.args)
    if isinstance(x, (list,)):
        return ", ".join(_tex(y) for y in x)
    return latex(x)


# ---------------------------------------------------------------------------------------------
# Text -> LaTeX text with mathematics
# ---------------------------------------------------------------------------------------------

_ESC = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_", "{": r"\{",
        "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}", "±": r"$\pm$", "²": r"$^2$",
        "³": r"$^3$", "≠": r"$\neq$", "≤": r"$\leq$", "≥": r"$\geq$", "∪": r"$\cup$", "π": r"$\pi$",
        "θ": r"$\theta$", "Θ": r"$\Theta$", "Γ": r"$\Gamma$", "σ": r"$\sigma$", "∇": r"$\nabla$",
        "∂": r"$\partial$", "−": "-", "×": r"$\times$", "→": r"$\to$", "·": r"$\cdot$", "∈": r"$\in$",
        "ℓ": r"$\ell$", "√": r"$\surd$", "–": "--", "—": "---", "’": "'", "§": r"\S{}", "≈": r"$\approx$",
        "∞": r"$\infty$", "⋆": r"$\star$", "α": r"$\alpha$", "κ": r"$\kappa$", "λ": r"$\lambda$",
        "ε": r"$\varepsilon$", "∧": "and", "∨": "or", "⊂": r"$\subset$", "∅": r"$\emptyset$"}


def escape(s: str) -> str:
    """Plain text -> LaTeX text mode (T1 encoding: <, > and | print as themselves)."""
    out = []
    for ch in str(s):
        if ch in _ESC:
            out.append(_ESC[ch])
        elif ord(ch) > 127:
            out.append("?")
        else:
            out.append(ch)
    return "".join(out)


def _range(var: str, lo: str, hi: str) -> str:
    """'d in 1..3' as a set of integers ({1, 2, 3}; with dots when longer)."""
    a, b = int(lo), int(hi)
    items = ", ".join(str(k) for k in range(a, b + 1)) if b - a <= 3 else r"%d, \dots, %d" % (a, b)
    return r"$%s \in \{%s\}$" % (var, items)


def _sci(m) -> str:
    mant, exp = m.group(1), int(m.group(2))
    if exp == 0:
        return "$%s$" % mant
    if mant in ("1", "-1"):
        return "$%s10^{%d}$" % ("-" if mant.startswith("-") else "", exp)
    return r"$%s \times 10^{%d}$" % (mant, exp)


GREEK = {"eps": r"\varepsilon", "epsilon": r"\varepsilon", "lambda": r"\lambda", "sigma": r"\sigma",
         "alpha": r"\alpha", "kappa": r"\kappa", "theta": r"\theta", "pi": r"\pi", "phi": r"\varphi",
         "mu": r"\mu", "Theta": r"\Theta", "Gamma": r"\Gamma"}


def _caret_body(tok: str) -> str:
    body = tok.replace("**", "^").replace("->", r"\to ")
    body = re.sub(r"\^\(([^()]*)\)", r"^{\1}", body)
    body = re.sub(r"\^(-?\d+|[A-Za-z])", r"^{\1}", body)
    body = re.sub(r"\b(log|exp)\b", r"\\\1 ", body)
    body = re.sub(r"\bsqrt\s*(\d|\w)", r"\\sqrt{\1}", body)
    body = re.sub(r"\b(%s)\b" % "|".join(sorted(GREEK, key=len, reverse=True)), lambda k: GREEK[k.group(1)] + " ", body)
    body = re.sub(r"(?<!\\)\b([a-zA-Z])([0-9])\b", r"\1_\2", body)
    return body.replace("*", "")


def _caret_token(tok: str) -> str | None:
    """A whitespace-free token with ^ or ** as mathematics (trailing punctuation kept outside); a token
    whose brackets do not balance gives only its smallest `x^k` part."""
    lead = ""
    while tok.startswith("(") and tok.count("(") > tok.count(")"):
        lead, tok = lead + "(", tok[1:]
    tail = ""
    while tok and (tok[-1] in ",;:." or (tok[-1] == ")" and tok.count(")") > tok.count("("))):
        tail, tok = tok[-1] + tail, tok[:-1]
    if not tok or not ("^" in tok or "**" in tok):
        return None
    if tok.count("(") != tok.count(")") or tok.count("|") % 2 or re.search(r"[A-Za-z]{4,}", tok.replace("sqrt", "")
                                                                          .replace("log", "").replace("exp", "")):
        out, pos = [], 0
        for m in re.finditer(r"(?:[A-Za-z0-9]+|\([^()]*\))(?:\^|\*\*)(?:-?[A-Za-z0-9]+|\([^()]*\))", tok):
            out.append(escape(tok[pos:m.start()]))
            out.append("$" + _caret_body(m.group(0)) + "$")
            pos = m.end()
        out.append(escape(tok[pos:]))
        return escape(lead) + "".join(out) + escape(tail)
    return escape(lead) + "$" + _caret_body(tok) + "$" + escape(tail)


_SIMPLE_MATH = re.compile(
    r"(?<![\w$])(?:[pq]\s*\+\s*[pq]|1\s*\+\s*a\s*e\s*\^?\s*2|[ewab]|[ewa]_?0|t)"
    r"\s*(?:>=|<=|!=|==|=|>|<)\s*-?\d+(?:/\d+)?(?:/sqrt\s*\(?2\)?|/sqrt2)?(?![\w.])")


def _simple_math(m) -> str:
    s = re.sub(r"\s+", "", m.group(0))
    s = s.replace(">=", r"\geq ").replace("<=", r"\leq ").replace("!=", r"\neq ").replace("==", "=")
    s = re.sub(r"1/sqrt\(?2\)?", r"1/\\sqrt{2}", s).replace("ae2", "ae^2")
    s = re.sub(r"([ewa])_?0", r"\1_0", s)
    return "$" + s + "$"


def _words(s: str) -> str:
    """Identifiers -> words; booleans -> yes/no; precision jargon -> digits (text still plain)."""
    s = re.sub(r"\bTrue\b", "yes", s)
    s = re.sub(r"\bFalse\b", "no", s)
    s = re.sub(r"\bNone\b", "undecided", s)
    s = re.sub(r"\bdps\s*=?\s*(\d+)", r"\1 digits", s)
    for k, v in CLASS_WORDS.items():
        s = re.sub(r"(?<![\w$\\])%s(?![\w])" % re.escape(k), v, s)
    return s


def prose(s: str) -> str:
    """One evidence / method / control / note line as LaTeX text with inline mathematics."""
    from local2global.proofs.outputs.site import unrepr as _unrepr

    s = scrub(s)
    protected: list[str] = []

    def protect(tex: str) -> str:
        protected.append(tex)
        return "\x00%d\x00" % (len(protected) - 1)

    # unicode mathematics (written by the symbolic layer's arguments) is already mathematics
    s = "".join(protect(_ESC[ch]) if ord(ch) > 127 and ch in _ESC else ch for ch in s)
    # small sets of numbers ({0,1}) would read as tuples once the reprs are flattened
    s = re.sub(r"\{\s*(-?\d+(?:\s*,\s*-?\d+)*)\s*\}", lambda m: protect(r"$\{%s\}$" % ", ".join(
        x.strip() for x in m.group(1).split(","))), s)
    s = re.sub(r"\b([a-zA-Z])\s*(?:in|=)\s+(\d+)\.\.(\d+)\b", lambda m: protect(_range(*m.groups())), s)
    s = re.sub(r"\blength (\d+)\.\.(\d+)\b", lambda m: "length %s to %s" % m.groups(), s)
    s = re.sub(r"(^|; )all: ", r"\1", s)                      # the branch label of a branch-free identity
    s = re.sub(r"(?<![\w$])R\^([234])\b", lambda m: protect(r"$\mathbb{R}^%s$" % m.group(1)), s)
    s = re.sub(r"(?<![\w$])(-?)inf\b", lambda m: protect(r"$%s\infty$" % m.group(1)), s)
    s = re.sub(r"(?<![\w$/])(-?)1/sqrt ?\(?2\)?(?![\w(])", lambda m: protect(r"$%s1/\sqrt{2}$" % m.group(1)), s)
    s = re.sub(r"\bd2(\w)/d(\w)2\b", lambda m: protect(r"$\partial^2 %s/\partial %s^2$" % m.groups()), s)
    s = re.sub(r"(?<![\w/])d([A-Za-z])/d([a-z])\b", lambda m: protect(r"$d%s/d%s$" % m.groups()), s)
    s = re.sub(r"(?<![\w$])([FGf])('+)(?:\(([A-Za-z0-9]\*?)\))?",
               lambda m: protect("$%s%s%s$" % (m.group(1), m.group(2), "" if m.group(3) is None else
                                               "(%s)" % m.group(3).replace("*", r"^{\star}"))), s)
    s = _unrepr(s)
    s = _words(s)
    pieces: list[tuple[bool, str]] = [(False, s)]

    def apply(pattern, make):
        nonlocal pieces
        out = []
        for is_math, txt in pieces:
            if is_math:
                out.append((True, txt))
                continue
            pos = 0
            for m in (pattern(txt) if callable(pattern) else re.finditer(pattern, txt)):
                rep = make(m)
                if rep is None:
                    continue
                out.append((False, txt[pos:m.start()]))
                out.append((True, rep))
                pos = m.end()
            out.append((False, txt[pos:]))
        pieces = [pc for pc in out if pc[1]]

    apply(_formula_spans, lambda m: m.tex)
    apply(r"(?<![\w.])(-?\d+(?:\.\d+)?)[eE]([-+]?\d+)(?![\w.])", _sci)
    apply(r"(?<![\w$])(-?)oo(?!\w)", lambda m: r"$%s\infty$" % m.group(1))
    apply(r"(?<![\w/])(?:\b[a-zA-Z]\w*\s+(?:in|∈)\s+\[[^\]]+\](?:\s+x\s+(?=[a-zA-Z]\w*\s+in))?)+", _box)
    apply(_SIMPLE_MATH, _simple_math)
    apply(r"\bgrad ([A-Z])\b(?: \. grad ([A-Z])\b)?",
          lambda m: r"$\nabla %s$" % m.group(1) if not m.group(2) else r"$\nabla %s\cdot\nabla %s$" % m.groups())
    apply(r"\bHess ([A-Z])\b", lambda m: r"$\nabla^2 %s$" % m.group(1))
    apply(r"\bH\(pi\)", lambda m: r"$H(\pi)$")
    apply(r"\bR([234])\b", lambda m: r"$\mathbb{R}^%s$" % m.group(1))
    apply(r"[^\s$\x00]*(?:\^|\*\*)[^\s$\x00]*", lambda m: _caret_token(m.group(0)))
    apply(r"(?<![\w\\])(?:[A-Za-z]+_[A-Za-z0-9]+|pi[01]|theta0)(?![\w])", _ident)
    apply(r"(?<![\w\\])([A-Z]|[a-c]|u|theta|Theta|Gamma)\*(?![\w*(])",
          lambda m: "$%s^{\\star}$" % GREEK.get(m.group(1), m.group(1)))
    apply(r"(?<![\w\\])([a-zA-Z])([0-9])(?![\w.])", lambda m: "$%s_%s$" % m.groups())
    apply(r"(?<![\w\\])(%s)(?![\w])" % "|".join(sorted(GREEK, key=len, reverse=True)),
          lambda m: "$%s$" % GREEK[m.group(1)])
    apply(r"->|>=|<=|!=|==|\+/-", lambda m: {"->": r"$\to$", ">=": r"$\geq$", "<=": r"$\leq$", "!=": r"$\neq$",
                                             "==": "=", "+/-": r"$\pm$"}[m.group(0)])
    apply(r"\|([A-Za-z][A-Za-z ]*?)\|", lambda m: (r"$|%s|$" % m.group(1)) if len(m.group(1)) == 1 else
          r"$|\mathrm{%s}|$" % m.group(1).replace(" ", r"\ "))
    # "w = $...$": a one-letter left side joins the formula it names
    merged: list[tuple[bool, str]] = []
    for is_math, txt in pieces:
        if is_math and merged and not merged[-1][0]:
            m = re.search(r"(?<![\w$])([a-zA-Z])\s*=\s*$", merged[-1][1])
            if m and txt.startswith("$"):
                merged[-1] = (False, merged[-1][1][:m.start()])
                txt = "$%s = %s" % (m.group(1), txt[1:])
        merged.append((is_math, txt))
    out = []
    for is_math, txt in merged:
        out.append(txt if is_math else escape(txt))
    text = "".join(out)
    text = re.sub("\x00(\\d+)\x00", lambda m: protected[int(m.group(1))], text)
    # a letter applied to, or bars around, one formula: one formula
    text = re.sub(r"(?<![\w\\$])([A-Za-z])\(\$([^$]+)\$\)", r"$\1(\2)$", text)
    text = re.sub(r"\|\$([^$|]+)\$\|", r"$|\1|$", text)
    text = text.replace("$$", " ")                            # two adjacent formulas are one product
    return " ".join(text.split()).strip()


class _Span:
    def __init__(self, start, end, tex):
        self._s, self._e, self.tex = start, end, "$" + tex + "$"

    def start(self):
        return self._s

    def end(self):
        return self._e


def _formula_spans(txt: str):
    """Spans of txt in SymPy notation that parse (see `formula_tex`), left to right, maximal."""
    i, n = 0, len(txt)
    while i < n:
        ch = txt[i]
        prev = txt[i - 1] if i else " "
        if (ch.isalnum() or ch in "(-") and not (prev.isalnum() or prev in "_.^+-*/=<>'"):
            j = _expr_end(txt, i)
            if j > i:
                span = txt[i:j]
                core = span.rstrip()
                if _is_formula(core):
                    tex = formula_tex(core)
                    if tex is not None:
                        yield _Span(i, i + len(core), tex)
                        i = i + len(core)
                        continue
        i += 1


def _ident(m) -> str | None:
    word = m.group(0)
    tex = _name_tex(word)
    if tex is not None:
        return "$" + tex + "$"
    if word == "theta0":
        return r"$\theta_0$"
    head, _, tail = word.partition("_")
    if head in GREEK and re.fullmatch(r"[A-Za-z0-9]{1,5}", tail):
        return "$%s_{%s}$" % (GREEK[head], tail if len(tail) == 1 or tail.isdigit() else r"\mathrm{%s}" % tail)
    if len(head) <= 2 and head.isalpha() and re.fullmatch(r"[A-Za-z0-9]{1,5}", tail):
        return "$%s_{%s}$" % (head, tail if len(tail) == 1 or tail.isdigit() else r"\mathrm{%s}" % tail)
    return None                                            # stays text; escape() writes the underscore


def _box(m) -> str:
    """'p in [1/1000, 999/1000] x q in [...]' -> p in [.,.] times q in [.,.] (a box)."""
    parts = re.findall(r"([a-zA-Z]\w*)\s+(?:in|∈)\s+\[([^\]]+)\]", m.group(0))
    out = []
    for var, rng in parts:
        ends = [x.strip() for x in rng.split(",")]
        shown = []
        for x in ends:
            t = formula_tex(x) if re.search(r"[a-z(*]", x) else None
            shown.append(t if t is not None else re.sub(r"^-?oo$", lambda k: ("-" if k.group(0)[0] == "-" else "") + r"\infty", x))
        nm = _name_tex(var) or var
        out.append(r"%s \in [%s]" % (nm, ", ".join(shown)))
    tail = " " if m.group(0).endswith(" ") else ""
    return "$" + r" \times ".join(out) + "$" + tail


def evidence(s: str, limit: int = MAX_EVIDENCE) -> str:
    """A record's evidence as one compact LaTeX line: whole findings up to `limit` characters of source."""
    s = " ".join(str(s).split())
    if len(s) <= limit:
        return prose(s)
    items = _split_top(s)
    kept, size = [], 0
    for it in items:
        if kept and size + len(it) > limit:
            break
        kept.append(it)
        size += len(it) + 2
    rest = len(items) - len(kept)
    text = prose("; ".join(kept))
    if rest:
        text += "; and %d further finding%s of the same kind" % (rest, "s" if rest > 1 else "")
    return text


def first_finding(s: str, limit: int = 240) -> str:
    """The first '; '-separated finding of a control string as LaTeX; a long one is cut at its first
    top-level ': ' or ', ' (whole clauses only), and dropped if even that is too long."""
    s = scrub(" ".join(str(s).split()))
    s = re.sub(r"^(NOT rejected|rejected):\s*", "", s)
    items = _split_top(s) if s else []
    if not items:
        return ""
    head = items[0]
    for sep in (": ", ", "):
        if len(head) <= limit:
            break
        parts = _split_top(head, sep)
        head = parts[0] if parts else head
    return prose(head) if len(head) <= limit else ""
