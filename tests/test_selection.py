"""One selection language for `check --only`, `all --only` and `figures --only`: ids, prefixes and the paper
labels the report prints, in any spelling, selecting exactly the claims the report lists under a result."""
from __future__ import annotations

import re

import pytest

from local2global.cli import main
from local2global.proofs import select
from local2global.proofs.outputs.report import coverage, numbered_results
from local2global.proofs.selection import figure_label, parse_label, select_figures


def _ids(*tokens, notes=None):
    return [c.id for c in select(list(tokens), notes=notes)]


def _listed_by_the_report(result: str) -> list[str]:
    """The claims the report's coverage table lists under a numbered result (statuses do not matter)."""
    recs = [dict(id=c.id, ref=c.ref, status="proved") for c in select()]
    return next(row["claims"] for row in coverage(recs) if row["result"] == result)


@pytest.mark.parametrize("spelling", ["Lemma 12", "Lem. 12", "lemma12", "LEMMA 12", "Lem 12", "lemma  12", "Lemma12"])
def test_every_spelling_of_lemma_12_selects_what_the_report_lists_under_it(spelling):
    assert _ids(spelling) == _listed_by_the_report("Lemma 12")
    assert "cert.thm2.f2_negative" in _ids(spelling.replace("12", "2").replace("Lemma", "Thm").replace("LEMMA", "THM").replace("lemma", "thm").replace("Lem", "Thm"))   # listed under Thm 2, though its id is cert.*


@pytest.mark.parametrize("result", ["Lemma 5", "Lemma 9", "Theorem 2", "Theorem 10", "Remark 5", "Figure 1", "Figure 5",
                                    "Lemma 15", "Theorem 3", "Theorem 11"])
def test_a_label_selects_exactly_the_report_s_claims_for_that_result(result):
    assert _ids(result) == _listed_by_the_report(result)


def test_theorem_spellings_agree():
    assert _ids("Theorem 2") == _ids("Thm 2") == _ids("Thm. 2") == _ids("thm2") == _listed_by_the_report("Theorem 2")
    assert _ids("Remark 5") == _ids("Rem 5") == _ids("rem. 5")
    assert _ids("Fig. 1") == _ids("Figure 1") == _ids("fig1") == ["fig1.basins"]


def test_lemma_1_never_selects_lemma_12_or_others_with_the_same_leading_digit():
    one = _ids("Lemma 1")
    assert one == _listed_by_the_report("Lemma 1")
    assert one and not set(one) & set(_ids("Lemma 12"))
    assert all("Lemma 1" in numbered_results_of(c) for c in one)
    assert not any(c.startswith(("lemma12", "lemma13", "lemma14", "lemma15", "lemma16")) for c in one)


def numbered_results_of(cid: str) -> list[str]:
    return numbered_results(next(c.ref for c in select() if c.id == cid))


def test_a_sub_item_selects_the_claims_naming_it_else_the_whole_result_with_a_note():
    assert _ids("Thm 2 (ii)") == ["g.asymptotes"]
    assert _ids("Thm. 2 (ii)") == _ids("Theorem 2(ii)") == ["g.asymptotes"]
    assert _ids("Lemma 12 (iii)") == ["lemma12.iii"]
    notes = []
    assert _ids("Thm 2 (i)", notes=notes) == _ids("Theorem 2")
    assert notes and "Theorem 2" in notes[0]
    assert _ids("Fig. 1 (b)") == ["fig1.basins"]


def test_equations_sections_ids_prefixes_and_printed_references_select_too():
    assert set(_ids("Eq. 3")) == {"eq3.logit", "eq3.sign_of_e", "full.eq3"}
    assert _ids("Eq. 40") == ["eq39.attention_output"]                  # "Eq. 39-40"
    assert _ids("sec2") == ["sec2.stationary", "sec2.entropy_rate", "sec2.marginal_entropy"]
    assert _ids("lemma5.b_star") == ["lemma5.b_star"]
    assert _ids("cert") == [c.id for c in select() if c.id.startswith("cert.")]
    assert _ids("Thm 2 (proof)") == ["flow.contour_facts", "thm2.limit_pair", "cert.thm2.f2_negative"]


def test_selections_combine_in_paper_order_without_duplicates():
    both = _ids("Lemma 12", "lemma12.i", "Lemma 5")
    assert len(both) == len(set(both))
    order = [c.id for c in select()]
    assert both == sorted(both, key=order.index)


@pytest.mark.parametrize("token, nearest", [("Lema 12", "Lemma 12"), ("lemm5.b_star", "lemma5.b_star"),
                                            ("Lemma 17", "Lemma 1"), ("Theorm 2", "Theorem 2")])
def test_an_unknown_selector_is_refused_with_the_nearest_labels(token, nearest):
    with pytest.raises(KeyError) as ex:
        select([token])
    msg = ex.value.args[0]
    assert "unknown claim" in msg and repr(nearest) in msg


