"""A citable build: one source of the citation (CITATION.cff and the README's BibTeX are what `provenance`
generates), and a provenance (version, commit, date) that never reads the clock, is refused when malformed and says
"not built from a checkout" for a copy git does not track."""
import re
import subprocess
from pathlib import Path

import pytest

from local2global.proofs.outputs import provenance as P

ROOT = Path(__file__).resolve().parents[1]


def test_citation_cff_is_the_generated_one():
    assert (ROOT / "CITATION.cff").read_text(encoding="utf-8") == P.citation_cff()


def test_readme_prints_the_generated_bibtex():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"^```bibtex\n(.*?)^```$", readme, re.S | re.M)
    assert blocks == [P.bibtex()]


def test_bibtex_follows_the_citation_data():
    """The BibTeX is built from PAPER and SOFTWARE, not typed beside them: changing the data changes it."""
    text = P.bibtex("9.9.9")
    assert "version = {9.9.9}" in text and P.PAPER["arxiv"] in text
    for first, last in P.PAPER["authors"]:
        assert f"{last}, {first}" in " ".join(text.split())
    assert max(map(len, text.splitlines())) <= 100          # printed whole by the PDF's verbatim block
    assert text.count("{") == text.count("}")
    changed = dict(P.PAPER, year=1999)
    try:
        P.PAPER, saved = changed, P.PAPER
        assert "year      = {1999}" in P.bibtex("9.9.9")
    finally:
        P.PAPER = saved


def test_citation_cff_is_valid_cff_1_2():
    """The keys CFF 1.2.0 requires, with the paper as preferred citation and as a reference (the file was also
    validated against the CFF 1.2.0 schema with cffconvert, which is not a dependency)."""
    yaml = pytest.importorskip("yaml")
    data = yaml.safe_load(P.citation_cff("1.2.3"))
    assert data["cff-version"] == "1.2.0" and data["type"] == "software" and data["version"] == "1.2.3"
    for key in ("message", "title", "authors"):
        assert data[key]
    for paper in (data["preferred-citation"], data["references"][0]):
        assert paper["type"] == "conference-paper" and paper["year"] == 2024
        assert [a["family-names"] for a in paper["authors"]][0] == "Makkuva" and len(paper["authors"]) == 7
        assert paper["identifiers"][0]["value"] == "arXiv:2406.03072"


def test_source_date_epoch_is_read_and_a_malformed_one_refused():
    assert P.source_date_epoch({}) is None and P.source_date_epoch({"SOURCE_DATE_EPOCH": ""}) is None
    assert P.source_date_epoch({"SOURCE_DATE_EPOCH": "1700000000"}) == 1700000000
    for bad in ("-5", "1.5", "12a", "now", "1" * 13):
        with pytest.raises(P.ProvenanceError, match="SOURCE_DATE_EPOCH"):
            P.source_date_epoch({"SOURCE_DATE_EPOCH": bad})


def test_the_date_comes_from_source_date_epoch_then_the_commit_never_the_clock(tmp_path):
    here = Path(P.__file__).with_name("__init__.py")
    prov = P.current({"SOURCE_DATE_EPOCH": "86400"}, here)
    assert prov.date == "1970-01-02" and prov.date_source == "SOURCE_DATE_EPOCH"
    assert "from SOURCE_DATE_EPOCH" in prov.date_text()
    commit, _, committed, _ = P.checkout_state(here)
    if commit is None:
        pytest.skip("not run from a git checkout")
    git = P.current({}, here)
    assert git.commit == commit and re.fullmatch(r"[0-9a-f]{40}", commit)
    assert git.epoch == committed and git.date_source == "commit"
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=here.parent, capture_output=True, text=True).stdout.strip()
    assert commit == head
    # a copy of the package git does not track (a wheel's) has no commit and, without SOURCE_DATE_EPOCH, no date
    copy = tmp_path / "outputs" / "__init__.py"
    copy.parent.mkdir()
    copy.write_text(here.read_text())
    none = P.current({}, copy)
    assert none.commit is None and none.epoch is None and none.commit_text() == "not built from a checkout"
    assert "no commit" in none.date_text()


def test_derive_and_all_refuse_a_malformed_source_date_epoch_before_any_work(tmp_path, monkeypatch, capsys):
    from local2global.cli import main
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "yesterday")
    for argv in (["derive", "--out", str(tmp_path / "d")], ["all", "--out", str(tmp_path / "a"), "--no-figures"]):
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "SOURCE_DATE_EPOCH" in err and "Traceback" not in err
    assert not (tmp_path / "d").exists() and not (tmp_path / "a").exists()
