"""Mutation testing of the implementation: small semantic changes to our code, run against `l2g check` and tests.

benchmarks/mutate.py mutates claim *statements* and asks whether each claim's check rejects them. This script
asks the converse question: when the *code* that derives, evaluates and checks (symbolic/*.py,
numeric/**/*.py, proofs/_certify.py, proofs/_checks.py) is wrong in a small way, does anything notice?

Operators (AST-based; each mutant replaces one node's source text by `ast.unparse` of the changed node):
  constant   c -> c+1, c -> 2c, 0 <-> 1 (ints and floats)
  rational   the arguments of Rational(a, b) / Fraction(a, b) / Integer(a): a or b -> +1 (1/2 -> 1/3)
  precision  offsets next to dps / prec / GUARD, the arguments of workdps/workprec, GUARD itself: +-1, 0
  tolerance  exponents of 10 ** (...): +-1
  bool       True <-> False
  neg_remove unary minus removed;  neg_insert  -(...) around the value of an assignment or return
  arith      + <-> -
  drop_term  one operand of a + or - removed
  compare    < <-> <=, > <-> >=, < <-> >, <= <-> >=, == <-> !=, is <-> is not, in <-> not in
  boolop     and <-> or;  not_remove  `not` removed
  branch     an if/else (or a conditional expression) with its branches swapped
  name_swap  u_plus <-> u_minus, lo <-> hi, min <-> max, ... (only to a name that the same file already uses)
  return_swap  `return x, y` -> `return y, x`
  rounding   a rounding direction: floor <-> ceil, x.lower() <-> x.upper(), x.lower()/x.upper() -> x.mid()
             (an arb bound replaced by the midpoint: outward rounding lost; files that use arb), a // b <->
             -(-a // b) (floor <-> ceiling division), round(x) -> math.floor(x) / math.ceil(x), the rounding
             mode strings "down" <-> "up", "nearest" -> "down" / "up"
  deriv_order  the order of a derivative: diff(f, x) -> diff(f, x, 2), diff(f, x, n) -> diff(f, x, n - 1)
             (n = 2: diff(f, x)) and diff(f, x, n + 1), diff(f, x, y) -> diff(f, x) (a mixed partial loses a
             variable)
Never mutated: docstrings and other strings, f-strings, `raise` statements, assert messages, annotations,
arguments of printing / logging / progress calls (print, nstr, tqdm, warn, ...), lru_cache sizes.

The sample is deterministic: every possible mutant is enumerated in file and tree order, each file gets a
quota proportional to its number of candidates (at least one), and a seeded RNG picks within a file
round-robin over the operators (distinct lines first).

Each mutant runs in an isolated copy of the tree (hard links where possible; the mutated file is a new
inode) made importable without pip: a temporary site folder maps `local2global`, `local2global.symbolic`,
... onto the copied folders as pyproject.toml's package-dir does, and goes first on PYTHONPATH, ahead of
any editable install (which setuptools appends to sys.meta_path, after the path finder). Before the
benchmark a *sanity* phase proves this: the imported modules' files lie in the copy, a no-op mutant
survives `l2g check` and every mapped test file (the baseline), and a mutant that must be killed is.

Stages per mutant: (1) `python -m local2global check --workers W [--only CLAIMS]` (killed when it exits 1,
i.e. a claim is `failed`, or with any other non-zero code: an error); (2) only when the check passes,
`pytest -x -q` on the test files that cover the mutated module (TEST_MAP, explicit below); (3) when both
passed and (1) ran only some claims, the full `l2g check` (no mutant survives on a selection alone). Outcomes: killed
(stage: check or tests), timeout (the stage ran past --timeout: counted as killed, listed), error (the stage
crashed rather than reported: counted as killed, listed), survived.

Coverage of the baseline (default on; --no-coverage runs every stage of every mutant in full) saves runs
that cannot change anything, and classifies survivors:
  - a stage whose baseline never executes the mutated statement is not run (recorded `not_executed`): a
    deterministic program that never reaches the change behaves as the original;
  - the baseline's claims run one by one in one process with one coverage context per claim; stage (1)
    then runs only the claims whose context executes the mutated statement (`claims` in the record), and
    the full `l2g check` when the statement runs at import time, outside a function body, or in
    NEVER_SKIP. A claim that only *reads* a value cached by an earlier claim (the caches are shared in one
    process) is not in that statement's context, so a selective check can miss a kill that the full check
    would make: a mutant that passes the selection and the tests therefore faces the full check before it
    counts as a survivor (stage 3).

    python benchmarks/mutate_code.py [--limit 80] [--only FILE] [--jobs 1] [--seed 0] [--timeout 600]
                                     [--extra OP=N,...] [--fast-tests] [--workers 2] [--no-coverage] [--list] [--json F] [--md F]

Triage: benchmarks/mutation_triage.json names, by mutant key, the survivors judged *equivalent* (no input
changes any result: a cache-key length, a guard digit that only costs time, ...), each with its reason;
the headline kill rate is over the non-equivalent mutants. A killed mutant the triage calls equivalent
is reported as a contradiction (the triage is wrong), never silently excluded.

--carry OLD.json reuses the *kills* of an earlier run of the same mutants when nothing they depend on has
changed since that run's commit: no file outside tests/ differs (git diff against that commit, untracked
files included), and, for a kill by the tests stage, the killing test file is byte-identical. Adding
tests can then only add kills, so only the survivors are run again. Carried records say so
(`carried_from`).

Writes build/mutation_code.json and build/mutation_code.md (deterministic for given outcomes; run times
go to build/mutation_code.timing.json). Exit 0 when the run completed (survivors are the result, not a
failure), 2 on bad arguments, 3 when the sanity phase fails (then no kill rate is reported).
"""
from __future__ import annotations

import argparse
import ast
import concurrent.futures as cf
import difflib
import hashlib
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TARGET_GLOBS = ("symbolic/*.py", "numeric/**/*.py", "proofs/_certify.py", "proofs/_checks.py", "proofs/_ratfield.py")

# package-dir of pyproject.toml: import name -> folder of the tree
PACKAGE_DIR = {"local2global": "src/local2global", "local2global.symbolic": "symbolic",
               "local2global.numeric": "numeric", "local2global.proofs": "proofs",
               "local2global.notebooks": "notebooks"}

#: module (file of the tree) -> the test files that exercise it. Chosen from the imports of the tests and
#: what they call; the test files that recompute every claim (test_claims, test_report via the session
#: fixture) are left out because stage 1 runs every claim already.
_SYM_CORE = ["tests/test_engine.py", "tests/test_eval.py", "tests/test_properties.py"]
TEST_MAP: dict[str, list[str]] = {
    "symbolic/__init__.py": ["tests/test_derive.py"],
    "symbolic/_result.py": ["tests/test_derive.py"],
    "symbolic/_simplify.py": ["tests/test_derive.py"],
    "symbolic/_symbols.py": ["tests/test_engine.py"],
    "symbolic/markov.py": ["tests/test_eval.py", "tests/test_engine.py", "tests/test_model_derivations.py"],
    "symbolic/canonical.py": ["tests/test_engine.py", "tests/test_fullmodel.py", "tests/test_model_derivations.py"],
    "symbolic/bias.py": _SYM_CORE + ["tests/test_model_derivations.py"],
    "symbolic/landscape.py": _SYM_CORE + ["tests/test_landscape_proofs.py"],
    "symbolic/energy.py": ["tests/test_engine.py", "tests/test_flow.py"],
    "symbolic/basins.py": ["tests/test_basins.py", "tests/test_flow.py", "tests/test_basin_proof.py"],
    "symbolic/basins_r3.py": ["tests/test_basins_r3.py", "tests/test_r3_records.py"],
    "symbolic/basins_untied.py": ["tests/test_untied.py"],
    "symbolic/sets.py": ["tests/test_basins.py", "tests/test_basins_r3.py", "tests/test_basin_proof.py"],
    "symbolic/model.py": _SYM_CORE + ["tests/test_attention.py", "tests/test_landscape_proofs.py",
                                     "tests/test_attention_sets.py", "tests/test_model_derivations.py"],
    "symbolic/_cache.py": ["tests/test_derivation_cache.py"],
    "symbolic/_prederive.py": ["tests/test_derivation_cache.py"],
    "symbolic/latex.py": ["tests/test_derive.py", "tests/test_pdf.py"],
    "numeric/__init__.py": ["tests/test_engine.py"],
    "numeric/evaluate/__init__.py": ["tests/test_engine.py"],
    "numeric/evaluate/engine.py": ["tests/test_engine.py", "tests/test_properties.py", "tests/test_executor.py"],
    "numeric/evaluate/lambdify.py": ["tests/test_engine.py", "tests/test_attention.py", "tests/test_derivation_cache.py"],
    "numeric/evaluate/landscape.py": ["tests/test_engine.py", "tests/test_eval.py", "tests/test_flow.py",
                                      "tests/test_attention.py", "tests/test_check_fast_paths.py"],
    "numeric/evaluate/javascript.py": ["tests/test_explorer.py"],
    "numeric/transformer/weight_tying.py": ["tests/test_untied.py"],
    "numeric/transformer/sweep.py": ["tests/test_sweep.py"],
    "numeric/transformer/phase.py": ["tests/test_sweep.py"],
    "numeric/dynamics/initialisation.py": ["tests/test_basins.py", "tests/test_architecture.py"],
    "numeric/dynamics/basins_untied.py": ["tests/test_untied.py"],
    "numeric/evaluate/pointeval.py": ["tests/test_eval.py", "tests/test_eval_attention.py"],
    "numeric/dynamics/__init__.py": ["tests/test_flow.py"],
    "numeric/dynamics/flow.py": ["tests/test_flow.py", "tests/test_figures_flow.py", "tests/test_attention.py",
                                 "tests/test_mpfr.py"],
    "numeric/evaluate/mpfr.py": ["tests/test_mpfr.py", "tests/test_mpfr_specialise.py", "tests/test_flow.py"],
    "numeric/dynamics/basins.py": ["tests/test_basins.py", "tests/test_figures_flow.py"],
    "numeric/dynamics/gaussian.py": ["tests/test_basins.py", "tests/test_gaussian_certified.py"],
    "numeric/dynamics/basins_r3.py": ["tests/test_basins_r3.py"],
    "numeric/dynamics/prob_r3.py": ["tests/test_basins_r3.py", "tests/test_basins_cli.py", "tests/test_lemma_c_search.py"],
    "numeric/chain.py": ["tests/test_architecture.py", "tests/test_cli_input.py", "tests/test_eval.py"],
    "numeric/precision.py": ["tests/test_flow.py", "tests/test_eval.py", "tests/test_flow_edges.py"],
    "numeric/evaluate/arb.py": ["tests/test_gaussian_certified.py", "tests/test_certify.py", "tests/test_interval_programs.py"],
    "numeric/infra/__init__.py": ["tests/test_executor.py"],
    "numeric/infra/atomic.py": ["tests/test_cli_input.py", "tests/test_whole_outputs.py"],
    "numeric/infra/cache.py": ["tests/test_experiments.py"],
    "numeric/infra/executor.py": ["tests/test_executor.py"],
    "numeric/infra/interrupt.py": ["tests/test_whole_outputs.py", "tests/test_interrupt.py"],
    "numeric/infra/lazy.py": ["tests/test_claims.py"],
    "numeric/transformer/__init__.py": ["tests/test_fullmodel.py"],
    "numeric/transformer/canonical_map.py": ["tests/test_fullmodel.py"],
    "numeric/transformer/experiments.py": ["tests/test_experiments.py", "tests/test_fullmodel_fast_paths.py",
                                           "tests/test_fullmodel.py"],
    "numeric/transformer/fullmodel.py": ["tests/test_fullmodel.py", "tests/test_batched_population_loss.py",
                                         "tests/test_fullmodel_fast_paths.py"],
    "proofs/_certify.py": ["tests/test_certify.py", "tests/test_interval_programs.py"],
    "proofs/_checks.py": ["tests/test_certify.py", "tests/test_mutate.py", "tests/test_check_fast_paths.py"],
    "proofs/_ratfield.py": ["tests/test_ratfield.py", "tests/test_certify.py", "tests/test_check_fast_paths.py"],
}

