"""benchmarks/mutate_code.py: its operators produce valid code that differs, skip what they must, the
sample is deterministic and spread over the files, the isolated tree imports its own copy (not the
editable install), and on a fast stage a known-bad mutant is killed while a no-op survives."""
from __future__ import annotations

import ast
import importlib.util
import json
import sys
import tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("mutate_code", ROOT / "benchmarks" / "mutate_code.py")
M = importlib.util.module_from_spec(_spec)
sys.modules["mutate_code"] = M          # dataclasses look their module up
_spec.loader.exec_module(M)

SAMPLE = '''"""Module docstring 1 + 2."""
import mpmath as mp
GUARD = 10


def f(x, dps=30, lo=0, hi=1):
    """Docstring with 0 < 1."""
    if x < 0 and not lo:
        raise ValueError(f"bad {x + 1}")
    print("x", 2 * x)
    with mp.workdps(dps + GUARD):
        tol = mp.mpf(10) ** (-(dps - 5))
    y = x - 3 if x > hi else -x
    return min(lo, y), tol
'''


def _mutants(source=SAMPLE, rel="sample.py"):
    return M._Enumerator(source, rel).run()


@pytest.fixture(scope="module")
def candidates():
    return M.enumerate_mutants(ROOT)


@pytest.mark.slow
def test_every_operator_application_is_valid_code_that_differs_from_the_original(candidates):
    ms = candidates
    assert len(ms) > 1000 and {m.operator for m in ms} == set(M.OPERATORS)
    sources = {}
    for m in ms:
        src = sources.setdefault(m.file, (ROOT / m.file).read_text(encoding="utf-8"))
        new = M.apply(src, m)
        assert new != src
        compile(new, m.file, "exec")            # raises on invalid code


def test_operators_change_what_they_name_and_nothing_in_strings_raise_or_print():
    ms = _mutants()
    by_op = {}
    for m in ms:
        by_op.setdefault(m.operator, []).append((m.original, m.replacement))
    assert ("x < 0", "(x <= 0)") in by_op["compare"] and ("x > hi", "(x < hi)") in by_op["compare"]
    assert ("x < 0 and not lo", "(x < 0 or not lo)") in by_op["boolop"]
    assert ("not lo", "(lo)") in by_op["not_remove"]
    assert ("min", "max") in by_op["name_swap"] and ("lo", "hi") in by_op["name_swap"]
    assert ("x - 3 if x > hi else -x", "(-x if x > hi else x - 3)") in by_op["branch"]
    assert ("-x", "(x)") in by_op["neg_remove"] and ("x - 3", "(x + 3)") in by_op["arith"]
    assert ("x - 3", "(x)") in by_op["drop_term"] and ("x - 3", "(-3)") in by_op["drop_term"]
    assert {r for o, r in by_op["precision"]} >= {"9", "11", "0", "29", "31"}      # GUARD = 10, dps=30
    assert ("5", "4") in by_op["tolerance"] and ("5", "6") in by_op["tolerance"]
    assert ("min(lo, y), tol", "((tol, min(lo, y)))") in by_op["return_swap"]
    # docstrings, the raise statement (and its f-string), print's arguments are never touched
    touched = {m.line for m in ms}
    assert not touched & {1, 7, 9, 10}
    for m in ms:                           # every mutant of the sample is valid and differs
        new = M.apply(SAMPLE, m)
        assert new != SAMPLE and ast.parse(new)


ROUNDING_SAMPLE = '''import math
import sympy as sp
from flint import arb


def g(x, f, y, q, mode="down"):
    lo, hi = arb(x).lower(), arb(x).upper()
    n = q.numerator // q.denominator if mode == "down" else -((-q.numerator) // q.denominator)
    return lo, hi, n, math.floor(x), round(x), sp.diff(f, y), sp.diff(f, y, 2), f.diff(y, x)
'''


def test_rounding_and_derivative_order_operators_flip_directions_and_orders():
    by_op = {}
    for m in _mutants(ROUNDING_SAMPLE):
        by_op.setdefault(m.operator, set()).add((m.original, m.replacement))
        assert ast.parse(M.apply(ROUNDING_SAMPLE, m))
    r, d = by_op["rounding"], by_op["deriv_order"]
    # outward rounding lost (midpoint) or turned inward (the other bound)
    assert {("arb(x).lower()", "(arb(x).mid())"), ("arb(x).lower", "(arb(x).upper)"),
            ("arb(x).upper()", "(arb(x).mid())")} <= r
    assert ("q.numerator // q.denominator", "(-(-q.numerator // q.denominator))") in r    # floor -> ceiling
    assert ("-((-q.numerator) // q.denominator)", "(q.numerator // q.denominator)") in r  # ceiling -> floor
    assert {("math.floor", "(math.ceil)"), ("round(x)", "(math.floor(x))"), ("round(x)", "(math.ceil(x))"),
            ('"down"', "'up'")} <= r
    assert {("sp.diff(f, y)", "(sp.diff(f, y, 2))"), ("sp.diff(f, y, 2)", "(sp.diff(f, y))"),
            ("sp.diff(f, y, 2)", "(sp.diff(f, y, 3))"), ("f.diff(y, x)", "(f.diff(y))"),
            ("f.diff(y, x)", "(f.diff(y, x, 2))")} <= d
    assert not any(o == "name_swap" and a in ("math.floor", "arb(x).lower") for o, ms in by_op.items() for a, _ in ms)


