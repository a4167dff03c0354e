r"""MPFR arithmetic (gmpy2) for the flows' inner loop, and the same interface over mpmath.

The gradient flows spend most of their time evaluating a short compiled expression (∇L, E, the distances)
and combining vectors; gmpy2's correctly rounded MPFR numbers do that about five times faster than mpmath's
pure-Python mpf. Nothing is compiled twice: `rebind(fn)` takes a function made by `compile_mp` (the code
lambdify wrote for mpmath) and binds the same code to gmpy2's functions. A function whose code names anything
without an MPFR counterpart is refused (`ValueError`), so mpf and mpfr are never mixed silently.

`specialise(fn, *fixed)` fixes the first arguments (the chain's p, q in the flows' gradient) and evaluates the parts
of the code that involve only them once.

`MPMATH` and `MPFR` are the two arithmetics the integrator can run in (`numeric.dynamics.flow.integrate`):
`context()` is the precision context (MPFR's precision is set to mpmath's current `mp.prec` bits, with the
widest exponent range MPFR allows, so no overflow mpmath would not have), `num` makes a number from an int or
an mpf, `to_mpf` converts back. Both conversions are exact at equal precision.
"""
from __future__ import annotations

import ast
import contextlib
import functools
import linecache
import types
from typing import NamedTuple

import gmpy2
import mpmath as mp


def _sign(x):
    """sign(x) as the int -1, 0 or 1, the value gmpy2.sign returns (0 at ±0 and NaN too), by two comparisons:
    gmpy2.sign costs about 2 µs a call, a sixth of a whole evaluation of the flows' gradient."""
    return (x > 0) - (x < 0)


#: the names lambdify's mpmath code may use, bound to their MPFR counterparts
_NAMES = {"exp": gmpy2.exp, "log": gmpy2.log, "sqrt": gmpy2.sqrt, "sign": _sign, "mpf": gmpy2.mpfr,
          "abs": abs, "sin": gmpy2.sin, "cos": gmpy2.cos, "tanh": gmpy2.tanh, "atan": gmpy2.atan}
#: names in the code that are not looked up in the namespace (attributes of generated tuples, builtins we allow)
_HARMLESS = {"range", "len", "tuple", "list"}


def rebind(fn):
    """The code of the compiled mpmath function `fn`, evaluated in MPFR (arguments and results gmpy2.mpfr)."""
    code = fn.__code__
    unknown = sorted(n for n in code.co_names if n not in _NAMES and n not in _HARMLESS)
    if unknown:
        raise ValueError(f"no MPFR counterpart for {', '.join(unknown)} in {fn.__name__}")
    env = dict(fn.__globals__)
    env.update(_NAMES)
    return types.FunctionType(code, env, fn.__name__, fn.__defaults__, fn.__closure__)


def specialise(fn, *fixed):
    """`rebind(fn)` with its first arguments fixed to the MPFR numbers `fixed`: a function of the other arguments.

    The subexpressions of the generated code that involve only fixed arguments (in the flows' gradient p + q, pq,
    2pq, 4pq and p^2 + q^2: a quarter of its arithmetic) are evaluated once, here, in the current MPFR context;
    every other operation is the one the code performs, on the same operands in the same order. MPFR rounds each
    operation correctly, so every value is the one `rebind(fn)(*fixed, ...)` computes at that precision, bit for
    bit (tests/test_mpfr_specialise.py): build and call it in the same context. Without the source of fn (the code
    lambdify wrote, at hand in linecache unless the function was read back from the derivation cache) this is
    `functools.partial(rebind(fn), *fixed)`, the same numbers again."""
    bound = rebind(fn)
    plan = _hoisting_plan(fn.__code__, len(fixed))
    if plan is None:
        return functools.partial(bound, *fixed)
    env = dict(bound.__globals__)
    env.update(zip(plan.fixed, fixed))
    for name, code in plan.constants:
        env[name] = eval(code, env)          # a piece of the code lambdify wrote, in the current context
    return types.FunctionType(plan.code, env, fn.__name__)


class _Plan(NamedTuple):
    fixed: tuple          # the names of the fixed arguments
    constants: tuple      # (name, compiled expression) in the order of evaluation
    code: types.CodeType  # the function of the remaining arguments, reading the constants as globals