# the blind spots of issue 29 (the Hessians off e = 0, the stopping rule, intervals at low precision, the sampled-zero
# tolerance, the derived keys, the displayed logit)
for _mod in ("symbolic/model.py", "symbolic/canonical.py", "symbolic/energy.py", "symbolic/bias.py", "symbolic/basins_r3.py",
             "numeric/dynamics/flow.py", "numeric/dynamics/basins.py", "numeric/dynamics/basins_r3.py",
             "numeric/evaluate/arb.py", "numeric/chain.py", "numeric/dynamics/prob_r3.py",
             "numeric/dynamics/initialisation.py", "proofs/_certify.py",
             "proofs/_checks.py"):
    TEST_MAP[_mod] = TEST_MAP[_mod] + ["tests/test_blind_spots.py"]

# tests written for survivors of this benchmark: the contracts of small helpers (one file, so that an
# earlier run's kills by the other test files can be carried: --carry)
_CONTRACTS = "tests/test_helper_contracts.py"
for _mod in ("numeric/evaluate/pointeval.py", "numeric/precision.py", "symbolic/_cache.py", "symbolic/_result.py",
             "numeric/transformer/experiments.py", "proofs/_checks.py", "numeric/dynamics/gaussian.py",
             "symbolic/basins_r3.py", "symbolic/model.py", "symbolic/landscape.py", "symbolic/energy.py"):
    TEST_MAP[_mod] = TEST_MAP[_mod] + [_CONTRACTS]

# calls whose arguments only format, print or report (mutating them changes no result)
SKIP_CALLS = {"print", "nstr", "format", "warn", "info", "debug", "warning", "error", "exception", "critical",
              "write", "tqdm", "set_postfix_str", "set_description", "set_postfix", "sstr", "latex_str", "repr",
              "round_str"}
SKIP_KEYWORDS = {"maxsize", "desc", "unit", "file", "flush", "end", "sep", "disable", "help", "indent"}
PRECISION_NAME = re.compile(r"(dps|prec|guard|digits)", re.I)
NAME_PAIRS = {"min": "max", "max": "min", "floor": "ceil", "ceil": "floor", "minimum": "maximum",
              "maximum": "minimum", "argmin": "argmax", "argmax": "argmin", "amin": "amax", "amax": "amin"}
TOKEN_PAIRS = {"plus": "minus", "minus": "plus", "lo": "hi", "hi": "lo", "upper": "lower", "lower": "upper",
               "left": "right", "right": "left", "pos": "neg", "neg": "pos", "first": "last", "last": "first"}
COMPARE_SWAPS = {ast.Lt: (ast.LtE, ast.Gt), ast.LtE: (ast.Lt, ast.GtE), ast.Gt: (ast.GtE, ast.Lt),
                 ast.GtE: (ast.Gt, ast.LtE), ast.Eq: (ast.NotEq,), ast.NotEq: (ast.Eq,),
                 ast.Is: (ast.IsNot,), ast.IsNot: (ast.Is,), ast.In: (ast.NotIn,), ast.NotIn: (ast.In,)}
OPERATORS = ("constant", "rational", "precision", "tolerance", "bool", "neg_remove", "neg_insert", "arith",
             "drop_term", "compare", "boolop", "not_remove", "branch", "name_swap", "return_swap", "rounding",
             "deriv_order")
#: names whose swap flips a rounding direction (operator `rounding`, not `name_swap`)
ROUNDING_NAMES = {"floor", "ceil", "lower", "upper"}
ROUNDING_MODES = {"down": ("up",), "up": ("down",), "nearest": ("down", "up")}


class UsageError(Exception):
    pass


@dataclass
class Mutant:
    file: str                  # path of the tree, posix
    line: int
    col: int
    end_line: int
    end_col: int
    operator: str
    original: str              # source text of the replaced node
    replacement: str           # its replacement
    function: str              # enclosing def (qualified) or "<module>"
    stmt_lines: tuple          # lines of the enclosing statement (header of a compound one), for coverage
    id: str = ""
    key: str = ""
    in_def: bool = False       # inside a function body (not a header, class body or module level)

    def __post_init__(self):
        self.key = hashlib.sha1(f"{self.file}|{self.line}|{self.col}|{self.end_line}|{self.end_col}|"
                                f"{self.operator}|{self.replacement}".encode()).hexdigest()[:10]


# ------------------------------------------------------------------------------------------ enumeration
def _call_name(node: ast.Call) -> str:
    f = node.func
    return f.id if isinstance(f, ast.Name) else (f.attr if isinstance(f, ast.Attribute) else "")


def _name_of(node) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return ""


def _mentions_precision(node) -> bool:
    return any(PRECISION_NAME.search(_name_of(n) or "") for n in ast.walk(node))


def _is_ten(node) -> bool:
    if isinstance(node, ast.Constant) and node.value == 10 and not isinstance(node.value, bool):
        return True
    return (isinstance(node, ast.Call) and len(node.args) == 1 and isinstance(node.args[0], ast.Constant)
            and node.args[0].value == 10)


def _is_str_concat(node) -> bool:
    """A chain of + with a string literal (or f-string) among its operands."""
    while isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        if any(isinstance(x, ast.JoinedStr) or (isinstance(x, ast.Constant) and isinstance(x.value, str))
               for x in (node.left, node.right)):
            return True
        node = node.left
    return False