def test_a_result_without_claims_is_refused_with_the_reason(capsys, monkeypatch):
    from local2global.proofs import _registry
    from local2global.proofs.outputs import report
    monkeypatch.setitem(report.NOT_CHECKABLE, "Remark 3", "a notational convention")    # the one table (proofs.labels)
    select()                                                   # loads every claim module first
    monkeypatch.setattr(_registry, "REGISTRY", {k: c for k, c in _registry.REGISTRY.items() if c.ref != "Remark 3"})
    assert main(["check", "--list", "--only", "Remark 3"]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "notational convention" in err


def test_every_numbered_result_of_the_paper_has_a_claim():
    from local2global.proofs.outputs import report
    recs = [dict(id=c.id, ref=c.ref, status="proved") for c in select()]
    assert [row["result"] for row in coverage(recs) if not row["claims"]] == []
    assert report.NOT_CHECKABLE == {}


def test_check_only_refuses_an_unknown_label_with_a_suggestion(capsys):
    assert main(["check", "--list", "--only", "Lema 12"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("l2g: error: unknown claim") and "'Lemma 12'" in err and len(err.splitlines()) == 1


def test_labels_are_read_by_the_report_s_parser():
    assert parse_label("Thm. 2 (i)") == ("Theorem 2", ("i",))
    assert parse_label("lemma12") == ("Lemma 12", ())
    assert parse_label("Fig. 1a") == ("Figure 1", ("a",))
    assert parse_label("Eq. 3") == ("Eq. 3", ())
    assert parse_label("lemma5.b_star") is None and parse_label("Lemma 1 / Lemma 9") is None
    assert numbered_results("Lemma 1 / Lemma 9") == ["Lemma 1", "Lemma 9"]
    assert numbered_results("Lemma 12 (iii) [reconstructed]") == ["Lemma 12"]


def test_figures_are_selected_by_name_and_by_paper_label():
    names = ["fig1a", "fig1b", "fig1c", "fig1d", "fig2_p01", "fig2_p09", "fig3_fullmodel", "fig_attn_basins"]
    assert select_figures(["Fig. 1"], names) == ["fig1a", "fig1b", "fig1c", "fig1d"]
    assert select_figures(["Figure 1 (b)"], names) == select_figures(["fig1b"], names) == ["fig1b"]
    assert select_figures(["Fig. 2"], names) == select_figures(["fig2"], names) == ["fig2_p01", "fig2_p09"]
    assert select_figures(["Figure 3"], names) == ["fig3_fullmodel"]
    assert select_figures(["fig_attn_basins"], names) == ["fig_attn_basins"]
    assert figure_label("fig_attn_basins") is None
    with pytest.raises(KeyError) as ex:
        select_figures(["fig1e2"], names)
    assert "unknown figure" in ex.value.args[0]


def test_figures_only_refuses_an_unknown_figure_in_one_line(tmp_path, capsys):
    assert main(["figures", "--only", "Fig. 9", "--out", str(tmp_path / "f")]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "unknown figure" in err
    assert not (tmp_path / "f").exists()


def test_check_list_columns_are_aligned_and_never_collide(capsys):
    assert main(["check", "--list"]) == 0
    lines = capsys.readouterr().out.splitlines()
    header, rows, total = lines[0], lines[2:-1], lines[-1]
    ref_col, title_col = header.index("reference"), header.index("title")
    claims = select()
    assert len(rows) == len(claims) and total == f"{len(claims)} claims"
    for line, c in zip(rows, claims):
        assert line[:ref_col].rstrip() == c.id and line[ref_col - 2:ref_col] == "  "
        assert line[ref_col:title_col].rstrip() == c.ref and line[title_col - 2:title_col] == "  "
        assert line[title_col:] == c.title


def test_one_claim_is_one_claim_not_one_claims(capsys):
    assert main(["check", "--list", "--only", "lemma5.b_star"]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == "1 claim"
    from local2global.proofs.outputs import report, table
    rec = dict(id="x", ref="Lemma 5", status="proved")
    assert report.summary_line([rec]).startswith("1 claim:")
    assert re.match(r"^2 claims:", report.summary_line([rec, rec]))

    class R:
        status = "proved"
    assert table.summary_line([R()]).startswith("1 claim:")


def test_all_only_needs_an_explicit_out_so_the_full_build_is_not_replaced(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["all", "--only", "Lemma 5"]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "--out" in err
    assert list(tmp_path.iterdir()) == []


def test_the_r3_result_is_selected_by_its_section_and_its_erratum_by_the_paper_s_labels():
    assert _ids("Sec. 4.1") == ["r3.exact_facts", "r3.airy_facts", "r3.trichotomy", "r3.basins_A", "r3.basins_B"]
    assert "r3.lemma15_thm3" in _ids("Lemma 15") and "r3.lemma15_thm3" in _ids("Thm 3")
    assert "thm11.precise" in _ids("Theorem 11") and "thm11.small_init" in _ids("Thm 11")
    assert set(_ids("r3")) == {c.id for c in select() if c.id.startswith("r3.")}
