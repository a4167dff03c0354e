"""Argument types and helpers shared by the subcommands: validation of user input."""
from __future__ import annotations

import re
from fractions import Fraction

_DECIMAL = re.compile(r"^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$")


class UsageError(Exception):
    """Bad user input: reported as one line on stderr, exit code 2."""


def exact_number(text: str, name: str) -> Fraction:
    """A decimal or fraction string ('0.9', '9/10', '1e-3') as an exact Fraction; refuses nan/inf/garbage."""
    t = str(text).strip()
    try:
        if "/" in t:
            num, den = t.split("/", 1)
            if not (_DECIMAL.match(num.strip()) and _DECIMAL.match(den.strip())):
                raise ValueError
            val = Fraction(num.strip()) / Fraction(den.strip())
        else:
            if not _DECIMAL.match(t):
                raise ValueError
            val = Fraction(t)
    except (ValueError, ZeroDivisionError):
        raise UsageError(f"{name} must be a finite number, got {text!r}") from None
    if len(t) > 200 or abs(val.numerator).bit_length() > 4000 or val.denominator.bit_length() > 4000:
        raise UsageError(f"{name} is too large to handle: {text[:40]!r}")
    return val


def probability(text: str, name: str) -> Fraction:
    """A switching probability: exact, strictly between 0 and 1."""
    v = exact_number(text, name)
    if not 0 < v < 1:
        raise UsageError(f"{name} must lie in the open interval (0, 1), got {text}")
    return v


def precision(text, name="--dps", lo: int = 15, hi: int = 1000) -> int:
    """A working precision in decimal digits, lo <= dps <= hi."""
    return integer(text, name, lo, hi)


def integer(text, name: str, lo: int, hi: int) -> int:
    """An integer option with lo <= value <= hi."""
    try:
        v = int(str(text).strip())
    except ValueError:
        raise UsageError(f"{name} must be an integer, got {text!r}") from None
    if not lo <= v <= hi:
        raise UsageError(f"{name} must be between {lo} and {hi}, got {v}")
    return v


def bounded(value: Fraction, name: str, limit: float = 1e6) -> Fraction:
    """Refuse magnitudes the evaluation cannot meaningfully handle."""
    if abs(value) > limit:
        shown = str(value) if len(str(value)) <= 30 else str(value)[:27] + "..."
        raise UsageError(f"{name} must have magnitude at most {limit:g}, got {shown}")
    return value


def output_file(path, name: str = "--json"):
    """Refuse, before any work, an output file path that cannot be written: a directory, or a file in the
    way of its folder (what `write_atomic` would only find out at the end of a long run)."""
    import os

    p = os.path.abspath(os.fspath(path))
    if os.path.isdir(p):
        raise UsageError(f"{name} {path!r} is a directory, expected a file path")
    parent = os.path.dirname(p)
    while parent and not os.path.exists(parent):
        parent = os.path.dirname(parent)
    if parent and not os.path.isdir(parent):
        raise UsageError(f"{name} {path!r}: {parent!r} exists and is not a directory")
    return path


def write_atomic(path, text: str | bytes) -> None:
    """Write a file via a temporary sibling and rename, so an interrupted run leaves nothing half-written."""
    import os

    path = os.fspath(path)
    folder = os.path.dirname(os.path.abspath(path))
    if os.path.exists(path) and os.path.isdir(path):
        raise UsageError(f"{path} is a directory, expected a file path")
    try:
        os.makedirs(folder, exist_ok=True)
    except (FileExistsError, NotADirectoryError):
        raise UsageError(f"cannot create folder for {path}: a file is in the way") from None
    from local2global.numeric.infra.atomic import atomic_write
    atomic_write(path, text)