class _Enumerator:
    """Pre-order walk of one module collecting (node, operator, new node) candidates, with the context
    (skipped region, enclosing function and statement, what a constant stands for) each operator needs."""

    def __init__(self, source: str, rel: str):
        self.source, self.rel = source, rel
        self.tree = ast.parse(source)
        self.lines = source.splitlines(keepends=True)
        self.identifiers = {n.id for n in ast.walk(self.tree) if isinstance(n, ast.Name)} | \
                           {n.attr for n in ast.walk(self.tree) if isinstance(n, ast.Attribute)} | \
                           {n.name for n in ast.walk(self.tree) if isinstance(n, (ast.FunctionDef, ast.ClassDef))}
        self.out: list[Mutant] = []

    # positions are UTF-8 byte columns in `ast`; splice on characters
    def offset(self, line: int, col: int) -> int:
        return sum(len(x) for x in self.lines[:line - 1]) + len(self.lines[line - 1].encode()[:col].decode())

    def segment(self, node) -> str:
        return self.source[self.offset(node.lineno, node.col_offset):self.offset(node.end_lineno, node.end_col_offset)]

    def add(self, node, operator: str, new, ctx):
        text = new if isinstance(new, str) else ast.unparse(new)
        if not isinstance(node, (ast.Constant, ast.Name)) or text.startswith("-"):
            text = f"({text})"
        original = self.segment(node)
        if text == original:
            return
        self.out.append(Mutant(self.rel, node.lineno, node.col_offset, node.end_lineno, node.end_col_offset,
                               operator, original, text, ctx["func"], ctx["stmt"], in_def=ctx.get("in_def", False)))

    def run(self) -> list[Mutant]:
        self.visit(self.tree, {"func": "<module>", "stmt": (), "parents": ()})
        return self.out

    def visit(self, node, ctx):
        # regions never mutated
        if isinstance(node, (ast.JoinedStr, ast.Raise, ast.Import, ast.ImportFrom, ast.Global, ast.Nonlocal)):
            return
        if isinstance(node, ast.Call) and _call_name(node) in SKIP_CALLS:
            return
        if isinstance(node, ast.If) and isinstance(node.test, ast.Compare) and _name_of(node.test.left) == "__name__":
            return
        if isinstance(node, ast.stmt):
            if isinstance(node, (ast.If, ast.For, ast.While, ast.With, ast.FunctionDef, ast.ClassDef, ast.Try)):
                first_body = node.body[0].lineno if getattr(node, "body", None) else node.end_lineno + 1
                # a decorated def reports its decorator line to the tracer: the header starts there
                top = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
                lines = tuple(range(top, max(node.lineno, first_body - 1) + 1))
            else:
                lines = tuple(range(node.lineno, node.end_lineno + 1))
            ctx = {**ctx, "stmt": lines}
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            name = node.name if ctx["func"] == "<module>" else f"{ctx['func']}.{node.name}"
            ctx = {**ctx, "func": name}
        self.operators(node, ctx)
        parents = ctx["parents"] + (node,)
        for fname, value in ast.iter_fields(node):
            if fname in ("annotation", "returns", "type_comment"):
                continue
            if isinstance(node, ast.Assert) and fname == "msg":
                continue
            if isinstance(node, ast.Call) and fname == "keywords":
                value = [k for k in value if k.arg not in SKIP_KEYWORDS]
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and fname == "body":
                value = value[1:] if (value and isinstance(value[0], ast.Expr) and isinstance(value[0].value, ast.Constant)
                                      and isinstance(value[0].value.value, str)) else value
            body = isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)) and fname == "body"
            in_def = True if body else (False if isinstance(node, ast.ClassDef) else ctx.get("in_def", False))
            for child in (value if isinstance(value, list) else [value]):
                if isinstance(child, ast.AST):
                    self.visit(child, {**ctx, "parents": parents, "in_def": in_def})

    def constant_kind(self, node, parents) -> str:
        par = parents[-1] if parents else None
        for anc in reversed(parents):
            if isinstance(anc, ast.BinOp) and isinstance(anc.op, ast.Pow) and _is_ten(anc.left) \
                    and any(n is node for n in ast.walk(anc.right)):
                return "tolerance"
        if isinstance(par, ast.Call) and _call_name(par) in ("workdps", "workprec") and node in par.args:
            return "precision"
        if isinstance(par, ast.BinOp) and _mentions_precision(par.left if par.right is node else par.right):
            return "precision"
        if isinstance(par, ast.Assign) and any(PRECISION_NAME.search(_name_of(t)) for t in par.targets):
            return "precision"
        if isinstance(par, ast.arguments):       # a default: dps=30
            pos = par.posonlyargs + par.args
            pairs = list(zip(pos[len(pos) - len(par.defaults):], par.defaults)) + list(zip(par.kwonlyargs, par.kw_defaults))
            if any(d is node and PRECISION_NAME.search(a.arg) for a, d in pairs):
                return "precision"
        if isinstance(par, ast.Call) and _call_name(par) in ("Rational", "Fraction", "Integer") and node in par.args:
            return "rational"
        return "constant"

    def operators(self, node, ctx):
        parents = ctx["parents"]
        if isinstance(node, ast.Constant):
            v = node.value
            if isinstance(v, bool):
                self.add(node, "bool", ast.Constant(not v), ctx)
            elif isinstance(v, (int, float)) and not isinstance(v, bool):
                kind = self.constant_kind(node, parents)
                if kind == "precision":
                    variants = [v + 1, v - 1, 0]
                elif kind == "tolerance":
                    variants = [v + 1, v - 1]
                elif v == 0:
                    variants = [1]
                elif v == 1:
                    variants = [0, 2]
                else:
                    variants = [v + 1, 2 * v]
                seen = set()
                for nv in variants:
                    if nv != v and nv not in seen:
                        seen.add(nv)
                        self.add(node, kind, ast.Constant(type(v)(nv)), ctx)
        elif isinstance(node, ast.UnaryOp):
            if isinstance(node.op, ast.USub):
                self.add(node, "neg_remove", node.operand, ctx)
            elif isinstance(node.op, ast.Not):
                self.add(node, "not_remove", node.operand, ctx)
        elif isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub)):
            if not _is_str_concat(node):         # string concatenation builds names and messages
                self.add(node, "arith", ast.BinOp(node.left, ast.Sub() if isinstance(node.op, ast.Add) else ast.Add(),
                                                  node.right), ctx)
                self.add(node, "drop_term", node.left, ctx)
                self.add(node, "drop_term", node.right if isinstance(node.op, ast.Add)
                         else ast.UnaryOp(ast.USub(), node.right), ctx)
        elif isinstance(node, ast.Compare):
            for i, op in enumerate(node.ops):
                for new_op in COMPARE_SWAPS.get(type(op), ()):
                    ops = list(node.ops)
                    ops[i] = new_op()
                    self.add(node, "compare", ast.Compare(node.left, ops, node.comparators), ctx)
        elif isinstance(node, ast.BoolOp):
            self.add(node, "boolop", ast.BoolOp(ast.Or() if isinstance(node.op, ast.And) else ast.And(), node.values), ctx)
        elif isinstance(node, ast.If) and node.orelse:
            self.add(node.test, "branch", ast.UnaryOp(ast.Not(), node.test), ctx)
        elif isinstance(node, ast.IfExp):
            self.add(node, "branch", ast.IfExp(node.test, node.orelse, node.body), ctx)
        elif isinstance(node, (ast.Name, ast.Attribute)) and isinstance(getattr(node, "ctx", None), ast.Load):
            name = _name_of(node)
            new = NAME_PAIRS.get(name)
            if new is None:
                parts = name.split("_")
                swapped = [TOKEN_PAIRS.get(p, p) for p in parts]
                new = "_".join(swapped) if swapped != parts else None
            if new and (new in self.identifiers or new in NAME_PAIRS and isinstance(node, ast.Name)
                        or name in ROUNDING_NAMES and isinstance(node, ast.Attribute)):
                repl = ast.Name(new) if isinstance(node, ast.Name) else ast.Attribute(node.value, new)
                self.add(node, "rounding" if name in ROUNDING_NAMES else "name_swap", repl, ctx)
        if isinstance(node, (ast.Assign, ast.Return)) and isinstance(node.value, ast.BinOp):
            self.add(node.value, "neg_insert", ast.UnaryOp(ast.USub(), node.value), ctx)
        if isinstance(node, ast.Return) and isinstance(node.value, ast.Tuple) and len(node.value.elts) == 2:
            a, b = node.value.elts
            if ast.dump(a) != ast.dump(b) and not any(isinstance(x, ast.Starred) for x in (a, b)):
                self.add(node.value, "return_swap", ast.Tuple([b, a], ast.Load()), ctx)
        self.rounding(node, ctx)
        self.deriv_order(node, ctx)

    def rounding(self, node, ctx):
        """Rounding directions beyond the floor/ceil and lower/upper name swaps (see the module docstring)."""
        uses_arb = bool({"arb", "flint"} & self.identifiers)
        if isinstance(node, ast.Call) and not node.args and not node.keywords and isinstance(node.func, ast.Attribute) \
                and node.func.attr in ("lower", "upper") and uses_arb:
            self.add(node, "rounding", ast.Call(ast.Attribute(node.func.value, "mid"), [], []), ctx)
        elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.FloorDiv):
            neg = lambda x: x.operand if isinstance(x, ast.UnaryOp) and isinstance(x.op, ast.USub) else ast.UnaryOp(ast.USub(), x)
            self.add(node, "rounding", ast.UnaryOp(ast.USub(), ast.BinOp(neg(node.left), ast.FloorDiv(), node.right)), ctx)
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and isinstance(node.operand, ast.BinOp) \
                and isinstance(node.operand.op, ast.FloorDiv) and isinstance(node.operand.left, ast.UnaryOp) \
                and isinstance(node.operand.left.op, ast.USub):      # -(-a // b), the ceiling: -> a // b
            self.add(node, "rounding", ast.BinOp(node.operand.left.operand, ast.FloorDiv(), node.operand.right), ctx)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "round" \
                and len(node.args) == 1 and not node.keywords and "math" in self.identifiers:
            for f in ("floor", "ceil"):
                self.add(node, "rounding", ast.Call(ast.Attribute(ast.Name("math"), f), node.args, []), ctx)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in ROUNDING_MODES:
            for new in ROUNDING_MODES[node.value]:
                self.add(node, "rounding", repr(new), ctx)

    def deriv_order(self, node, ctx):
        """The order of a derivative `diff(f, x, ...)` / `f.diff(x, ...)` (see the module docstring)."""
        if not (isinstance(node, ast.Call) and _call_name(node) == "diff" and not node.keywords):
            return
        f = node.func
        # sp.diff(f, x, ...) / diff(f, x, ...): the first argument is the function; f.diff(x, ...): none is
        first = 1 if isinstance(f, ast.Name) or (isinstance(f, ast.Attribute) and _name_of(f.value) in ("sp", "sympy", "mp", "mpmath")) else 0
        var = node.args[first:]
        if not var or any(isinstance(x, ast.Starred) for x in node.args):
            return
        last = var[-1]
        call = lambda args: ast.Call(f, list(node.args[:first]) + args, [])
        if isinstance(last, ast.Constant) and isinstance(last.value, int) and not isinstance(last.value, bool):
            n = last.value
            if n >= 2:
                self.add(node, "deriv_order", call(list(var[:-1]) + ([ast.Constant(n - 1)] if n > 2 else [])), ctx)
            self.add(node, "deriv_order", call(list(var[:-1]) + [ast.Constant(n + 1)]), ctx)
        elif isinstance(last, (ast.Name, ast.Attribute, ast.Subscript)):
            self.add(node, "deriv_order", call(list(var) + [ast.Constant(2)]), ctx)
            if len(var) >= 2:
                self.add(node, "deriv_order", call(list(var[:-1])), ctx)