@pytest.mark.slow
def test_selection_is_deterministic_spread_over_files_and_seeded(candidates):
    ms = candidates
    a = [(m.id, m.key) for m in M.select(M.enumerate_mutants(ROOT), 80, 0)]      # a fresh enumeration
    b = [(m.id, m.key) for m in M.select(list(ms), 80, 0)]
    c = [m.key for m in M.select(list(ms), 80, 1)]
    assert a == b and len(a) == 80 and len({k for _, k in a}) == 80
    assert [k for _, k in a] != c
    files_with_candidates = {m.file for m in ms}
    assert {m.file for m in M.select(ms, 80, 0)} == files_with_candidates
    assert {m.file.split("/")[0] for m in M.select(ms, 80, 0)} == {"symbolic", "numeric", "proofs"}
    assert files_with_candidates <= set(M.TEST_MAP)        # every mutated module names its tests
    assert [f for f in M.TEST_MAP if not (ROOT / f).is_file()] == []          # and names only files that exist
    assert [t for ts in M.TEST_MAP.values() for t in ts if not (ROOT / t).is_file()] == []


@pytest.mark.slow
def test_isolated_tree_imports_its_own_copy_not_the_editable_install():
    rel = "symbolic/markov.py"
    src = (ROOT / rel).read_text(encoding="utf-8")
    with tempfile.TemporaryDirectory() as tmp:
        env = M.make_tree(ROOT, Path(tmp), M._tree_files(ROOT), {rel: src + "\nMUTANT_MARK = 1\n"})
        probe = ("import json, local2global, local2global.symbolic.markov as mk\n"
                 "print(json.dumps([local2global.__file__, mk.__file__, mk.MUTANT_MARK]))")
        status, rc, out, _ = M._run([sys.executable, "-c", probe], Path(tmp) / "tree", env, 300)
        assert status == "ok" and rc == 0, out
        top, markov, mark = json.loads(out.strip().splitlines()[-1])
        assert top.startswith(tmp) and markov.startswith(tmp) and mark == 1
    assert not hasattr(importlib.import_module("local2global.symbolic.markov"), "MUTANT_MARK")


@pytest.mark.slow
def test_a_known_bad_mutant_is_killed_by_check_and_a_noop_edit_survives():
    rel = "symbolic/markov.py"
    bad = next(m for m in M.enumerate_mutants(ROOT, [rel]) if m.operator == "neg_remove" and m.original == "-self.pi0")
    fast = dict(tests=[], check_args=["--only", "sec2.marginal_entropy"], stages=("check",))
    r = M.run_mutant(bad, ROOT, 300, 1, **fast)
    assert r["outcome"] == "killed" and r["stage"] == "check"
    assert r["stages"][0]["failed_claims"] == ["sec2.marginal_entropy"]
    src = (ROOT / rel).read_text(encoding="utf-8")
    noop = M.run_mutant(bad, ROOT, 300, 1, mutated_source=src + "\n# no-op\n", **fast)
    assert noop["outcome"] == "survived" and noop["stage"] is None


def test_a_stage_that_never_executes_the_mutated_line_is_recorded_as_not_executed():
    m = next(m for m in M.enumerate_mutants(ROOT, ["symbolic/markov.py"]) if m.operator == "neg_remove")
    cov = {"check": {"symbolic/markov.py": []}, "tests": {"symbolic/markov.py": []}}
    r = M.run_mutant(m, ROOT, 300, 1, cov=cov)
    assert r["outcome"] == "survived" and all(s.get("not_executed") for s in r["stages"])
    assert M.auto_reason(m, cov)[0].startswith("not executed")
    seen = {"check": {"symbolic/markov.py": list(m.stmt_lines)}, "tests": {}}
    assert M.executed_by(m, seen) == {"check": True, "tests": False}
    assert M.executed_by(M.Mutant("numeric/infra/executor.py", 1, 0, 1, 1, "x", "a", "b", "f", (1,)), seen) == {}


def test_kill_rates_count_timeouts_and_errors_as_kills_and_say_which_stage():
    recs = [{"file": "a", "operator": "o", "outcome": o, "stage": s}
            for o, s in (("killed", "check"), ("timeout", "check"), ("error", "tests"), ("killed", "tests"),
                         ("survived", None))]
    s = M.summarize(recs)
    assert s["kill_rate_check"] == "2/5 = 40.0%" and s["kill_rate_check_and_tests"] == "4/5 = 80.0%"
    assert (s["timeout"], s["error"], s["survived"]) == (1, 1, 1)


@pytest.mark.parametrize("argv", [["--only", "proofs/claims_10_landscape.py"], ["--limit", "0"], ["--seed", "x"], ["--ids", "M5"], ["--ids", "M9-M3"],
                                  ["--extra", "foo=1"], ["--extra", "rounding=0"]])