@functools.lru_cache(maxsize=None)
def _hoisting_plan(code: types.CodeType, n_fixed: int) -> _Plan | None:
    """How `specialise` splits the code of a generated function (straight-line assignments and a return), or None
    when its source is not at hand or not of that shape."""
    source = "".join(linecache.getlines(code.co_filename))
    try:
        tree = ast.parse(source)
        module = compile(source, code.co_filename, "exec")
    except (SyntaxError, ValueError):
        return None
    same = [c for c in module.co_consts if isinstance(c, types.CodeType)
            and (c.co_code, c.co_consts, c.co_names, c.co_varnames) == (code.co_code, code.co_consts, code.co_names,
                                                                         code.co_varnames)]
    if len(tree.body) != 1 or not isinstance(tree.body[0], ast.FunctionDef) or not same:
        return None                                  # the source in linecache is not the code's own
    fdef = tree.body[0]
    a = fdef.args
    if a.posonlyargs or a.vararg or a.kwonlyargs or a.kwarg or a.defaults or fdef.decorator_list:
        return None
    names = [x.arg for x in a.args]
    simple = all(isinstance(st, ast.Return) or (isinstance(st, ast.Assign) and len(st.targets) == 1
                                                  and isinstance(st.targets[0], ast.Name)) for st in fdef.body)
    assigned = [st.targets[0].id for st in fdef.body if isinstance(st, ast.Assign)] if simple else []
    if not simple or len(assigned) != len(set(assigned)) or set(assigned) & set(names):
        return None
    known = set(names[:n_fixed])                     # names whose value is fixed
    used = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)} | set(names)
    constants = []

    def fixed_only(node) -> bool:
        if isinstance(node, ast.Constant):
            return True
        if isinstance(node, ast.Name):
            return node.id in known
        if isinstance(node, ast.BinOp):
            return fixed_only(node.left) and fixed_only(node.right)
        if isinstance(node, ast.UnaryOp):
            return fixed_only(node.operand)
        if isinstance(node, ast.Call):                # a function of _NAMES: pure, not shadowed by an argument
            return (isinstance(node.func, ast.Name) and node.func.id in _NAMES and node.func.id not in names
                    and not node.keywords and all(fixed_only(x) for x in node.args))
        return False

    class Hoist(ast.NodeTransformer):
        def visit(self, node):
            if isinstance(node, ast.expr) and not isinstance(node, (ast.Constant, ast.Name)) and fixed_only(node) \
                    and any(isinstance(n, ast.Name) for n in ast.walk(node)):
                name = f"_fixed{len(constants)}"
                while name in used:
                    name += "_"
                constants.append((name, node))
                return ast.copy_location(ast.Name(id=name, ctx=ast.Load()), node)
            return self.generic_visit(node)

    body = []
    for st in fdef.body:
        if isinstance(st, ast.Assign) and fixed_only(st.value):        # a whole assignment of fixed values
            constants.append((st.targets[0].id, st.value))
            known.add(st.targets[0].id)
        else:
            body.append(Hoist().visit(st))
    fdef.args.args = a.args[n_fixed:]
    fdef.body = body
    new = compile(ast.fix_missing_locations(tree), code.co_filename, "exec")
    fcode = next(c for c in new.co_consts if isinstance(c, types.CodeType))
    return _Plan(tuple(names[:n_fixed]),
                 tuple((n, compile(ast.Expression(ex), code.co_filename, "eval")) for n, ex in constants), fcode)


def to_mpfr(x) -> gmpy2.mpfr:
    """An mpf (or int) as an mpfr at the current MPFR precision (exact when that is at least mpf's)."""
    if isinstance(x, int):
        return gmpy2.mpfr(x)
    sign, man, exp, bc = x._mpf_
    if not man:
        if x == 0:
            return gmpy2.mpfr(0)
        return gmpy2.mpfr(str(x))                     # inf, -inf, nan
    v = gmpy2.mul_2exp(gmpy2.mpfr(man), exp)
    return -v if sign else v


def from_mpfr(x) -> mp.mpf:
    """An mpfr as an mpf at the current mpmath precision (exact when that is at least the mpfr's)."""
    if not gmpy2.is_finite(x):
        return mp.mpf(str(x))
    if x == 0:
        return mp.mpf(0)
    man, exp = x.as_mantissa_exp()
    return mp.mpf((int(man), int(exp)))


class _Mpmath:
    """mpmath's mpf: the integrator's default (callbacks take and return mpf)."""

    name = "mpmath"
    inf = mp.inf
    sqrt = staticmethod(mp.sqrt)
    fsum = staticmethod(mp.fsum)
    isfinite = staticmethod(mp.isfinite)

    @staticmethod
    def context():
        return contextlib.nullcontext()

    @staticmethod
    def num(x):
        return x if isinstance(x, mp.mpf) else mp.mpf(x)

    @staticmethod
    def to_mpf(x):
        return x


class _Mpfr:
    """gmpy2's mpfr at mpmath's current binary precision (callbacks take and return mpfr)."""

    name = "mpfr"
    inf = gmpy2.inf()
    sqrt = staticmethod(gmpy2.sqrt)
    isfinite = staticmethod(gmpy2.is_finite)

    @staticmethod
    def fsum(xs):
        return gmpy2.fsum(list(xs))

    @staticmethod
    def context():
        return gmpy2.context(gmpy2.get_context(), precision=mp.mp.prec, emax=gmpy2.get_emax_max(),
                             emin=gmpy2.get_emin_min())

    num = staticmethod(to_mpfr)
    to_mpf = staticmethod(from_mpfr)


MPMATH = _Mpmath()
MPFR = _Mpfr()