def target_files(root: Path = ROOT) -> list[str]:
    files = set()
    for g in TARGET_GLOBS:
        files |= {p.relative_to(root).as_posix() for p in root.glob(g) if "__pycache__" not in p.parts}
    return sorted(files)


def enumerate_mutants(root: Path = ROOT, files=None) -> list[Mutant]:
    """Every candidate mutant of the target files, in file order and pre-order of each syntax tree."""
    out = []
    for rel in (files if files is not None else target_files(root)):
        src = (root / rel).read_text(encoding="utf-8")
        out.extend(_Enumerator(src, rel).run())
    return out


def apply(source: str, m: Mutant) -> str:
    """The mutated source: the node's text replaced (positions in UTF-8 columns, as `ast` gives them)."""
    lines = source.splitlines(keepends=True)

    def off(line, col):
        return sum(len(x) for x in lines[:line - 1]) + len(lines[line - 1].encode()[:col].decode())
    a, b = off(m.line, m.col), off(m.end_line, m.end_col)
    assert source[a:b] == m.original, (m.file, m.line, source[a:b], m.original)
    return source[:a] + m.replacement + source[b:]


def diff_snippet(source: str, mutated: str, m: Mutant, width: int = 160) -> str:
    d = list(difflib.unified_diff(source.splitlines(), mutated.splitlines(), lineterm="", n=0))[2:]
    d = [x[:width] for x in d if not x.startswith("@@")]
    return "\n".join(d[:8] + (["..."] if len(d) > 8 else []))


def select(mutants: list[Mutant], limit: int, seed: int) -> list[Mutant]:
    """A deterministic sample of `limit` mutants: per-file quotas proportional to the candidates (each file
    with candidates gets at least one while the limit allows), then within a file a seeded round-robin
    over the operators, distinct lines first. Ids M001... in file and line order."""
    by_file: dict[str, list[Mutant]] = {}
    for m in mutants:
        by_file.setdefault(m.file, []).append(m)
    files = sorted(by_file)
    total = len(mutants)
    if limit >= total:
        chosen = list(mutants)
    else:
        quota = {f: 0 for f in files}
        # one each for the files with the most candidates first, then largest remainders of the rest
        for f in sorted(files, key=lambda f: (-len(by_file[f]), f))[:limit]:
            quota[f] = 1
        rest = limit - sum(quota.values())
        if rest > 0:
            share = {f: rest * len(by_file[f]) / total for f in files}
            for f in files:
                quota[f] += int(share[f])
            left = limit - sum(quota.values())
            for f in sorted(files, key=lambda f: (-(share[f] - int(share[f])), f))[:left]:
                quota[f] += 1
        chosen = []
        for f in files:
            rng = random.Random(f"{seed}:{f}")
            groups: dict[str, list[Mutant]] = {}
            for m in by_file[f]:
                groups.setdefault(m.operator, []).append(m)
            for g in groups.values():
                rng.shuffle(g)
            ops = sorted(groups)
            rng.shuffle(ops)
            picked, lines = [], set()
            for distinct in (True, False):
                while len(picked) < min(quota[f], len(by_file[f])):
                    progress = False
                    for op in ops:
                        if len(picked) >= quota[f]:
                            break
                        cand = next((m for m in groups[op] if m not in picked and (not distinct or m.line not in lines)), None)
                        if cand is not None:
                            picked.append(cand)
                            lines.add(cand.line)
                            progress = True
                    if not progress:
                        break
            chosen.extend(picked)
    chosen.sort(key=lambda m: (m.file, m.line, m.col, m.operator, m.replacement))
    for i, m in enumerate(chosen, 1):
        m.id = f"M{i:03d}"
    return chosen


def add_extra(chosen: list[Mutant], mutants: list[Mutant], extra: dict[str, int], seed: int) -> list[Mutant]:
    """`chosen` plus, for each operator of `extra`, that many more of its candidates (seeded, one file at a
    time so that they spread over the files; operators that a proportional sample draws rarely, such as
    `rounding` and `deriv_order`, get mutants of their own). Ids renumbered in file and line order."""
    out, keys = list(chosen), {m.key for m in chosen}
    for op, n in sorted(extra.items()):
        rng = random.Random(f"{seed}:extra:{op}")
        pool = [m for m in mutants if m.operator == op and m.key not in keys]
        rng.shuffle(pool)
        files: set[str] = set()
        for _ in range(min(n, len(pool))):
            m = next((x for x in pool if x.file not in files), None) or pool[0]
            pool.remove(m)
            files = set() if not any(x.file not in files | {m.file} for x in pool) else files | {m.file}
            out.append(m)
            keys.add(m.key)
    out.sort(key=lambda m: (m.file, m.line, m.col, m.operator, m.replacement))
    for i, m in enumerate(out, 1):
        m.id = f"M{i:03d}"
    return out


# ------------------------------------------------------------------------------------- isolated trees
def _tree_files(root: Path) -> list[str]:
    try:
        out = subprocess.run(["git", "ls-files", "-co", "--exclude-standard"], cwd=root, capture_output=True,
                             text=True, check=True).stdout.splitlines()
        return sorted(f for f in out if (root / f).is_file() and "__pycache__" not in f)
    except (OSError, subprocess.CalledProcessError):
        skip = {".git", "build", "__pycache__", ".venv"}
        return sorted(p.relative_to(root).as_posix() for p in root.rglob("*")
                      if p.is_file() and not (set(p.relative_to(root).parts) & skip) and ".egg-info" not in str(p))


def make_tree(root: Path, dest: Path, files: list[str], mutated: dict[str, str] | None = None,
              coverage_rc: Path | None = None) -> dict:
    """Copy `files` of `root` into dest/tree (hard links; mutated files are written as new files) and build
    dest/site with the package mapping. Returns the environment for subprocesses."""
    tree, site = dest / "tree", dest / "site"
    for rel in files:
        target = tree / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        if mutated and rel in mutated:
            target.write_text(mutated[rel], encoding="utf-8")
            continue
        try:
            os.link(root / rel, target)
        except OSError:
            shutil.copy2(root / rel, target)
    pkg = site / "local2global"
    pkg.mkdir(parents=True)
    src = tree / PACKAGE_DIR["local2global"]
    for entry in sorted(src.iterdir()):
        if entry.name != "__pycache__":
            (pkg / entry.name).symlink_to(entry, target_is_directory=entry.is_dir())
    for name, folder in PACKAGE_DIR.items():
        if name != "local2global":
            (pkg / name.split(".", 1)[1]).symlink_to(tree / folder, target_is_directory=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith("COVERAGE_")}
    env.update(PYTHONPATH=str(site), PYTHONDONTWRITEBYTECODE="1", PYTHONNOUSERSITE="1", MPLBACKEND="Agg")
    # no on-disk derivation cache: a cached derivation never executes, so the baseline's coverage would call
    # the derivation code "not executed" and skip its mutants (the 2026-12-01 run lost 9 of 60 that way)
    env["L2G_NO_DERIVATION_CACHE"] = "1"
    if coverage_rc is not None:
        (site / "sitecustomize.py").write_text("import coverage\ncoverage.process_startup()\n")
        env["COVERAGE_PROCESS_START"] = str(coverage_rc)
    return env


def _run(cmd, cwd, env, timeout) -> tuple[str, int | None, str, float]:
    """('ok'|'timeout', returncode, tail of the output, seconds); on timeout the whole process group that
    this call started is killed."""
    t0 = time.monotonic()
    proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True, start_new_session=True)
    try:
        out, _ = proc.communicate(timeout=timeout)
        return "ok", proc.returncode, out[-3000:], time.monotonic() - t0
    except subprocess.TimeoutExpired:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        out, _ = proc.communicate()
        return "timeout", None, (out or "")[-3000:], time.monotonic() - t0


def check_stage(tree: Path, env: dict, timeout: float, workers: int, check_args=()) -> dict:
    js = tree / "build" / "report" / "checks.json"          # `l2g check --out DIR` writes the records there
    cmd = [sys.executable, "-m", "local2global", "check", "--workers", str(workers),
           "--out", str(tree / "build" / "report"), *check_args]
    status, rc, out, dt = _run(cmd, tree, env, timeout)
    res = {"stage": "check", "seconds": round(dt, 1), "returncode": rc}
    if status == "timeout":
        return {**res, "result": "timeout"}
    failed = []
    try:
        failed = sorted(r["id"] for r in json.loads(js.read_text()) if r.get("status") == "failed")
    except (OSError, ValueError, KeyError, TypeError):
        pass
    if rc == 0:
        return {**res, "result": "pass"}
    if rc == 1:
        return {**res, "result": "killed", "failed_claims": failed}
    last = [x for x in out.strip().splitlines() if x.strip()][-1:] or [""]
    return {**res, "result": "error", "failed_claims": failed, "message": last[0][:300]}


