"""`l2g eval`: the canonical loss landscape at one point (A, b*, reduced loss, gradient, Hessian, critical set).

Parsing and validation only; the values and the critical-set membership come from
`local2global.numeric.evaluate.pointeval.evaluate_point`.
"""
from __future__ import annotations

import json

from fractions import Fraction

from ._common import UsageError, add_json_flag, computation_error, dps_help, dps_of, exact_number, probability

NAME = "eval"
HELP = ("evaluate A, b*, the reduced loss, its gradient and Hessian (and with --b the loss in R^3) at a point; "
        "--untied: the model without weight tying")
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
    parser.add_argument("--untied", action="store_true", help="the model without weight tying (the paper's premise "
                        "dropped): the head is h alpha, evaluate in R^3 = (e, w, h) and with --b in R^4 (needs --h)")
    parser.add_argument("--h", default=None, help="head scale h of the untied model (with --untied; h = e is tying)")
    parser.add_argument("--dps", default=None, help=dps_help("eval", "significant digits"))
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
    dps = dps_of(args.dps, "eval")
    return p, q, e, w, b, dps


def _table(res: dict, names: str) -> str:
    """The eval table for parameters `names` ("ew" or "ewa"; with --b the loss with bias adds "b")."""
    n = len(names)
    space = f"R^{n}"
    rows = [("A", res["A"]), ("b*", res["b_star"]), (f"L({', '.join(names)})", res["loss"])]
    rows += [(f"dL/d{names[i]}", res["grad"][i]) for i in range(n)]
    if res["hessian"] is not None:
        rows += [(f"H_{names[i]}{names[j]}", res["hessian"][i][j]) for i in range(n) for j in range(i, n)]
    else:
        one = res["hessian_one_sided"]
        for i in range(n):
            for j in range(i, n):
                plus, minus = one["w->0+"][i][j], one["w->0-"][i][j]
                rows.append((f"H_{names[i]}{names[j]}", plus if plus == minus else
                             f"undefined at w = 0; one-sided: {plus} (w -> 0+), {minus} (w -> 0-)"))
    rows += [(f"critical ({space})", res["critical"] or "not a critical point")]
    if "loss_b" in res:
        nb = names + "b"
        rows += [(f"L({', '.join(nb)})", res["loss_b"])]
        grad_b, hess_b = res["grad_b"], res["hessian_b"]
        rows += [(f"dL/d{nb[i]}", grad_b[i] if grad_b else "undefined (kink at 1 + a e^2 = 0)") for i in range(n + 1)]
        rows += ([(f"H_{nb[i]}{nb[j]}", hess_b[i][j]) for i in range(n + 1) for j in range(i, n + 1)] if hess_b
                 else [(f"Hessian (R^{n + 1})", "undefined on 1 + a e^2 = 0")])
        rows += [(f"critical (R^{n + 1})", res["critical_b"] or "not a critical point")]
    width = max(len(r[0]) for r in rows)
    lines = [f"{k:<{width}}  {v}" for k, v in rows]
    for key in ("hessian_note", "note"):
        if key in res:
            lines.append(f"note: {res[key]}")
    lines.append(f"digits: {res['digits']}")
    return "\n".join(lines)


def _untied_options(args):
    """The head scale of `--untied --h H`, or None; refuses --h without --untied and --untied with --a."""
    if args.h is not None and not args.untied:
        raise UsageError("--h is the head scale of the untied model: it needs --untied")
    if not args.untied:
        return None
    if args.a is not None:
        raise UsageError("--untied and --a cannot be combined (the untied model is derived without attention)")
    if args.h is None:
        raise UsageError("--untied needs --h (the head scale h; h = e is the tied model)")
    return _bounded(exact_number(args.h, "--h"), "--h")


def run(args) -> int:
    from local2global.numeric.evaluate.pointeval import evaluate_point

    p, q, e, w, b, dps = _point(args)
    h = _untied_options(args)
    a = None if args.a is None else _bounded(exact_number(args.a, "--a"), "--a")
    # one point of one model: (e, w) tied, (e, w, a) with attention, (e, w, h) untied
    names = "ewh" if h is not None else ("ewa" if a is not None else "ew")
    try:
        res = evaluate_point(p, q, e, w, b, dps, a=a, h=h)
    except (ValueError, TypeError) as ex:          # invariants refused by the numeric layer
        raise UsageError(str(ex).splitlines()[0]) from None
    except ArithmeticError as ex:
        raise computation_error("the values at this point", ex, dps) from None
    print(json.dumps(res, indent=2) if args.json else _table(res, names))
    return 0
