"""`l2g eval`: the canonical loss landscape at one point (A, b*, reduced loss, gradient, Hessian, critical set).

Parsing and validation only; the values and the critical-set membership come from
`local2global.numeric.evaluate.pointeval.evaluate_point`.
"""
from __future__ import annotations

import json

from fractions import Fraction

from ._common import UsageError, add_json_flag, computation_error, exact_number, precision, probability

NAME = "eval"
HELP = "evaluate A, b*, the reduced loss, its gradient and Hessian (and with --b the loss in R^3) at a point"
SUMMARY = 'A, b*, the reduced loss, its gradient and Hessian at one point'
EXAMPLE = "l2g eval --p 0.2 --q 0.3 --e 1 --w 0.5"

#: largest |e|, |w|, |b| accepted (A = e^2(1+2w|w|) then stays far inside what mpmath handles quickly)
LIMIT = 1e4


def add_arguments(parser) -> None:
    parser.add_argument("--p", required=True, help="switching probability p = P(1|0), in (0, 1); exact (0.2 or 1/5)")
    parser.add_argument("--q", required=True, help="switching probability q = P(0|1), in (0, 1)")
    parser.add_argument("--e", required=True, help="embedding scalar e")
    parser.add_argument("--w", required=True, help="feed-forward scalar w")
    parser.add_argument("--b", default=None, help="bias b: also evaluate the loss with bias in R^3")
    parser.add_argument("--a", default=None, help="attention scalar a (Sec. 4.1): evaluate in R^3 = (e, w, a) "
                        "and with --b in R^4; vectors and matrices then use the order e, w, a, b")
    parser.add_argument("--dps", default="50", help="significant digits (15..1000, default 50)")
    add_json_flag(parser, "the values")


def _bounded(value: Fraction, name: str) -> Fraction:
    # not _common.bounded: its message formats float(value), which overflows for inputs like 1e400
    if abs(value) > LIMIT:
        raise UsageError(f"{name} must have magnitude at most {LIMIT:g}")
    return value


def _point(args):
    p, q = probability(args.p, "--p"), probability(args.q, "--q")
    e = _bounded(exact_number(args.e, "--e"), "--e")
    w = _bounded(exact_number(args.w, "--w"), "--w")
    b = None if args.b is None else _bounded(exact_number(args.b, "--b"), "--b")
    dps = precision(args.dps, "--dps", lo=15, hi=1000)
    return p, q, e, w, b, dps


def _table_attention(res: dict) -> str:
    names = "ewab"
    rows = [("A", res["A"]), ("b*", res["b_star"]), ("L(e, w, a)", res["loss"])]
    rows += [(f"dL/d{names[i]}", res["grad"][i]) for i in range(3)]
    rows += [(f"H_{names[i]}{names[j]}", res["hessian"][i][j]) for i in range(3) for j in range(i, 3)]
    rows += [("critical (R^3)", str(res["critical"]))]
    if "loss_b" in res:
        rows += [("L(e, w, a, b)", res["loss_b"])]
        grad_b, hess_b = res["grad_b"], res["hessian_b"]
        rows += [(f"dL/d{names[i]}", grad_b[i] if grad_b else "undefined (kink at 1 + a e^2 = 0)") for i in range(4)]
        rows += ([(f"H_{names[i]}{names[j]}", hess_b[i][j]) for i in range(4) for j in range(i, 4)] if hess_b
                 else [("Hessian (R^4)", "undefined on 1 + a e^2 = 0")])
        rows += [("critical (R^4)", str(res["critical_b"]))]
    width = max(len(r[0]) for r in rows)
    return "\n".join(f"{k:<{width}}  {v}" for k, v in rows)


def _table(res: dict) -> str:
    rows = [("A", res["A"]), ("b*", res["b_star"]), ("L(e, w)", res["loss"]),
            ("dL/de", res["grad"][0]), ("dL/dw", res["grad"][1]),
            ("H_ee", res["hessian"][0][0]), ("H_ew", res["hessian"][0][1]), ("H_ww", res["hessian"][1][1]),
            ("critical (R^2)", str(res["critical"]))]
    if "loss_b" in res:
        names = "ewb"
        rows += [("L(e, w, b)", res["loss_b"])]
        rows += [(f"dL/d{names[i]}", res["grad_b"][i]) for i in range(3)]
        rows += [(f"H_{names[i]}{names[j]}", res["hessian_b"][i][j]) for i in range(3) for j in range(i, 3)]
        rows += [("critical (R^3)", str(res["critical_b"]))]
    width = max(len(r[0]) for r in rows)
    lines = [f"{k:<{width}}  {v}" for k, v in rows]
    if "note" in res:
        lines.append(f"note: {res['note']}")
    return "\n".join(lines)


def run(args) -> int:
    from local2global.numeric.evaluate.pointeval import evaluate_point

    p, q, e, w, b, dps = _point(args)
    if args.a is not None:
        from local2global.numeric.evaluate.pointeval import attention_point
        a = _bounded(exact_number(args.a, "--a"), "--a")
        try:
            res = attention_point(p, q, e, w, a, b, dps)
        except (ValueError, TypeError) as ex:
            raise UsageError(str(ex).splitlines()[0]) from None
        except ArithmeticError as ex:
            raise computation_error("the values at this point", ex, dps) from None
        print(json.dumps(res, indent=2) if args.json else _table_attention(res))
        return 0
    try:
        res = evaluate_point(p, q, e, w, b, dps)
    except (ValueError, TypeError) as ex:          # invariants refused by the numeric layer
        raise UsageError(str(ex).splitlines()[0]) from None
    except ArithmeticError as ex:
        raise computation_error("the values at this point", ex, dps) from None
    print(json.dumps(res, indent=2) if args.json else _table(res))
    return 0