#: extra pytest arguments of every tests stage (baseline included): `--fast-tests` sets -m "not slow"
PYTEST_EXTRA: list[str] = []


def tests_stage(tree: Path, env: dict, timeout: float, tests: list[str], extra=()) -> dict:
    cmd = [sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", "-p", "no:randomly",
           *PYTEST_EXTRA, *extra, *tests]
    status, rc, out, dt = _run(cmd, tree, env, timeout)
    res = {"stage": "tests", "seconds": round(dt, 1), "returncode": rc, "tests": tests}
    if status == "timeout":
        return {**res, "result": "timeout"}
    if rc == 0:
        return {**res, "result": "pass"}
    failing = [ln.split(" ", 1)[1].split(" - ")[0] for ln in out.splitlines() if ln.startswith(("FAILED ", "ERROR "))]
    if rc == 1:
        return {**res, "result": "killed", "failing_test": failing[:1]}
    last = [x for x in out.strip().splitlines() if x.strip()][-1:] or [""]
    return {**res, "result": "error", "failing_test": failing[:1], "message": last[0][:300]}


# mutated files whose coverage on the baseline does not predict the mutant's run: the baseline check runs
# on one process (so the coverage of its pool workers need not be collected), the mutants on --workers
NEVER_SKIP = {"numeric/infra/executor.py"}


def executed_by(m: Mutant, cov: dict | None) -> dict:
    """Which baseline stage executed the mutated statement: {'check': bool, 'tests': bool}, or {} unknown.
    A mapped test file that is new since a carried baseline (`fresh_tests`) has no coverage: its stage runs."""
    if not cov or m.file in NEVER_SKIP:
        return {}
    ran = {st: bool(set(m.stmt_lines) & set(cov.get(st, {}).get(m.file, []))) for st in ("check", "tests")}
    if set(TEST_MAP.get(m.file, [])) & set(cov.get("fresh_tests", [])):
        ran["tests"] = True
    return ran


def carried_baseline(root: Path, old_json: str, old_commit: str, test_union: list[str], timeout: float, log) -> dict:
    """The baseline of an earlier run on a tree that differs from this one only in tests/ (the caller has
    checked `carry_blockers`): its sanity and coverage hold for every unchanged file, and the mapped test
    files that are new or changed since must pass on a no-op tree here (then their stage is never skipped)."""
    stored = json.loads(Path(old_json).with_suffix(".baseline.json").read_text())["baseline"]
    if not stored.get("ok"):
        return {"ok": False}
    fresh = [t for t in test_union if not file_unchanged(root, old_commit, t)]
    res = {**stored, "carried_from": old_commit, "fresh_tests": fresh}
    if fresh:
        src = (root / NOOP_FILE).read_text(encoding="utf-8")
        with tempfile.TemporaryDirectory(prefix="l2g-baseline-") as tmp:
            env = make_tree(root, Path(tmp), _tree_files(root), {NOOP_FILE: src + NOOP_MARK})
            r = tests_stage(Path(tmp) / "tree", env, max(timeout, 1800), fresh)
        log(f"[sanity] carried baseline of {old_commit}; new or changed test files on the no-op tree: {r['result']} "
            f"({', '.join(fresh)})")
        res["fresh_tests_noop"] = {k: v for k, v in r.items() if k != "seconds"}
        res["ok"] = r["result"] == "pass"
    if res.get("coverage") is not None:
        res["coverage"] = {**res["coverage"], "fresh_tests": fresh}
    return res


def check_claims(m: Mutant, cov: dict | None):
    """The claims whose baseline run (one process, one coverage context per claim) executes the mutated
    statement: a list (empty: none does), or None for the full `l2g check` (no per-claim coverage; the
    statement runs at import time or outside a function body; or NEVER_SKIP)."""
    if not cov or "check_ctx" not in cov or m.file in NEVER_SKIP or not m.in_def:
        return None
    ctx = set()
    for line in m.stmt_lines:
        ctx.update(cov["check_ctx"].get(m.file, {}).get(str(line), []))
    if "" in ctx:
        return None
    return sorted(ctx)


def run_mutant(m: Mutant, root: Path, timeout: float, workers: int, tests=None, check_args=(),
               stages=("check", "tests"), mutated_source: str | None = None, cov: dict | None = None) -> dict:
    """Run one mutant through the stages in an isolated tree; returns the record (outcome, stage, per-stage
    results). A stage whose baseline run (coverage `cov`) never executed the mutated statement is not run:
    a deterministic program that never reaches the change behaves as the original, so the stage passes;
    the stage record says `not executed`."""
    files = _tree_files(root)
    src = (root / m.file).read_text(encoding="utf-8")
    new = mutated_source if mutated_source is not None else apply(src, m)
    tests = TEST_MAP.get(m.file, []) if tests is None else tests
    ran = executed_by(m, cov)
    claims = None if check_args else check_claims(m, cov)
    if claims:
        check_args = ("--only", *claims)
    stage_res = []
    with tempfile.TemporaryDirectory(prefix="l2g-mutant-") as tmp:
        env = None
        for st in stages:
            if st == "tests" and not tests:
                continue
            if ran and not ran[st]:
                stage_res.append({"stage": st, "result": "pass", "seconds": 0.0,
                                  "not_executed": "the baseline run of this stage never executes the mutated statement"})
                continue
            if env is None:
                env = make_tree(root, Path(tmp), files, {m.file: new})
            tree = Path(tmp) / "tree"
            r = check_stage(tree, env, timeout, workers, check_args) if st == "check" else \
                tests_stage(tree, env, timeout, tests)
            if st == "check":
                r["claims"] = "all" if not check_args else list(check_args[1:])
            stage_res.append(r)
            if r["result"] != "pass":
                break
        # a survivor of a *selective* check faces the full one: a claim that only reads a derivation cached
        # by an earlier claim is not in the mutated line's coverage context, so the selection can miss it
        if claims and stage_res and all(r["result"] == "pass" for r in stage_res) and "check" in stages:
            if env is None:
                env = make_tree(root, Path(tmp), files, {m.file: new})
            r = check_stage(Path(tmp) / "tree", env, timeout, workers, ())
            r["claims"] = "all"
            stage_res.append(r)
    last = stage_res[-1] if stage_res else {"result": "pass", "stage": "-"}
    outcome = {"pass": "survived", "killed": "killed", "timeout": "timeout", "error": "error"}[last["result"]]
    return {"outcome": outcome, "stage": None if outcome == "survived" else last["stage"], "stages": stage_res}


# ------------------------------------------------------------------------------------- baseline / sanity
SANITY_KILL = ("proofs/_checks.py", "    ok = worst < tol\n", "    ok = worst > tol\n")
NOOP_FILE, NOOP_MARK = "proofs/_checks.py", "\n# no-op mutant of the sanity phase\n"


def _mutant_from_text(root: Path, rel: str, old: str, new: str) -> tuple[Mutant, str]:
    src = (root / rel).read_text(encoding="utf-8")
    if src.count(old) != 1:
        raise RuntimeError(f"sanity mutant: {old.strip()!r} not found once in {rel}")
    i = src.index(old)
    line = src[:i].count("\n") + 1
    m = Mutant(rel, line, 0, line, len(old.rstrip("\n").encode()), "sanity", old.rstrip("\n"), new.rstrip("\n"),
               "<sanity>", (line,))
    return m, src.replace(old, new)


def _coverage_lines(data_dir: Path, tree: Path) -> dict[str, list[int]]:
    import coverage
    cov = coverage.Coverage(data_file=str(data_dir / "cov"))
    cov.combine(data_paths=[str(data_dir)], keep=True)
    d = cov.get_data()
    lines: dict[str, set] = {}
    for fn in d.measured_files():
        try:
            rel = Path(os.path.realpath(fn)).relative_to(os.path.realpath(tree)).as_posix()
        except ValueError:
            continue
        lines.setdefault(rel, set()).update(d.lines(fn) or [])
    return {k: sorted(v) for k, v in sorted(lines.items())}


_DRIVER = """import json, coverage
from local2global.proofs import Context, run_claim, select
cov = coverage.Coverage.current()
failed = []
for c in select():
    cov.switch_context(c.id)
    if run_claim(c, Context()).status == "failed":
        failed.append(c.id)
cov.switch_context("")
print(json.dumps(failed))
"""


def _contexts(data_dir: Path, tree: Path) -> dict[str, dict[str, list[str]]]:
    """{file: {line: [claim ids whose run executed it; '' = outside any claim (imports)]}}."""
    import coverage
    cov = coverage.Coverage(data_file=str(data_dir / "cov"))
    cov.combine(data_paths=[str(data_dir)], keep=True)
    d = cov.get_data()
    out: dict[str, dict[str, set]] = {}
    for fn in d.measured_files():
        try:
            rel = Path(os.path.realpath(fn)).relative_to(os.path.realpath(tree)).as_posix()
        except ValueError:
            continue
        for line, ctxs in (d.contexts_by_lineno(fn) or {}).items():
            out.setdefault(rel, {}).setdefault(str(line), set()).update(ctxs)
    return {f: {ln: sorted(c) for ln, c in sorted(v.items(), key=lambda kv: int(kv[0]))} for f, v in sorted(out.items())}


