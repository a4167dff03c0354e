"""`l2g fullmodel`: the full transformer (torch, float64) next to the symbolic model at a canonical point.

Parsing and validation only; the values come from `local2global.numeric.transformer.experiments.side_by_side`
(population loss by exact enumeration of all 2^N sequences, autograd through the canonical map).
"""
from __future__ import annotations

import json

from ._common import UsageError, add_json_flag, bounded, exact_number, integer, probability

NAME = "fullmodel"
HELP = ("full single-layer transformer vs the symbolic model at a canonical point: losses, gradients over "
        "(e, w[, a], b) and their differences; --untied: the transformer without weight tying, over (e, w, h, b)")
SUMMARY = 'the full torch transformer next to the symbolic model at a canonical point'
EXAMPLE = "l2g fullmodel --p 0.2 --q 0.3 --e 1 --w 0.5 --N 4"

#: |e|, |w|, |a|, |b| beyond this overflow float64 logits (e^2 (1 + 2w|w|) enters an exponential)
LIMIT = 20
MAX_D, MAX_N = 64, 14


def add_arguments(parser) -> None:
    parser.add_argument("--p", required=True, help="switching probability p = P(1|0), in (0, 1); exact (0.2 or 1/5)")
    parser.add_argument("--q", required=True, help="switching probability q = P(0|1), in (0, 1)")
    parser.add_argument("--e", required=True, help="embedding scalar e")
    parser.add_argument("--w", required=True, help="feed-forward scalar w (w != 0: |w| is not differentiable at 0)")
    parser.add_argument("--a", default=None, help="attention scalar a: use linear attention (Sec. 4.1 of the paper, Eqs. 39-41)")
    parser.add_argument("--untied", action="store_true", help="the untied transformer: the head is a parameter of "
                        "its own, h alpha on the canonical manifold (needs --h); gradients over (e, w, h, b)")
    parser.add_argument("--h", default=None, help="head scale h of the untied model (with --untied; h = e is tying)")
    parser.add_argument("--b", default=None, help="bias b (default: the optimal bias b*, Lemma 5 / 13)")
    parser.add_argument("--d", default="2", help=f"embedding dimension d (1..{MAX_D}, default 2)")
    parser.add_argument("--N", default="5", help=f"sequence length N (1..{MAX_N}, default 5; 2^N sequences)")
    add_json_flag(parser, "the comparison")


def _int(text: str, name: str, lo: int, hi: int) -> int:
    return integer(text, name, lo, hi)


def _inputs(args):
    p, q = probability(args.p, "--p"), probability(args.q, "--q")
    e = bounded(exact_number(args.e, "--e"), "--e", LIMIT)
    w = bounded(exact_number(args.w, "--w"), "--w", LIMIT)
    if w == 0:
        raise UsageError("--w must be nonzero (the canonical map uses |w|, not differentiable at w = 0)")
    a = None if args.a is None else bounded(exact_number(args.a, "--a"), "--a", LIMIT)
    b = None if args.b is None else bounded(exact_number(args.b, "--b"), "--b", LIMIT)
    d = _int(args.d, "--d", 1, MAX_D)
    N = _int(args.N, "--N", 1, MAX_N)
    if args.h is not None and not args.untied:
        raise UsageError("--h is the head scale of the untied model: it needs --untied")
    h = None
    if args.untied:
        if a is not None:
            raise UsageError("--untied and --a cannot be combined (the untied model is derived without attention)")
        if args.h is None:
            raise UsageError("--untied needs --h (the head scale h; h = e is the tied model)")
        h = bounded(exact_number(args.h, "--h"), "--h", LIMIT)
    return p, q, e, w, a, b, d, N, h


#: what the digits of `l2g fullmodel` are (the convention of `numeric.precision`: a value to the digits its error
#: supports, and what that error is)
DIGITS = ("both columns are float64 computations (torch; the symbolic model lambdified), with no error bound: each "
          "row is printed to the decimal place of its estimate max(|difference|, 4 ulp), an estimate, not a bound")
ULPS = 4


def row_error(x: float, y: float) -> float:
    """The error estimate of one row of the table: the two float64 values' difference, at least ULPS units in the
    last place of the larger (two independent float64 computations agreeing to 1 ulp are not exact)."""
    import math
    return max(abs(x - y), ULPS * math.ulp(max(abs(x), abs(y), 1e-300)))


def _table(res: dict) -> str:
    from local2global.numeric.precision import with_errors
    sym, full = res["symbolic"], res["full"]
    rows = [("", "symbolic", "full model", "difference")]
    pairs = [("loss", sym["loss"], full["loss"])] + [(f"dL/d{n}", sym["grad"][n], full["grad"][n]) for n in sym["grad"]]
    for name, x, y in pairs:
        (tx, ty), _ = with_errors([x, y], row_error(x, y))
        rows.append((name, tx, ty, f"{abs(y - x):.2g}"))
    widths = [max(len(r[i]) for r in rows) for i in range(4)]
    lines = ["  ".join(c.ljust(wd) for c, wd in zip(r, widths)).rstrip() for r in rows]
    if "normal_norm" in full:
        lines.append(f"full gradient over all parameters: |grad| = {full['gradient_norm']:.6g}, part normal to the "
                     f"canonical manifold: {full['normal_norm']:.6g}")
    pt = res["point"]
    (b_text,), b_err = with_errors([pt["b_value"]], row_error(pt["b_value"], pt["b_value"]))
    lines.append(f"max |difference| = {res['max_abs_diff']:.2g}   "
                 f"(b = {pt['b']} = {b_text} ± {b_err}, d = {pt['d']}, N = {pt['N']}, {pt['attention']} attention"
                 + (", untied head" if pt.get("head") == "untied" else "") + ")")
    lines.append(f"digits: {DIGITS}")
    return "\n".join(lines)


def run(args) -> int:
    p, q, e, w, a, b, d, N, h = _inputs(args)
    from local2global.numeric.transformer.experiments import side_by_side

    try:
        res = side_by_side(p, q, e, w, b, a, d=d, N=N, h=h)
    except (ValueError, TypeError, OverflowError) as ex:     # invariants refused by the numeric layer
        raise UsageError(str(ex).splitlines()[0]) from None
    res["digits"] = DIGITS
    print(json.dumps(res, indent=2) if args.json else _table(res))
    return 0