def test_bad_arguments_exit_2_with_one_line(argv, capsys):
    assert M.main([*argv, "--list"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("mutate_code:")


def test_the_check_runs_only_the_claims_that_execute_the_statement_else_every_claim():
    ms = _mutants()
    body = next(m for m in ms if m.operator == "name_swap" and m.original == "min")     # in f's body
    header = next(m for m in ms if m.operator == "precision" and m.original == "30")    # f's default
    module = next(m for m in ms if m.line == 3)                                         # GUARD = 10
    assert body.in_def and not header.in_def and not module.in_def
    cov = {"check_ctx": {"sample.py": {str(body.line): ["lemma5.b_star", "sec2.stationary"],
                                       str(header.line): ["lemma5.b_star"], "3": [""]}}}
    assert M.check_claims(body, cov) == ["lemma5.b_star", "sec2.stationary"]
    assert M.check_claims(header, cov) is None and M.check_claims(module, cov) is None
    assert M.check_claims(body, {"check_ctx": {}}) == [] and M.check_claims(body, None) is None
    cov["check_ctx"]["sample.py"][str(body.line)].append("")                            # also run at import
    assert M.check_claims(body, cov) is None


def test_equivalent_survivors_leave_the_denominator_and_a_killed_equivalent_is_a_contradiction():
    recs = [{"file": "a", "operator": "o", "outcome": o, "stage": s, "key": k, "id": i}
            for i, (o, s, k) in enumerate((("killed", "check", "k1"), ("survived", None, "k2"),
                                           ("survived", None, "k3"), ("killed", "tests", "k4")))]
    s = M.summarize(recs, {"k2": {"verdict": "equivalent", "why": "x"}})
    assert s["kill_rate_non_equivalent"] == "2/3 = 66.7%" and s["equivalent"] == [1] and not s["triage_contradicted"]
    s = M.summarize(recs, {"k4": {"verdict": "equivalent", "why": "x"}})
    assert s["triage_contradicted"] == [3] and s["kill_rate_non_equivalent"] == "2/4 = 50.0%"


def test_triage_entries_need_a_reason(tmp_path):
    f = tmp_path / "t.json"
    f.write_text('{"k": {"verdict": "equivalent", "why": ""}}')
    with pytest.raises(ValueError):
        M.load_triage(f)
    f.write_text('{"k": {"verdict": "equivalent", "why": "a cache-key length"}}')
    assert M.load_triage(f)["k"]["why"]
    assert all(v["why"] for v in M.load_triage().values())


def test_kills_carry_only_when_the_code_and_the_killing_test_file_are_unchanged():
    import subprocess
    head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=M.ROOT, capture_output=True,
                          text=True).stdout.strip()
    assert M.carry_blockers(M.ROOT, head + "+dirty") and M.carry_blockers(M.ROOT, "unknown")
    rec = lambda stage, test: {"outcome": "killed", "stage": stage,
                               "stages": [{"failing_test": [test]}] if test else []}
    assert M.carried_kill(M.ROOT, head, rec("check", None))
    assert not M.carried_kill(M.ROOT, head, {"outcome": "survived", "stage": None})
    assert not M.carried_kill(M.ROOT, head, rec("tests", None))
    # a test file that does not exist at that commit (untracked or new) is never "unchanged"
    assert not M.carried_kill(M.ROOT, head, rec("tests", "tests/no_such_file_xyz.py::test_x"))
    if M.file_unchanged(M.ROOT, head, "tests/test_engine.py"):       # (unless this tree edits it)
        assert M.carried_kill(M.ROOT, head, rec("tests", "tests/test_engine.py::test_x"))


def test_a_test_file_new_since_a_carried_baseline_is_never_skipped():
    m = next(x for x in _mutants() if x.in_def)
    cov = {"check": {m.file: list(m.stmt_lines)}, "tests": {}}
    assert M.executed_by(m, cov) == {"check": True, "tests": False}
    old = M.TEST_MAP.get(m.file)
    M.TEST_MAP[m.file] = ["tests/test_new_file.py"]
    try:
        assert M.executed_by(m, {**cov, "fresh_tests": ["tests/test_new_file.py"]})["tests"] is True
    finally:
        if old is None:
            del M.TEST_MAP[m.file]
        else:
            M.TEST_MAP[m.file] = old


def test_extra_mutants_of_an_operator_join_the_sample_once_each_spread_over_files():
    ms = [M.Mutant(f"f{i % 3}.py", i, 0, i, 1, "rounding" if i % 2 else "compare", "a", f"b{i}", "g", (i,))
          for i in range(1, 30)]
    base = M.select(list(ms), 5, 29)
    out = M.add_extra(base, ms, {"rounding": 4}, 29)
    extra = [m for m in out if m.key not in {b.key for b in base}]
    assert len(out) == 9 and len({m.key for m in out}) == 9 and {m.operator for m in extra} == {"rounding"}
    assert len({m.file for m in extra}) == 3                   # spread: every file before a second from one
    assert [m.id for m in out] == [f"M{i:03d}" for i in range(1, 10)]
    assert [m.key for m in M.add_extra(base, ms, {"rounding": 4}, 29)] == [m.key for m in out]