def claim_coverage(root: Path, timeout: float, log) -> dict:
    """The no-op tree's claims run one by one in one process under coverage, one context per claim:
    {'ok': no claim failed, 'failed': [...], 'check': {file: lines}, 'check_ctx': {file: {line: [ids]}}}."""
    files = _tree_files(root)
    src = (root / NOOP_FILE).read_text(encoding="utf-8")
    with tempfile.TemporaryDirectory(prefix="l2g-claimcov-") as tmp:
        tmp = Path(tmp)
        rc_file, data = tmp / "coveragerc", tmp / "covdata"
        data.mkdir()
        rc_file.write_text(f"[run]\nparallel = True\ndata_file = {data / 'cov'}\nsource =\n    {tmp / 'site'}\n"
                           f"    {tmp / 'tree'}\n")
        env = make_tree(root, tmp, files, {NOOP_FILE: src + NOOP_MARK}, coverage_rc=rc_file)
        tree = tmp / "tree"
        status, rc, out, dt = _run([sys.executable, "-c", _DRIVER], tree, env, max(timeout, 3600))
        try:
            failed = json.loads(out.strip().splitlines()[-1]) if status == "ok" and rc == 0 else None
        except (ValueError, IndexError):
            failed = None
        log(f"[sanity] no-op mutant, every claim under per-claim coverage: "
            f"{'pass' if failed == [] else 'FAILED ' + str(failed)} ({dt:.0f} s)")
        ctx = _contexts(data, tree)
    return {"ok": failed == [], "failed": failed, "check_ctx": ctx,
            "check": {f: sorted(int(x) for x in v) for f, v in ctx.items()}}


def baseline(root: Path, timeout: float, workers: int, test_files: list[str], use_coverage: bool, log) -> dict:
    """The sanity phase, which is also the baseline of every mutant:
    (1) in a tree whose proofs/_checks.py carries a no-op edit, the imported local2global modules are the
        copies (not the editable install) and the copy of _checks.py carries the edit;
    (2) that no-op mutant passes `l2g check` and every mapped test file (so a later failure is the
        mutant's doing); with coverage, these runs also record which lines each stage executes (a
        sitecustomize in the temporary site starts coverage in every process, CLI subprocesses included);
    (3) a mutant that breaks the sampled-identity check is killed by `l2g check`.
    Returns {'ok': bool, ..., 'coverage': {'check': {file: lines}, 'tests': {...}} or None}."""
    files = _tree_files(root)
    res: dict = {}
    src = (root / NOOP_FILE).read_text(encoding="utf-8")
    with tempfile.TemporaryDirectory(prefix="l2g-baseline-") as tmp:
        tmp = Path(tmp)
        rc_file, data = tmp / "coveragerc", tmp / "covdata"
        if use_coverage:
            data.mkdir()
            rc_file.write_text(f"[run]\nparallel = True\ndata_file = {data / 'cov'}\nsource =\n    {tmp / 'site'}\n"
                               f"    {tmp / 'tree'}\n")
        env = make_tree(root, tmp, files, {NOOP_FILE: src + NOOP_MARK}, coverage_rc=rc_file if use_coverage else None)
        tree = tmp / "tree"
        probe = ("import importlib, json\n"
                 f"mods = {sorted(PACKAGE_DIR)!r} + ['local2global.proofs._checks']\n"
                 "print(json.dumps({m: importlib.import_module(m).__file__ for m in mods}))\n")
        status, rc, out, _ = _run([sys.executable, "-c", probe], tree, env, 300)
        try:
            where = json.loads(out.strip().splitlines()[-1]) if status == "ok" and rc == 0 else {}
        except (ValueError, IndexError):
            where = {}
        inside = bool(where) and all(os.path.realpath(v).startswith(os.path.realpath(tmp)) for v in where.values())
        marker = inside and NOOP_MARK.strip() in Path(where["local2global.proofs._checks"]).read_text()
        res["import"] = {"ok": bool(inside and marker),
                         "files": {k: os.path.relpath(v, tmp) if inside else v for k, v in where.items()}}
        log(f"[sanity] isolated import: {'ok' if res['import']['ok'] else 'FAILED'}")
        if not res["import"]["ok"]:
            return {**res, "ok": False, "coverage": None}
        # one process under coverage: a pool worker's data need not be collected (see NEVER_SKIP)
        cov = {}
        if use_coverage:
            cc = claim_coverage(root, timeout, log)
            r = {"stage": "check", "result": "pass" if cc["ok"] else "failed", "failed_claims": cc["failed"]}
            cov.update(check=cc["check"], check_ctx=cc["check_ctx"])
        else:
            r = check_stage(tree, env, max(timeout, 1800), workers)
            log(f"[sanity] no-op mutant, l2g check: {r['result']} ({r['seconds']} s)")
        res["noop_check"] = r
        r2 = tests_stage(tree, env, max(timeout, 3600), test_files) if test_files else {"result": "pass"}
        res["noop_tests"] = r2
        log(f"[sanity] no-op mutant, {len(test_files)} mapped test files: {r2['result']} ({r2.get('seconds')} s)")
        if use_coverage:
            cov["tests"] = _coverage_lines(data, tree)
    m, new = _mutant_from_text(root, *SANITY_KILL)
    r3 = run_mutant(m, root, timeout, workers, tests=[], mutated_source=new, stages=("check",))
    res["kill"] = {"mutant": f"{m.file}:{m.line}: {m.original.strip()} -> {m.replacement.strip()}", **r3}
    log(f"[sanity] must-kill mutant: {r3['outcome']}")
    res["ok"] = (res["import"]["ok"] and res["noop_check"]["result"] == "pass" and r2["result"] == "pass"
                 and r3["outcome"] == "killed" and r3["stage"] == "check")
    res["coverage"] = cov or None
    return res


def auto_reason(m: Mutant, cov: dict | None) -> tuple[str, list[str]]:
    ran = executed_by(m, cov)
    executed = [st for st in ("check", "tests") if ran.get(st)]
    if ran and not executed:
        return "not executed by l2g check nor by the mapped tests (coverage of the unmutated tree)", executed
    return "", executed


# ---------------------------------------------------------------------------------------------- report
def summarize(records: list[dict], triage: dict | None = None) -> dict:
    n = len(records)
    by = lambda pred: sum(1 for r in records if pred(r))
    eq = {k for k, v in (triage or {}).items() if v.get("verdict") == "equivalent"}
    equivalent = sorted(r["id"] for r in records if r["outcome"] == "survived" and r.get("key") in eq)
    contradicted = sorted(r["id"] for r in records if r["outcome"] != "survived" and r.get("key") in eq)
    killed_check = by(lambda r: r["outcome"] != "survived" and r["stage"] == "check")
    killed = by(lambda r: r["outcome"] != "survived")
    pct = lambda k, d=n: f"{k}/{d} = {100 * k / d:.1f}%" if d else "0/0"
    per_file: dict[str, dict] = {}
    per_op: dict[str, dict] = {}
    for r in records:
        for table, key in ((per_file, r["file"]), (per_op, r["operator"])):
            row = table.setdefault(key, {"mutants": 0, "killed": 0, "killed_by_check": 0, "survived": 0})
            row["mutants"] += 1
            row["killed"] += r["outcome"] != "survived"
            row["killed_by_check"] += r["outcome"] != "survived" and r["stage"] == "check"
            row["survived"] += r["outcome"] == "survived"
    return {"mutants": n, "equivalent": equivalent, "triage_contradicted": contradicted,
            "kill_rate_non_equivalent": pct(killed, n - len(equivalent)),
            "carried": by(lambda r: bool(r.get("carried_from"))),
            "killed": by(lambda r: r["outcome"] == "killed"),
            "timeout": by(lambda r: r["outcome"] == "timeout"), "error": by(lambda r: r["outcome"] == "error"),
            "survived": by(lambda r: r["outcome"] == "survived"),
            "kill_rate_check": pct(killed_check), "kill_rate_check_and_tests": pct(killed),
            "per_file": dict(sorted(per_file.items())), "per_operator": dict(sorted(per_op.items()))}


def _md_cell(s: str) -> str:
    return s.replace("|", "\\|").replace("\n", "<br>")


