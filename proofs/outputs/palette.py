r"""The colours of the status ladder, in one place, for every output (the PDF's status boxes, the site's badges,
the dependency graph) and for readers with a colour-vision deficiency.

The fills are the Okabe–Ito palette (Okabe and Ito, *Color Universal Design*, 2002; the eight colours Wong
recommends in Nature Methods 8, 441 (2011)), chosen so that no two rungs look alike with normal vision or with a
protan, deutan or tritan deficiency. `cvd_distance` measures that: each colour is passed through the
dichromacy matrix of Machado, Oliveira and Fernandes (IEEE TVCG 15 (2009), severity 1) in linear sRGB and the
distance is the CIE 1976 ΔE*ab in CIELAB (D65); `min_distance(STATUS)` is what the tests hold above `MARGIN`.
The ink on a fill (black or white) is the one of larger WCAG 2 contrast, computed, not chosen.
"""
from __future__ import annotations

from itertools import combinations

#: the Okabe–Ito palette, by its own names
OKABE_ITO = {"black": "#000000", "orange": "#E69F00", "sky blue": "#56B4E9", "bluish green": "#009E73",
             "yellow": "#F0E442", "blue": "#0072B2", "vermillion": "#D55E00", "reddish purple": "#CC79A7"}

#: the fill of each status (the ladder, strongest first; `not run` and `uncovered` are white, drawn dashed)
STATUS = {"proved": OKABE_ITO["bluish green"], "certified": OKABE_ITO["blue"], "sampled": OKABE_ITO["yellow"],
          "experiment": OKABE_ITO["sky blue"], "erratum": OKABE_ITO["orange"], "open": OKABE_ITO["reddish purple"],
          "failed": OKABE_ITO["vermillion"], "not run": "#FFFFFF", "uncovered": "#FFFFFF"}
#: nodes of the dependency graph that name no numbered result of the paper (a reference of ours)
EXTERNAL = "#EEEEEE"

#: smallest ΔE*ab between two rungs, with normal vision and under each simulated dichromacy (2.3 is a
#: just-noticeable difference; two rungs 15 apart read as different colours side by side). The assignment above
#: reaches 16.1 (proved and experiment, tritanopia) and 17.0 (sampled and erratum, deuteranopia).
MARGIN = 15.0

#: Machado et al. (2009), severity 1.0: linear sRGB -> the linear sRGB a dichromat perceives
CVD = {
    "normal": ((1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0)),
    "protanopia": ((0.152286, 1.052583, -0.204868), (0.114503, 0.786281, 0.099216), (-0.003882, -0.048116, 1.051998)),
    "deuteranopia": ((0.367322, 0.860646, -0.227968), (0.280085, 0.672501, 0.047413), (-0.011820, 0.042940, 0.968881)),
    "tritanopia": ((1.255528, -0.076749, -0.178779), (-0.078411, 0.930809, 0.147602), (0.004733, 0.691367, 0.303900)),
}


def rgb(hex_colour: str) -> tuple[float, float, float]:
    """'#RRGGBB' as sRGB in [0, 1]."""
    h = hex_colour.lstrip("#")
    return tuple(int(h[i:i + 2], 16) / 255 for i in (0, 2, 4))


def _linear(c: float) -> float:
    return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4


def luminance(hex_colour: str) -> float:
    """WCAG 2 relative luminance."""
    r, g, b = (_linear(c) for c in rgb(hex_colour))
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def ink(fill: str) -> str:
    """The text colour on `fill`: black or white, whichever has the larger WCAG contrast ratio."""
    y = luminance(fill)
    return "#000000" if (y + 0.05) / 0.05 >= 1.05 / (y + 0.05) else "#FFFFFF"


def lab(hex_colour: str, vision: str = "normal") -> tuple[float, float, float]:
    """CIELAB (D65) of the colour as seen with `vision` (a key of `CVD`)."""
    lin = [_linear(c) for c in rgb(hex_colour)]
    m = CVD[vision]
    r, g, b = (min(1.0, max(0.0, sum(m[i][j] * lin[j] for j in range(3)))) for i in range(3))
    x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047
    y = 0.2126 * r + 0.7152 * g + 0.0722 * b
    z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883

    def f(t):
        return t ** (1 / 3) if t > (6 / 29) ** 3 else t / (3 * (6 / 29) ** 2) + 4 / 29
    fx, fy, fz = f(x), f(y), f(z)
    return 116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz)


def cvd_distance(a: str, b: str, vision: str = "normal") -> float:
    """ΔE*ab between two colours as seen with `vision`."""
    return sum((u - v) ** 2 for u, v in zip(lab(a, vision), lab(b, vision))) ** 0.5


def min_distance(colours: dict[str, str], visions=tuple(CVD)) -> tuple[float, str, str, str]:
    """(smallest ΔE*ab, vision, first, second) over every pair of distinct names whose colours must differ
    (names that share one colour on purpose, `not run` and `uncovered`, count once)."""
    names = [n for n in colours if n != "uncovered"]
    return min((cvd_distance(colours[a], colours[b], v), v, a, b) for a, b in combinations(names, 2) for v in visions)


#: the colour a kind of step is tagged with (a light tint of it on the site): the rung it establishes; argued and
#: cited steps, which establish none, in the two colours no rung of a passing check uses as such
KIND = {"kernel": STATUS["proved"], "exact": STATUS["proved"], "interval": STATUS["certified"],
        "sampled": STATUS["sampled"], "experiment": STATUS["experiment"], "argued": OKABE_ITO["orange"],
        "cited": OKABE_ITO["reddish purple"]}
#: how much of the kind's colour its tint keeps (the rest white): a kernel-checked step darker than an exact one
KIND_SHARE = {"kernel": 0.5}


def tint(colour: str, share: float) -> str:
    """`colour` mixed with white, keeping `share` of it (in sRGB), as '#RRGGBB'."""
    return "#" + "".join("%02X" % round(255 - share * (255 - c * 255)) for c in rgb(colour))


def kind_tint(kind: str) -> str:
    """The background of a kind's tag (black ink reads on every tint)."""
    return tint(KIND[kind], KIND_SHARE.get(kind, 0.28))


#: the ink of each status (black or white, computed)
STATUS_INK = {s: ink(c) for s, c in STATUS.items()}
