"""Outputs that are whole or marked, in-process (the interrupted commands themselves: tests/test_interrupt.py): files
of one `atomic_group` appear together or not at all, the temporary files an interruption removes are known, and
`l2g all`'s manifest tells a finished folder from an unfinished one."""
import json
import os

import pytest

from local2global.numeric.infra import atomic
from local2global.proofs.outputs import manifest


def test_a_group_of_files_appears_only_when_the_group_ends(tmp_path):
    with atomic.atomic_group():
        atomic.atomic_write(tmp_path / "fig.pdf", b"pdf")
        atomic.atomic_write(tmp_path / "fig.png", b"png")
        assert not (tmp_path / "fig.pdf").exists() and not (tmp_path / "fig.png").exists()
        assert len(atomic._in_flight) == 2                  # an interruption now would remove both
    assert (tmp_path / "fig.pdf").read_bytes() == b"pdf" and (tmp_path / "fig.png").read_bytes() == b"png"
    assert sorted(os.listdir(tmp_path)) == ["fig.pdf", "fig.png"] and not atomic._in_flight


def test_a_group_that_fails_leaves_the_previous_files_and_no_temporary_one(tmp_path):
    (tmp_path / "fig.pdf").write_bytes(b"old pdf")
    (tmp_path / "fig.png").write_bytes(b"old png")
    with pytest.raises(RuntimeError):
        with atomic.atomic_group():
            atomic.atomic_write(tmp_path / "fig.pdf", b"new pdf")
            raise RuntimeError("the PNG could not be drawn")
    assert (tmp_path / "fig.pdf").read_bytes() == b"old pdf" and (tmp_path / "fig.png").read_bytes() == b"old png"
    assert sorted(os.listdir(tmp_path)) == ["fig.pdf", "fig.png"] and not atomic._in_flight


def test_the_temporary_files_of_an_interrupted_write_are_removed(tmp_path):
    # an interrupted process never reaches the group's end; here it does, and finds its temporary file gone
    with pytest.raises(FileNotFoundError):
        with atomic.atomic_group():
            atomic.atomic_write(tmp_path / "report.md", "half")
            folder = atomic.temp_folder(".site-", dir=tmp_path)
            assert len(os.listdir(tmp_path)) == 2
            atomic.remove_in_flight()                       # what the interruption does before it exits
            assert os.listdir(tmp_path) == [] and not folder.exists()
    assert os.listdir(tmp_path) == [] and not atomic._in_flight


def test_the_manifest_marks_a_folder_incomplete_until_the_run_finishes(tmp_path):
    assert manifest.incomplete(tmp_path) is None            # a folder `l2g all` never wrote
    manifest.begin(tmp_path)
    assert "interrupted or failed" in manifest.incomplete(tmp_path)
    (tmp_path / "report.md").write_text("r")
    (tmp_path / "figures").mkdir()
    (tmp_path / "figures" / "fig1a.png").write_bytes(b"p")
    manifest.finish(tmp_path, [tmp_path / "report.md", tmp_path / "figures"])
    data = json.loads((tmp_path / manifest.NAME).read_text())
    assert data["complete"] is True and sorted(data["files"]) == ["figures/fig1a.png", "report.md"]
    assert manifest.incomplete(tmp_path) is None
    (tmp_path / "figures" / "fig1a.png").unlink()
    assert "missing" in manifest.incomplete(tmp_path) and "fig1a.png" in manifest.incomplete(tmp_path)
    (tmp_path / manifest.NAME).write_text("{")
    assert "cannot be read" in manifest.incomplete(tmp_path)