def write_markdown(path: Path, result: dict, triage: dict | None = None) -> None:
    s = result["summary"]
    triage = triage or {}
    cfg = result["config"]
    L = ["# Code mutation benchmark", "",
         f"Commit `{result['commit']}`; {s['mutants']} mutants of {cfg['candidates']} candidates, seed {cfg['seed']}, "
         f"timeout {cfg['timeout']} s per stage, `l2g check --workers {cfg['workers']}`.", "",
         f"- kill rate of `l2g check` alone: **{s['kill_rate_check']}**",
         f"- kill rate of `l2g check` + mapped tests: **{s['kill_rate_check_and_tests']}**",
         f"- survivors judged equivalent (benchmarks/mutation_triage.json, with reasons below): "
         f"{len(s['equivalent'])}; kill rate over the non-equivalent mutants: **{s['kill_rate_non_equivalent']}**",
         *([f"- TRIAGE CONTRADICTED: {', '.join(s['triage_contradicted'])} were killed but are listed as "
            f"equivalent"] if s["triage_contradicted"] else []),
         *([f"- {s['carried']} kills carried from the run at commit {result.get('carried_from')} (nothing "
            f"outside tests/ changed since, and each killing test file is unchanged); the other mutants ran "
            f"on this tree"] if s["carried"] else []),
         *([f"- test files new or changed since that run (they pass on the no-op tree, and their stage is never "
            f"skipped): {', '.join(result['sanity']['fresh_tests'])}"] if result.get("sanity", {}).get("fresh_tests") else []),
         f"- killed {s['killed']}, timeout {s['timeout']} (counted as killed), error {s['error']} "
         f"(counted as killed), survived {s['survived']}", "",
         "## Per file", "", "| file | mutants | killed by check | killed | survived |", "|---|---|---|---|---|"]
    for f, row in s["per_file"].items():
        L.append(f"| {f} | {row['mutants']} | {row['killed_by_check']} | {row['killed']} | {row['survived']} |")
    L += ["", "## Per operator", "", "| operator | mutants | killed by check | killed | survived |", "|---|---|---|---|---|"]
    for f, row in s["per_operator"].items():
        L.append(f"| {f} | {row['mutants']} | {row['killed_by_check']} | {row['killed']} | {row['survived']} |")
    L += ["", "## Survivors (for triage)", "",
          "| id | file:line | function | operator | change | executed by | auto reason | reason |", "|---|---|---|---|---|---|---|---|"]
    for r in result["mutants"]:
        if r["outcome"] == "survived":
            L.append(f"| {r['id']} | {r['file']}:{r['line']} | {r['function']} | {r['operator']} | "
                     f"`{_md_cell(r['original'][:60])}` -> `{_md_cell(r['replacement'][:60])}` | "
                     f"{', '.join(r.get('executed_by', [])) or '-'} | {_md_cell(r.get('auto_reason', ''))} | "
                     f"{_md_cell(triage.get(r.get('key'), {}).get('why', ''))} |")
    L += ["", "## All mutants", "", "| id | file:line | operator | diff | outcome | stage | detail |", "|---|---|---|---|---|---|---|"]
    for r in result["mutants"]:
        st = r["stages"][-1] if r["stages"] else {}
        detail = ", ".join(st.get("failed_claims", [])[:3] or st.get("failing_test", [])[:1]) or st.get("message", "")
        L.append(f"| {r['id']} | {r['file']}:{r['line']} | {r['operator']} | <code>{_md_cell(r['diff'])}</code> | "
                 f"{r['outcome']} | {r['stage'] or '-'}{' (carried)' if r.get('carried_from') else ''} | "
                 f"{_md_cell(detail[:120])} |")
    path.write_text("\n".join(L) + "\n", encoding="utf-8")


# edits to these files change no stage's result: the baseline and --resume stay valid across them
_NOT_HASHED = {"benchmarks/mutate_code.py", "tests/test_mutate_code.py", "README.md",
               "benchmarks/mutation_triage.json"}

TRIAGE_FILE = ROOT / "benchmarks" / "mutation_triage.json"


def load_triage(path: Path = TRIAGE_FILE) -> dict[str, dict]:
    """{mutant key: {"verdict": "equivalent" | "unseen", "why": ...}}; every entry must give its reason.
    "unseen" explains a survivor that is not equivalent (it stays in the denominator of the kill rate)."""
    if not path.is_file():
        return {}
    data = json.loads(path.read_text(encoding="utf-8"))
    for key, v in data.items():
        if v.get("verdict") not in ("equivalent", "unseen") or not v.get("why"):
            raise ValueError(f"{path.name}: entry {key} needs verdict 'equivalent' or 'unseen' and a reason")
    return data


def carry_blockers(root: Path, old_commit: str) -> list[str]:
    """Why the kills of a run at `old_commit` cannot be carried to this tree (empty: they can): files
    outside tests/ (and the benchmark's own files) that differ from that commit or are untracked."""
    if not old_commit or old_commit.endswith("+dirty") or old_commit == "unknown":
        return [f"the earlier run's commit is not a clean commit ({old_commit!r})"]
    excl = [f":(exclude){f}" for f in sorted(_NOT_HASHED)] + [":(exclude)tests"]
    try:
        r = subprocess.run(["git", "diff", "--name-only", old_commit, "--", ".", *excl], cwd=root,
                           capture_output=True, text=True, check=True)
        u = subprocess.run(["git", "ls-files", "-o", "--exclude-standard", "--", ".", *excl], cwd=root,
                           capture_output=True, text=True, check=True)
    except (OSError, subprocess.CalledProcessError) as ex:
        return [f"git cannot compare with {old_commit}: {ex}"]
    return [f"changed: {f}" for f in r.stdout.split()] + [f"untracked: {f}" for f in u.stdout.split()]


def file_unchanged(root: Path, old_commit: str, rel: str) -> bool:
    """The file exists at `old_commit` and in the tree with the same bytes."""
    at_old = subprocess.run(["git", "cat-file", "-e", f"{old_commit}:{rel}"], cwd=root, capture_output=True)
    if at_old.returncode != 0 or not (root / rel).is_file():
        return False
    r = subprocess.run(["git", "diff", "--quiet", old_commit, "--", rel], cwd=root, capture_output=True)
    untracked = subprocess.run(["git", "ls-files", "-o", "--", rel], cwd=root, capture_output=True, text=True)
    return r.returncode == 0 and not untracked.stdout.strip()


def carried_kill(root: Path, old_commit: str, rec: dict) -> bool:
    """Whether an earlier record is a kill that still holds (the caller has checked `carry_blockers`)."""
    if rec.get("outcome") == "survived":
        return False
    if rec.get("stage") == "check":
        return True
    st = rec["stages"][-1] if rec.get("stages") else {}
    failing = [t.split("::")[0] for t in st.get("failing_test", [])]
    return bool(failing) and all(file_unchanged(root, old_commit, f) for f in failing)


def tree_hash(root: Path) -> str:
    """sha256 of the tree's files (path and bytes) that the stages can depend on."""
    h = hashlib.sha256()
    for rel in _tree_files(root):
        if rel not in _NOT_HASHED:
            h.update(rel.encode() + b"\0" + (root / rel).read_bytes() + b"\0")
    return h.hexdigest()[:16]


