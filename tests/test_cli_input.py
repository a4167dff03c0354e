"""Bad input to `l2g eval` and `l2g derive`: exactly one line on stderr, exit code 2, no traceback,
nothing written."""
from __future__ import annotations

import subprocess
import sys

import pytest

from local2global.cli import main

GOOD = {"--p": "0.2", "--q": "0.3", "--e": "1", "--w": "0.5"}


def _eval_args(**override):
    args = dict(GOOD)
    args.update({f"--{k}": v for k, v in override.items()})
    out = ["eval"]
    for k, v in args.items():
        if v is not None:
            out += [k, v]
    return out


BAD_EVAL = [
    dict(p="0"), dict(p="1"), dict(p="-0.2"), dict(q="1.5"), dict(p="nan"), dict(q="inf"), dict(p="-inf"),
    dict(p="abc"), dict(q=""), dict(e="nan"), dict(w="inf"), dict(e="abc"), dict(b="nan"), dict(e="1e400"),
    dict(w="1" + "0" * 300), dict(b="-1e7"), dict(dps="-5"), dict(dps="0"), dict(dps="abc"), dict(dps="1e9"),
    dict(dps="12.5"), dict(p="1/0"), dict(e="0x10"), dict(p=None),
]


def _one_error_line(err: str) -> bool:
    lines = err.strip().splitlines()
    return len(lines) == 1 and lines[0].startswith("l2g: error:") and "Traceback" not in err


@pytest.mark.parametrize("override", BAD_EVAL, ids=lambda d: ",".join(f"{k}={v}" for k, v in d.items()))
def test_bad_eval_input_is_one_stderr_line_and_exit_2(capsys, override):
    assert main(_eval_args(**override)) == 2
    cap = capsys.readouterr()
    assert cap.out == ""
    assert _one_error_line(cap.err), cap.err


def test_unknown_option_and_missing_command_are_usage_errors(capsys):
    for argv in (["eval", "--p", "0.2"], ["eval", *sum(([k, v] for k, v in GOOD.items()), []), "--x", "1"],
                 ["nosuchcommand"]):
        assert main(argv) == 2
        assert _one_error_line(capsys.readouterr().err)


def test_derive_refuses_a_file_as_output_directory(tmp_path, capsys):
    f = tmp_path / "a_file"
    f.write_text("keep me")
    for out in (f, f / "below"):
        assert main(["derive", "--out", str(out)]) == 2
        cap = capsys.readouterr()
        assert _one_error_line(cap.err), cap.err
    assert f.read_text() == "keep me"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a_file"]


def test_derive_refuses_a_bad_records_file(tmp_path, capsys):
    bad = tmp_path / "records.json"
    bad.write_text("{not json")
    out = tmp_path / "out"
    assert main(["derive", "--out", str(out), "--records", str(bad)]) == 2
    assert _one_error_line(capsys.readouterr().err)
    assert main(["derive", "--out", str(out), "--records", str(tmp_path / "missing.json")]) == 2
    assert _one_error_line(capsys.readouterr().err)
    assert not out.exists()                      # nothing written on refusal


@pytest.mark.parametrize("argv", [
    ["eval", "--p", "nan", "--q", "0.3", "--e", "1", "--w", "0"],
    ["eval", "--p", "0.2", "--q", "0.3", "--e", "1", "--w", "0", "--dps", "-3"],
])
def test_bad_input_through_the_real_entry_point(argv):
    out = subprocess.run([sys.executable, "-m", "local2global", *argv], capture_output=True, text=True, timeout=120)
    assert out.returncode == 2
    assert out.stdout == ""
    assert _one_error_line(out.stderr), out.stderr


@pytest.mark.parametrize("argv", [["flow", "--suite", "--out", "{f}/x.json"], ["flow", "--suite", "--out", "{d}"],
                                  ["check", "--only", "sec2", "--out", "{f}"], ["check", "--out", "{f}/sub"]])
def test_long_runs_refuse_an_unwritable_output_path_before_any_work(tmp_path, capsys, argv):
    f = tmp_path / "a_file"
    f.write_text("keep")
    argv = [a.format(f=f, d=tmp_path) for a in argv]
    assert main(argv) == 2
    cap = capsys.readouterr()
    assert cap.out == "" and _one_error_line(cap.err), cap.err
    assert f.read_text() == "keep"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a_file"]


@pytest.mark.parametrize("argv", [["check", "--json", "x.json"], ["flow", "--suite", "--json", "x.json"],
                                  ["flow", "--p", "0.9", "--q", "0.9", "--e0", "1", "--w0", "1", "--json", "x.json"],
                                  ["eval", "--json=x.json"], ["prob", "--json", "out"]])
def test_json_is_a_flag_everywhere_and_a_file_after_it_is_refused_with_the_option_that_writes_one(tmp_path, monkeypatch,
                                                                                                   capsys, argv):
    monkeypatch.chdir(tmp_path)
    assert main(argv) == 2
    cap = capsys.readouterr()
    assert cap.out == "" and _one_error_line(cap.err), cap.err
    assert "--json is a flag" in cap.err
    if argv[0] == "check":
        assert "--out DIR" in cap.err
    if "--suite" in argv or argv[0] == "flow":
        assert "--out FILE" in cap.err
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("argv", [
    ["flow", "--p", "0.9", "--q", "0.9", "--e0", "1", "--w0", "1", "--out", "x.json"],
    ["flow", "--p", "0.9", "--q", "0.9", "--e0", "1", "--w0", "1", "--jobs", "2"],
    ["flow", "--suite", "--p", "0.9"],
    ["flow", "--suite", "--integrate-k", "7"],
    ["flow", "--suite", "--integrate-k", ""],
])
def test_flow_refuses_options_that_do_not_apply_instead_of_ignoring_them(tmp_path, monkeypatch, capsys, argv):
    monkeypatch.chdir(tmp_path)
    assert main(argv) == 2
    cap = capsys.readouterr()
    assert cap.out == "" and _one_error_line(cap.err), cap.err
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("w", ["-1/2", "-1e-3", "-.5", "-0.5"])
def test_negative_fractions_and_exponents_are_values_not_options(capsys, w):
    assert main(["eval", "--p", "0.2", "--q", "0.3", "--e", "1", "--w", w, "--dps", "15"]) == 0
    assert capsys.readouterr().out.startswith("A ")
