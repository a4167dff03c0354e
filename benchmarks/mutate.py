"""Mutation testing of the claim registry: perturb every claim's statement, expect `failed`.

For each registered (non-open) claim, take its statement's form (`claim.printed()`, or for an erratum
our `claim.corrected()`: the printed form of an erratum fails already, so mutating it proves nothing)
and derive mutants generically:
  scale  - the first numeric coefficient (in tree order, not 0 or +-1 if possible) is doubled;
  sign   - the first argument of the first sum is negated (the whole expression if there is no sum);
           a class label becomes its opposite (global_min <-> local_min, ...), a set loses an element;
  shift  - the constant 1 is added (to the first entry of a matrix/tuple/dict).
Matrices mutate their first non-zero entry, tuples/lists/dicts their first mutable element
(recursively), relations and And/Or their first mutable side; a plain number is negated or shifted.
Each mutant goes through the claim's own check (`claim.check(mutant, Context())`); it is *killed* when
the check returns ok=False, which is exactly when `l2g check` would report the mutated claim `failed`.
A check that raises counts as killed but is listed separately (killed by error); mutants equal to the
original form (the operator found nothing to change) are reported as not applicable, never as kills,
and a claim that no operator can perturb is listed under `claims_without_mutant` (a failure). A mutant
the claim's statement implies (a bound made weaker: still true, so its check must accept it) is listed in
`IMPLIED` with its reason and reported as implied, outside the rate; if its check rejects it, the run fails.

    python benchmarks/mutate.py [--only ID ...] [--json build/mutation.json] [--points N] [--timeout S]

A mutant whose check exceeds --timeout seconds is reported as `timeout` (neither killed nor survived;
a failure of the run). Exit status 0 only when every applicable mutant was killed.
"""
from __future__ import annotations

import argparse
import json
import signal
import sys
import time
from fractions import Fraction
from pathlib import Path

import sympy as sp
from dataclasses import replace

from local2global.proofs import Context, REGISTRY, load_all
from local2global.proofs._registry import _safe
from local2global.symbolic.sets import Basin, Piece

OPERATORS = ("scale", "sign", "shift")

#: altered statements that the claim's own statement implies (weaker, hence true): its check is right to accept
#: them. Keyed "id:operator", with the mutant meant (a triage never covers another mutant once the statement
#: changes) and why. Reported as "implied", outside the rate; one that is killed is a contradiction (the triage
#: or the check is wrong) and fails the run.
IMPLIED = {
    "full.theta_min_bound:scale": ("70", "|R_n| <= 35 r|e|^2 implies |R_n| <= 70 r|e|^2: a weaker bound, true"),
    "full.theta_min_bound:shift": ("36", "|R_n| <= 35 r|e|^2 implies |R_n| <= 36 r|e|^2: a weaker bound, true"),
}


def _first_number(expr: sp.Basic):
    nums = [a for a in sp.preorder_traversal(expr) if isinstance(a, sp.Number) and a != 0]
    preferred = [n for n in nums if abs(n) != 1]
    return (preferred or nums or [None])[0]


def _mutate_expr(expr: sp.Basic, op: str):
    if op == "scale":
        n = _first_number(expr)
        if n is None:
            return None
        return expr.xreplace({n: 2 * n})
    if op == "sign":
        for node in sp.preorder_traversal(expr):
            if isinstance(node, sp.Add):
                args = list(node.args)
                new = sp.Add(-args[0], *args[1:])
                return expr.xreplace({node: new})
        return -expr
    if op == "shift":
        return expr + 1
    raise ValueError(op)


# categorical statements (classes, limits, labels): the "sign" of a label is its opposite
OPPOSITE = {"global_min": "local_min", "local_min": "global_min", "local_max": "saddle", "saddle": "local_max",
            "entropy_rate": "marginal_entropy", "marginal_entropy": "entropy_rate",
            "defined": "undefined", "undefined": "defined",
            "attracting": "repelling", "repelling": "attracting",
            # the fates of the descending line (r3.trichotomy) and the starts Lemma 15 speaks of (lemma15.convergence:
            # the paper's "every start")
            "axis": "C", "C": "axis", "sampled": "every", "every": "sampled"}