def _commit(root: Path) -> str:
    try:
        c = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=root, capture_output=True, text=True,
                           check=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--", *TARGET_GLOBS[:2], "numeric", "proofs"],
                               cwd=root, capture_output=True, text=True).stdout.strip()
        return c + ("+dirty" if dirty else "")
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def _deterministic_record(m: Mutant, rec: dict, diff: str) -> dict:
    """The JSON record of a mutant without run times (those go to the timing file)."""
    stages = [{k: v for k, v in st.items() if k != "seconds"} for st in rec["stages"]]
    return {**{k: v for k, v in asdict(m).items() if k != "stmt_lines"}, "diff": diff,
            "outcome": rec["outcome"], "stage": rec["stage"], "stages": stages}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description="mutation testing of the implementation (symbolic/, numeric/, "
                                             "proofs/_certify.py, proofs/_checks.py)")
    ap.add_argument("--limit", default="80", help="number of mutants (default 80)")
    ap.add_argument("--only", metavar="FILE", help="mutate only this file (path in the tree, e.g. symbolic/bias.py)")
    ap.add_argument("--jobs", default="1", help="mutants run at once (default 1)")
    ap.add_argument("--workers", default="2", help="processes of each `l2g check` (default 2)")
    ap.add_argument("--seed", default="0", help="seed of the sample (default 0)")
    ap.add_argument("--fast-tests", action="store_true", help="the tests stage runs only the mapped tests not "
                    "marked slow (-m 'not slow'; a shorter run, which can only miss kills)")
    ap.add_argument("--extra", metavar="OP=N,...", help="add N more mutants of operator OP to the sample (e.g. "
                    "rounding=6,deriv_order=6)")
    ap.add_argument("--timeout", default="300", help="seconds per stage before a mutant counts as timeout (default 300)")
    ap.add_argument("--no-coverage", action="store_true", help="no coverage in the baseline: every stage of every "
                    "mutant runs, and survivors get no automatic reason")
    ap.add_argument("--no-sanity", action="store_true", help="skip the sanity phase (results are then unguarded)")
    ap.add_argument("--list", action="store_true", help="print the selected mutants and exit")
    ap.add_argument("--resume", action="store_true", help="reuse the records of --json for mutants of the same "
                    "tree, timeout and workers (a run rewrites --json after every mutant)")
    ap.add_argument("--carry", metavar="OLD_JSON", nargs="+", help="reuse the kills of earlier runs of one commit "
                    "(see above; several files: one run split with --ids); survivors and new mutants run again")
    ap.add_argument("--ids", metavar="FIRST-LAST", help="run only the mutants M<FIRST>..M<LAST> of the sample (the "
                    "baseline is that of the whole sample; to split one run over processes)")
    ap.add_argument("--json", default=str(ROOT / "build" / "mutation_code.json"))
    ap.add_argument("--md", default=str(ROOT / "build" / "mutation_code.md"))
    args = ap.parse_args(argv)
    try:
        def pos_int(v, name, lo=1):
            try:
                x = int(v)
            except ValueError:
                raise UsageError(f"{name} must be an integer, got {v!r}") from None
            if x < lo:
                raise UsageError(f"{name} must be >= {lo}, got {x}")
            return x
        limit, jobs, workers = pos_int(args.limit, "--limit"), pos_int(args.jobs, "--jobs"), pos_int(args.workers, "--workers")
        seed, timeout = pos_int(args.seed, "--seed", lo=0), pos_int(args.timeout, "--timeout")
        extra = {}
        for item in filter(None, (args.extra or "").split(",")):
            op, _, n = item.partition("=")
            if op.strip() not in OPERATORS:
                raise UsageError(f"--extra: unknown operator {op.strip()!r} (one of {', '.join(OPERATORS)})")
            extra[op.strip()] = pos_int(n.strip(), f"--extra {op.strip()}")
        if args.fast_tests:
            PYTEST_EXTRA[:] = ["-m", "not slow"]
        files = target_files(ROOT)
        if args.only:
            rel = Path(args.only)
            if rel.is_absolute():
                try:
                    rel = rel.resolve().relative_to(ROOT)
                except ValueError:
                    pass
            rel = rel.as_posix().removeprefix("./")
            if rel not in files:
                raise UsageError(f"--only {args.only!r} is not one of the mutated files ({', '.join(TARGET_GLOBS)})")
            files = [rel]
        for out in (args.json, args.md):
            if Path(out).is_dir():
                raise UsageError(f"output {out!r} is a directory")
        id_range = None
        if args.ids:
            try:
                id_range = tuple(int(x.strip().lstrip("Mm")) for x in args.ids.split("-"))
                if len(id_range) != 2 or id_range[0] > id_range[1]:
                    raise ValueError
            except ValueError:
                raise UsageError(f"--ids must be FIRST-LAST, e.g. M031-M060, got {args.ids!r}") from None
        try:
            triage = load_triage()
        except (OSError, ValueError) as ex:
            raise UsageError(f"triage file: {ex}") from None
        carry_old, carry_commit = {}, None
        if args.carry:
            for fname in args.carry:
                try:
                    old = json.loads(Path(fname).read_text())
                    commit_i, cfg = old["commit"], old.get("config", {})
                    rows = {r["key"]: r for r in old["mutants"]}
                except (OSError, ValueError, KeyError, TypeError) as ex:
                    raise UsageError(f"--carry {fname!r}: not a mutation_code result ({type(ex).__name__})") from None
                if cfg.get("timeout") != timeout or cfg.get("workers") != workers:
                    raise UsageError(f"--carry {fname!r}: ran with another --timeout or --workers")
                if carry_commit not in (None, commit_i):
                    raise UsageError(f"--carry: the runs are of different commits ({carry_commit}, {commit_i})")
                carry_commit = commit_i
                carry_old.update(rows)
            blockers = carry_blockers(ROOT, carry_commit)
            if blockers:
                raise UsageError(f"--carry: code changed since {carry_commit}: {'; '.join(blockers[:3])}")
    except UsageError as ex:
        print(f"mutate_code: {ex}", file=sys.stderr)
        return 2
    candidates = enumerate_mutants(ROOT, files)
    chosen = select(candidates, limit, seed)
    if extra:
        chosen = add_extra(chosen, candidates, extra, seed)
    if args.list:
        for m in chosen:
            print(f"{m.id} {m.file}:{m.line} {m.operator:11s} {m.original[:50]!r} -> {m.replacement[:50]!r}")
        return 0
    log = lambda s: print(s, file=sys.stderr, flush=True)
    log(f"[mutate_code] {len(chosen)} of {len(candidates)} candidates over {len({m.file for m in chosen})} files")
    test_union = sorted({t for m in chosen for t in TEST_MAP.get(m.file, [])})
    t_start, commit = time.monotonic(), _commit(ROOT)
    sane = {"ok": None, "coverage": None}
    tree_key = tree_hash(ROOT)
    if args.carry and not args.no_sanity:
        sane = carried_baseline(ROOT, args.carry[0], carry_commit, test_union, timeout, log)
        if not sane["ok"]:
            log("[mutate_code] the carried baseline does not hold on this tree; no benchmark run")
            return 3
    elif not args.no_sanity:
        cache = Path(args.json).with_suffix(".baseline.json")
        bkey = f"{tree_key}|{workers}|{not args.no_coverage}|{','.join(test_union)}|{' '.join(PYTEST_EXTRA)}"
        try:
            stored = json.loads(cache.read_text())
            sane = stored["baseline"] if stored.get("key") == bkey and stored["baseline"].get("ok") else None
        except (OSError, ValueError, KeyError, TypeError):
            sane = None
        if sane is not None:
            log(f"[sanity] reusing the baseline of this tree ({cache})")
            if sane.get("coverage") and "check_ctx" not in sane["coverage"]:
                cc = claim_coverage(ROOT, timeout, log)
                if not cc["ok"]:
                    log("[mutate_code] sanity phase failed: a claim fails on the no-op tree")
                    return 3
                sane["coverage"].update(check=cc["check"], check_ctx=cc["check_ctx"])
                cache.write_text(json.dumps({"key": bkey, "baseline": sane}, sort_keys=True) + "\n")
        else:
            sane = baseline(ROOT, timeout, workers, test_union, not args.no_coverage, log)
            if sane["ok"]:
                cache.parent.mkdir(parents=True, exist_ok=True)
                cache.write_text(json.dumps({"key": bkey, "baseline": sane}, sort_keys=True) + "\n")
        if not sane["ok"]:
            log("[mutate_code] sanity phase failed: the isolated tree does not behave; no benchmark run")
            Path(args.json).parent.mkdir(parents=True, exist_ok=True)
            Path(args.json).write_text(json.dumps({"sanity": {k: v for k, v in sane.items() if k != "coverage"}},
                                                  indent=2, sort_keys=True, default=str) + "\n")
            return 3
    cov = sane.get("coverage")

    if id_range:
        chosen = [m for m in chosen if id_range[0] <= int(m.id[1:]) <= id_range[1]]
    records: dict[str, dict] = {}
    times: dict[str, dict] = {}
    previous = {}
    if args.resume and Path(args.json).is_file():
        try:
            old = json.loads(Path(args.json).read_text())
            if old.get("tree_hash") == tree_key and old.get("config", {}).get("timeout") == timeout \
                    and old.get("config", {}).get("workers") == workers:
                previous = {r["key"]: r for r in old.get("mutants", [])}
        except (OSError, ValueError, KeyError, TypeError):
            previous = {}
        log(f"[mutate_code] resuming: {sum(m.key in previous for m in chosen)} mutant(s) reused from {args.json}")

    def write(final: bool):
        """The JSON and the markdown, rewritten after every mutant (a long run leaves its partial result)."""
        rows = [records[m.id] for m in chosen if m.id in records]
        result = {"commit": commit, "tree_hash": tree_key, "complete": final and len(rows) == len(chosen),
                  "config": {"limit": limit, "seed": seed, "extra": extra, "pytest_extra": list(PYTEST_EXTRA), "timeout": timeout, "workers": workers, "only": args.only,
                             "candidates": len(candidates), "files": files,
                             "per_file_selected": {f: sum(m.file == f for m in chosen) for f in files},
                             "test_map": {f: TEST_MAP.get(f, []) for f in files}},
                  "sanity": {k: (v if not isinstance(v, dict) else {kk: vv for kk, vv in v.items() if kk != "seconds"})
                             for k, v in sane.items() if k != "coverage"} if sane.get("ok") is not None
                  else {"ok": None, "skipped": True},
                  "coverage": cov is not None,
                  "carried_from": carry_commit if any(r.get("carried_from") for r in rows) else None,
                  "summary": summarize(rows, triage), "mutants": rows}
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(f"{args.json}.tmp")
        tmp.write_text(json.dumps(result, indent=2, sort_keys=True) + "\n")
        os.replace(tmp, args.json)
        Path(args.md).parent.mkdir(parents=True, exist_ok=True)
        write_markdown(Path(args.md), result, triage)
        Path(args.json).with_suffix(".timing.json").write_text(json.dumps(
            {"total_seconds": round(time.monotonic() - t_start, 1), "mutants": times}, indent=2, sort_keys=True) + "\n")
        return result

    carried = {k for k, r in carry_old.items() if carried_kill(ROOT, carry_commit, r)}
    if args.carry:
        log(f"[mutate_code] carrying {sum(m.key in carried for m in chosen)} kill(s) from {carry_commit}")

    def one(m):
        if m.key in previous:
            return m, None
        if m.key in carried:
            return m, "carried"
        return m, run_mutant(m, ROOT, timeout, workers, cov=cov)
    from tqdm import tqdm
    with tqdm(total=len(chosen), desc="mutants", unit="mutant", file=sys.stderr, disable=not sys.stderr.isatty()) as bar, \
            cf.ThreadPoolExecutor(max_workers=jobs) as pool:
        for m, rec in pool.map(one, chosen) if jobs > 1 else map(one, chosen):
            if rec is None:
                r = {**previous[m.key], "id": m.id}
                times[m.id] = {}
            elif rec == "carried":
                r = {**carry_old[m.key], "id": m.id, "carried_from": carry_commit}
                times[m.id] = {}
            else:
                src = (ROOT / m.file).read_text(encoding="utf-8")
                r = _deterministic_record(m, rec, diff_snippet(src, apply(src, m), m))
                times[m.id] = {st["stage"]: st["seconds"] for st in rec["stages"]}
            if r["outcome"] == "survived":
                r["auto_reason"], r["executed_by"] = auto_reason(m, cov)
            records[m.id] = r
            bar.update(1)
            if not sys.stderr.isatty():
                log(f"[mutate_code] {m.id} {m.file}:{m.line} {m.operator}: {r['outcome']}"
                    f"{' by ' + r['stage'] if r['stage'] else ''} ({sum(times[m.id].values()):.0f} s)")
            write(final=False)
    result = write(final=True)
    s = result["summary"]
    log(f"[mutate_code] kill rate: l2g check {s['kill_rate_check']}; l2g check + tests {s['kill_rate_check_and_tests']}; "
        f"non-equivalent {s['kill_rate_non_equivalent']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
