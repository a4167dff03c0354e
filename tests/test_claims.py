"""Every registered claim is proved, certified, sampled, an experiment, an erratum or honestly open, and its negative control is rejected."""
import re

import pytest

from local2global.proofs import REGISTRY, select

select()   # load the claim modules so the ids can parametrize the tests
#: the landscape results (Sec. 2-3, App. C-E) that must be proved over their whole stated domain, with every
#: claim they use (the status ladder: a record's status is the weakest over its uses)
MUST_BE_PROVED = ("sec2.", "eq3.", "lemma2.", "lemma3.", "lemma4.", "lemma5.", "lemma6.", "lemma7.", "lemma8.",
                  "structure.", "remark1.", "remark2.", "remark3.", "remark4.", "thm1.", "thm6.", "thm7.",
                  "cert.thm2.f2_negative")


@pytest.mark.parametrize("cid", sorted(REGISTRY))
def test_claim_is_established_and_its_negative_control_is_rejected(claim_records, cid):
    r = claim_records[cid]
    assert r.status in ("proved", "certified", "sampled", "experiment", "erratum", "open"), f"{cid}: {r.status}: {r.evidence}"
    if r.status != "open":
        assert r.control.startswith("rejected"), f"{cid}: negative control not rejected: {r.control}"
    else:
        assert r.evidence, "an open claim must say why it is not machine-checkable"


def test_the_landscape_results_are_proved_over_their_whole_stated_domain(claim_records):
    import copy

    from local2global.proofs._registry import propagate

    records = {r.id: r for r in propagate([copy.copy(r) for r in claim_records.values()])}
    mine = [cid for cid in records if cid.startswith(MUST_BE_PROVED)]
    assert len(mine) >= 30
    for cid in mine:
        r = records[cid]
        assert r.own_status == "proved" and r.status == "proved", f"{cid}: {r.status} (weakest {r.weakest}): {r.evidence}"
        assert r.stated_domain and r.checked_domain, f"{cid}: stated or checked domain missing"


def test_every_landscape_result_of_the_paper_has_a_claim():
    refs = {c.ref for c in select()}
    for needed in ["Eq. 3", "Lemma 2", "Lemma 3", "Lemma 4", "Lemma 5", "Lemma 6", "Lemma 7", "Lemma 8",
                   "Thm 1", "Thm 6", "Thm 7", "Remark 1", "Remark 2", "Remark 3", "Remark 4"]:
        assert needed in refs, needed


def test_a_check_that_crashes_is_failed_not_passed():
    from local2global.proofs import Claim, Context, run_claim

    def boom(form, ctx):
        raise ZeroDivisionError("x")

    c = Claim(id="t.crash", ref="T", title="t", statement="", check=boom, printed=lambda: 1, mutant=lambda: 2)
    assert run_claim(c, Context()).status == "failed"


def test_a_check_that_accepts_its_mutant_is_failed():
    from local2global.proofs import Claim, Context, Outcome, run_claim

    c = Claim(id="t.vacuous", ref="T", title="t", statement="", check=lambda f, ctx: Outcome(True, "m", "always"),
              printed=lambda: 1, mutant=lambda: 2)
    assert run_claim(c, Context()).status == "failed"


def test_check_command_lists_and_selects_claims(capsys):
    from local2global.cli import main

    assert main(["check", "--list", "--only", "lemma5"]) == 0
    out = capsys.readouterr().out
    assert "lemma5.quadratic" in out and "lemma3.gradient" not in out
    assert main(["check", "--only", "no.such.claim"]) == 2
    assert "unknown claim" in capsys.readouterr().err


@pytest.mark.slow
def test_records_do_not_depend_on_the_number_of_worker_processes():
    from local2global.proofs import Context, run_claims
    from local2global.proofs._registry import closure

    # full.normal and full.eq3 are one batch (one task, one worker): the records still come back in order
    claims = select(["sec2", "lemma5.quadratic", "lemma12", "lemma10", "fig5", "full.normal", "full.eq3"])
    one = [r.as_dict() for r in run_claims(claims, Context(points=8), workers=1)]
    two = [r.as_dict() for r in run_claims(claims, Context(points=8), workers=2)]
    assert [r["id"] for r in two] == [c.id for c in closure(claims)]
    assert one == two


def test_a_batch_is_one_task_and_the_other_claims_one_task_each_later_sections_first():
    from local2global.proofs._registry import _tasks, closure

    claims = closure(select(["lemma5.quadratic", "full.normal", "fig5", "full.eq3"]))
    batches, single = _tasks(claims)
    torch_ids = [c.id for c in claims if c.batch == "torch"]
    assert batches == [torch_ids] and set(torch_ids) >= {"full.normal", "full.eq3"}
    assert single == [c.id for c in claims if not c.batch][::-1]


@pytest.mark.slow
def test_registering_the_claims_does_not_import_torch():
    """torch's import (about 3 s) is paid by the worker that runs the full-model batch, not by registration."""
    import subprocess
    import sys

    code = ("import sys; from local2global.proofs import load_all; load_all(); print('torch' in sys.modules); "
            "from local2global.proofs import claims_40_fullmodel as m; m.torch.float64; print('torch' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["False", "True"]


@pytest.mark.parametrize("value", ["0", "-2", "x", "1.5", "65"])
def test_check_refuses_a_bad_worker_count(capsys, value):
    from local2global.cli import main

    assert main(["check", "--only", "lemma5.quadratic", "--workers", value]) == 2
    cap = capsys.readouterr()
    assert cap.out == "" and len(cap.err.strip().splitlines()) == 1


def test_a_partial_check_never_replaces_the_full_report(tmp_path, monkeypatch, capsys):
    from local2global.cli import main

    monkeypatch.chdir(tmp_path)
    assert main(["check", "--only", "lemma5.quadratic"]) == 0
    assert not (tmp_path / "build").exists()
    assert "report not written" in capsys.readouterr().err
    assert main(["check", "--only", "lemma5.quadratic", "--out", "part"]) == 0
    assert (tmp_path / "part" / "report.md").is_file()


def test_no_claim_points_the_reader_at_a_document_they_lack():
    """Titles, statements, references and domains are what the PDF, the site and the report print: none names the
    authors' formula sheet (the reader has the paper only), so no output has to strip it."""
    bad = [(c.id, field) for c in select() for field in ("title", "statement", "ref", "domain")
           if re.search(r"formula[ -]sheet", str(getattr(c, field) or ""), re.I)]
    assert bad == []