def mutate(form, op: str):
    """A mutant of a statement's form or None (nothing to change). Forms: SymPy expressions, relations
    and And/Or of them, matrices, tuples/lists/dicts thereof (the first entry that mutates, in order),
    numbers (int, Fraction), class labels (str: `sign` swaps to the OPPOSITE label) and sets of labels
    (`sign` drops one)."""
    if isinstance(form, Basin):
        # a basin of a theorem: `sign` gives its region to the OPPOSITE class, the others alter a condition
        if op == "sign":
            cls = OPPOSITE.get(form.limit_class)
            return None if cls is None else replace(form, limit_class=cls)
        pieces = mutate(form.pieces, op) if form.pieces is not None else None
        return None if pieces is None else replace(form, pieces=pieces)
    if isinstance(form, Piece):
        conds = mutate(form.conditions, op)
        return None if conds is None else Piece(conds)
    if isinstance(form, sp.MatrixBase):
        m = sp.Matrix(form)
        for i in range(len(m)):
            if m[i] != 0:
                new = mutate(m[i], op)
                if new is not None:
                    m[i] = new
                    return m
        return None
    if isinstance(form, (tuple, list)):
        for i, item in enumerate(form):
            new = mutate(item, op)
            if new is not None:
                out = list(form)
                out[i] = new
                return type(form)(out) if isinstance(form, tuple) else out
        return None
    if isinstance(form, dict):
        for key, item in form.items():
            new = mutate(item, op)
            if new is not None:
                return {**form, key: new}
        return None
    if isinstance(form, str):
        return OPPOSITE.get(form) if op == "sign" else None
    if isinstance(form, (set, frozenset)):
        return type(form)(sorted(form)[1:]) if op == "sign" and form else None
    if isinstance(form, bool) or form is None:
        return None
    if isinstance(form, (int, float, Fraction)):
        return {"scale": 2 * form if form not in (0, 1, -1) else None, "sign": -form, "shift": form + 1}[op]
    if isinstance(form, (sp.And, sp.Or)):
        for i, arg in enumerate(form.args):
            new = mutate(arg, op)
            if new is not None:
                return type(form)(*form.args[:i], new, *form.args[i + 1:], evaluate=False)
        return None
    if isinstance(form, sp.logic.boolalg.Boolean) and not isinstance(form, sp.Expr):
        if isinstance(form, sp.core.relational.Relational):
            lhs = mutate(form.lhs, op) if op != "sign" else form.lhs
            rhs = form.rhs if op != "sign" else -form.rhs
            if lhs is None or (op == "sign" and rhs == form.rhs):       # -0 == 0: nothing changed
                lhs, rhs = (-form.lhs, form.rhs) if op == "sign" else (lhs, rhs)
            return None if lhs is None else type(form)(lhs, rhs)
        return None
    if isinstance(form, sp.Basic):
        return _mutate_expr(form, op)
    return None


def _same(a, b) -> bool:
    """Structural equality: the operator changed nothing. (A mutant that differs in form but is equal in
    value would be an equivalent mutant; the claim's own check decides that, and it then shows up as
    SURVIVED, never hidden as "not applicable". Simplifying here took minutes on the large gradients.)"""
    try:
        return bool(a == b)
    except Exception:           # noqa: BLE001 - a comparison SymPy cannot decide is no equality
        return False


def _show(form) -> str:
    try:
        return sp.sstr(form)[:200]
    except Exception:           # noqa: BLE001 - e.g. tuples of Fractions, which SymPy's printer cannot parenthesize
        return repr(form)[:200]


class _Timeout(BaseException):
    """BaseException, so that no `except Exception` inside a check (or `_safe`) can swallow it."""


def _alarm(signum, frame):
    raise _Timeout()


def _check_with_timeout(check, mutant, ctx, seconds: int):
    """The claim's check, interrupted after `seconds` (then reported as timeout, never as a kill)."""
    old = signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(seconds)
    try:
        return check(mutant, ctx)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def _summary(rows) -> dict:
    applied = [r for r in rows if r["result"] in ("killed", "killed by error", "SURVIVED")]
    killed = [r for r in applied if r["result"].startswith("killed")]
    return {
        "claims": len({r["id"] for r in rows}),
        "mutants_run": len(applied),
        "killed": len(killed),
        "killed_by_error": sum(r["result"] == "killed by error" for r in applied),
        "survived": [f"{r['id']}:{r['operator']}" for r in applied if r["result"] == "SURVIVED"],
        "implied": [f"{r['id']}:{r['operator']}" for r in rows if r["result"] == "implied"],
        # a mutant the triage calls implied (true) but the check rejected: the triage or the check is wrong
        "triage_contradicted": [f"{r['id']}:{r['operator']}" for r in applied if r.get("implied")],
        "timed_out": [f"{r['id']}:{r['operator']}" for r in rows if r["result"] == "timeout"],
        "not_applicable": [f"{r['id']}:{r['operator']}" for r in rows if r["result"] == "not applicable"],
        # a claim no operator could perturb would escape this test altogether: listed, and a failure
        "claims_without_mutant": sorted({r["id"] for r in rows if r["operator"] != "-"}
                                        - {r["id"] for r in rows if r["result"] not in ("not applicable",)}),
        "skipped": [r["id"] for r in rows if r["result"].startswith("skipped")],
        "kill_rate": f"{len(killed)}/{len(applied)}" + (f" = {100 * len(killed) / len(applied):.1f}%" if applied else ""),
    }


