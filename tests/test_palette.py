"""The status ladder's colours: one palette for every output, told apart with normal vision and under simulated
protanopia, deuteranopia and tritanopia (ΔE*ab in CIELAB above a margin), the ink on each fill computed."""
import re

import pytest

from local2global.proofs.outputs import palette as PAL
from local2global.proofs.outputs import records as R, report, site
from local2global.proofs.outputs.document import assemble

LADDER = ("proved", "certified", "sampled", "experiment", "erratum", "open", "failed", "not run")


def test_every_rung_has_a_colour_of_its_own_for_every_reader():
    colours = {s: PAL.STATUS[s] for s in LADDER}
    d, vision, a, b = PAL.min_distance(colours)
    assert d >= PAL.MARGIN, (d, vision, a, b)
    assert len({c.upper() for c in colours.values()}) == len(colours)


@pytest.mark.parametrize("a,b", [("proved", "certified"), ("sampled", "erratum"), ("experiment", "certified"),
                                 ("open", "failed"), ("proved", "experiment")])
def test_the_distinctness_check_fails_when_two_rungs_share_a_colour(a, b):
    """Negative control: two rungs set equal, or to colours only a trichromat tells apart, fall below the margin."""
    same = dict(PAL.STATUS, **{b: PAL.STATUS[a]})
    assert PAL.min_distance(same)[0] < PAL.MARGIN
    assert PAL.min_distance(same)[0] == 0


def test_red_and_green_that_a_deuteranope_confuses_are_rejected():
    """The simulation sees what a trichromat's ΔE does not: a red and a green 40 apart for normal vision are
    closer than the margin for a deutan or protan reader."""
    red, green = "#D62728", "#6B8E23"
    assert PAL.cvd_distance(red, green, "normal") > 40
    assert min(PAL.cvd_distance(red, green, v) for v in ("deuteranopia", "protanopia")) < PAL.MARGIN
    assert PAL.min_distance(dict(PAL.STATUS, proved=green, failed=red))[0] < PAL.MARGIN


def test_the_simulation_keeps_greys():
    """The dichromacy matrices map white to white (rows sum to 1), so a grey is seen as the same grey."""
    for v, m in PAL.CVD.items():
        assert all(abs(sum(row) - 1) < 1e-5 for row in m), v
        for grey in ("#000000", "#777777", "#FFFFFF"):
            assert abs(PAL.lab(grey, v)[0] - PAL.lab(grey)[0]) < 0.01, (v, grey)
    assert abs(PAL.lab("#FFFFFF")[0] - 100) < 0.01 and abs(PAL.lab("#000000")[0]) < 1e-9


def test_ink_is_the_one_of_larger_contrast():
    for fill in list(PAL.STATUS.values()) + ["#000000", "#FFFFFF", "#0072B2", "#F0E442"]:
        y = PAL.luminance(fill)
        black, white = (y + 0.05) / 0.05, 1.05 / (y + 0.05)
        assert PAL.ink(fill) == ("#000000" if black >= white else "#FFFFFF")
        assert max(black, white) >= 4.5                    # WCAG AA for the badges' small text
    assert PAL.ink("#000000") == "#FFFFFF" and PAL.ink("#FFFFFF") == "#000000"


def test_every_output_takes_the_one_palette():
    assert R.COLOURS is PAL.STATUS and site.COLOURS is PAL.STATUS
    assert all(report._COLOURS[s] == PAL.STATUS[s] for s in LADDER)
    macros = assemble._status_macros()
    for s in LADDER:
        key = s.replace(" ", "")
        m = re.search(r"\\definecolor\{st%s\}\{HTML\}\{([0-9A-F]{6})\}" % key, macros)
        assert m and "#" + m.group(1) == PAL.STATUS[s].upper(), s


def test_site_legends_list_the_ladder_in_its_colours_and_no_retired_status():
    """The site's legends show each rung once, in the palette's fill and ink; `verified` (an old record's word,
    shown as sampled) is no badge of its own."""
    for html in (site._legend(), site._legend_strip()):
        assert "verified" not in html
        for s in LADDER:
            assert 'style="background:%s;color:%s" title=' % (PAL.STATUS[s], PAL.STATUS_INK[s]) in html, s
            assert html.count(">%s</span>" % s) == 1, s
    assert site.colour("verified") == PAL.STATUS["sampled"]
    css = site.CSS
    for kind in PAL.KIND:
        assert ".step.kind-%s .kind { background: %s; }" % (kind, PAL.kind_tint(kind)) in css
    assert PAL.kind_tint("kernel") != PAL.kind_tint("exact")