def run(ids=None, points: int = 24, timeout: int = 120, sink=None) -> dict:
    load_all()
    ctx = Context(points=points)
    rows = []
    for cid, cl in REGISTRY.items():
        if ids and not any(cid == i or cid.startswith(i + ".") for i in ids):
            continue
        if cl.open_reason:
            rows.append({"id": cid, "operator": "-", "result": "skipped: open claim (no check)"})
            continue
        # an erratum's printed form already fails: mutate the statement that passes, our correction
        which = "corrected" if cl.corrected is not None else "printed"
        try:
            printed = cl.corrected() if cl.corrected is not None else cl.printed()
        except Exception as ex:     # noqa: BLE001 - reported in the row, the other claims still run
            rows.append({"id": cid, "operator": "-", "result": f"skipped: {which}() raised {type(ex).__name__}"})
            continue
        for op in OPERATORS:
            try:
                mutant = mutate(printed, op)
            except Exception as ex:     # noqa: BLE001 - an operator that breaks is reported, not fatal
                mutant, why = None, f"{type(ex).__name__}: {ex}"
            else:
                why = "operator found nothing to change"
            if mutant is None or _same(mutant, printed):
                rows.append({"id": cid, "operator": op, "form": which, "result": "not applicable", "why": why[:200],
                             "printed_type": type(printed).__name__})
                continue
            t0 = time.perf_counter()
            try:
                out = _safe(lambda f, c: _check_with_timeout(cl.check, f, c, timeout), mutant, ctx)
            except _Timeout:    # raised past _safe (BaseException)
                out = None
            dt = time.perf_counter() - t0
            if out is None:
                rows.append({"id": cid, "operator": op, "form": which, "result": "timeout", "seconds": round(dt, 2),
                             "mutant": _show(mutant)})
                print(f"[mutate] {cid} {op}: timeout ({dt:.1f} s)", file=sys.stderr, flush=True)
                if sink:
                    sink({"summary": _summary(rows), "mutants": rows})
                continue
            if not out.ok and "_Timeout" in out.evidence:
                result = "timeout"
            elif not out.ok:
                result = "killed by error" if out.method == "error" else "killed"
            else:
                result = "SURVIVED"
            row = {"id": cid, "operator": op, "form": which, "result": result, "seconds": round(dt, 2),
                   "mutant": _show(mutant), "evidence": out.evidence[:200]}
            meant, why_implied = IMPLIED.get(f"{cid}:{op}", (None, ""))
            if meant is not None and meant == row["mutant"]:
                row["implied"] = why_implied
                if result == "SURVIVED":
                    row["result"] = result = "implied"
            rows.append(row)
            print(f"[mutate] {cid} {op}: {result} ({dt:.1f} s)", file=sys.stderr, flush=True)
            if sink:
                sink({"summary": _summary(rows), "mutants": rows})
    return {"summary": _summary(rows), "mutants": rows}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description="mutation testing of the claim registry")
    ap.add_argument("--only", nargs="*", help="claim ids or prefixes")
    ap.add_argument("--json", default=str(Path(__file__).resolve().parent.parent / "build" / "mutation.json"))
    ap.add_argument("--points", type=int, default=24, help="sample points per sampled check (Context.points)")
    ap.add_argument("--timeout", type=int, default=120, help="seconds per mutant check (then: timeout, not a kill)")
    args = ap.parse_args(argv)
    path = Path(args.json)
    path.parent.mkdir(parents=True, exist_ok=True)

    def sink(res):      # written after every mutant, so a long run leaves its partial result
        path.write_text(json.dumps(res, indent=2, sort_keys=True) + "\n")
    res = run(args.only, args.points, args.timeout, sink)
    sink(res)
    print(json.dumps(res["summary"], indent=2))
    summary = res["summary"]
    bad = (summary["survived"] or summary["timed_out"] or summary["claims_without_mutant"]
           or summary["triage_contradicted"])
    return 0 if not bad else 1


if __name__ == "__main__":
    raise SystemExit(main())
