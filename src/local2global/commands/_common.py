"""Argument types and helpers shared by the subcommands: validation of user input."""
from __future__ import annotations

import re
import sys
from fractions import Fraction

_DECIMAL = re.compile(r"^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$")


class UsageError(Exception):
    """Bad user input: reported as one line on stderr, exit code 2."""


class ComputationError(Exception):
    """A valid input the numeric layer could not handle (e.g. a root finder that did not converge at the
    requested precision): one line on stderr, exit code 1, and no number is printed."""


def computation_error(what: str, ex: Exception, dps: int | None = None) -> ComputationError:
    first = (str(ex).splitlines() or [""])[0].strip()
    at = f" at {dps} digits" if dps else ""
    return ComputationError(f"cannot compute {what}{at} ({type(ex).__name__}{': ' + first[:120] if first else ''}); "
                            f"a larger --dps may help, otherwise please report it")


def exact_number(text: str, name: str) -> Fraction:
    """A decimal or fraction string ('0.9', '9/10', '1e-3') as an exact Fraction; refuses nan/inf/garbage."""
    t = str(text).strip()
    parts = [s.strip() for s in t.split("/", 1)]
    matches = [_DECIMAL.match(s) for s in parts]
    if not all(matches):
        raise UsageError(f"{name} must be a finite number, got {shown(text)}")
    # before building the Fraction: '1e99999999' would make a 100-million-digit integer
    if len(t) > 200 or any(m.group(3) and abs(int(m.group(3)[1:])) > 1300 for m in matches):
        raise UsageError(f"{name} is too large to handle (over 200 characters or an exponent beyond 1300): "
                         f"{shown(text)}")
    try:
        val = Fraction(parts[0]) / Fraction(parts[1]) if len(parts) == 2 else Fraction(parts[0])
    except (ValueError, ZeroDivisionError):
        raise UsageError(f"{name} must be a finite number, got {shown(text)}") from None
    if abs(val.numerator).bit_length() > 4000 or val.denominator.bit_length() > 4000:
        raise UsageError(f"{name} is too large to handle: {shown(text)}")
    return val


def probability(text: str, name: str) -> Fraction:
    """A switching probability: exact, strictly between 0 and 1."""
    v = exact_number(text, name)
    if not 0 < v < 1:
        raise UsageError(f"{name} must lie in the open interval (0, 1), got {shown(str(text).strip())}")
    return v


#: Every command's --dps, in one table: (lowest, highest, default) decimal digits. The numeric layer honours the
#: value it is given (nothing is raised behind the user's back); the bounds say where a result is meaningful and
#: affordable:
#: - 30 at least where many values are held to the equality tolerance 10^-(dps - SLACK) (the sampled checks of
#:   check/verify/all, the boundary suite's starts 10^-20 from a boundary) or enclosed in balls (prob, basins);
#: - 15 at least for one flow or one point: its prediction, integration and classification run at the same
#:   digits, with tolerances derived from them (numeric/precision.py);
#: - a flow's cost grows steeply with the digits: 100 at most; a point evaluation is cheap and its digits are the
#:   output itself: eval goes to 1000; 200 elsewhere.
DPS = {
    "eval": (15, 1000, 50),
    "flow": (15, 100, 30),
    "flow --suite": (30, 100, 50),
    "prob": (30, 200, 40),
    "basins": (30, 200, 40),
    "check": (30, 200, 50),
    "verify": (30, 200, 50),
    "all": (30, 200, 50),
}


def dps_help(command: str, what: str) -> str:
    """The --dps help of `command`: what the digits are for, and the range and default of `DPS`."""
    lo, hi, default = DPS[command]
    return f"{what} ({lo}..{hi}, default {default})"


def dps_of(text, command: str) -> int:
    """The --dps of `command` (`None`: its default), validated against its row of `DPS`."""
    lo, hi, default = DPS[command]
    return integer(default if text is None else text, "--dps", lo, hi)


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


# ------------------------------------------------------------------------------------------------ output paths
# Every path a command writes is validated here, before any import of the heavy layers and before any work:
# a refusal is a UsageError (one line on stderr, exit 2) and nothing has been created. Validation only
# looks; folders are created when the command writes (`make_folder`).

#: trees that are not ordinary storage: a write there is never what the user meant (root may even succeed)
FORBIDDEN_ROOTS = ("/proc", "/sys", "/dev")
#: longest name of one path component, and of a whole path, in bytes (Linux NAME_MAX, PATH_MAX - 1)
NAME_MAX, PATH_MAX = 255, 4095


def shown(text, limit: int = 60) -> str:
    """A user-supplied string for an error message: quoted, escaped (so it stays on one line), shortened."""
    r = repr(str(text))
    return r if len(r) <= limit else r[: limit - 4] + "...'"


def plural(n: int, word: str, words: str | None = None) -> str:
    """'1 claim', '2 claims' (`words` for irregular plurals)."""
    return f"{n} {word if n == 1 else (words or word + 's')}"


def _check_text(text, name: str) -> str:
    """The checks that need no file system: empty, control characters, encoding, length."""
    import os

    if text is None or not isinstance(text, (str, os.PathLike)):
        raise UsageError(f"{name} needs a path")
    text = os.fspath(text)
    if isinstance(text, bytes):
        text = os.fsdecode(text)
    if not text.strip():
        raise UsageError(f"{name} is empty: give a path")
    if "\x00" in text:
        raise UsageError(f"{name} {shown(text)} contains a NUL character")
    if any(ord(c) < 32 or ord(c) == 127 for c in text):
        # legal in Linux names, but a newline or tab in a file name is almost always a quoting accident
        raise UsageError(f"{name} {shown(text)} contains a control character (newline, tab, ...)")
    try:
        raw = os.fsencode(text)
    except UnicodeError:
        raise UsageError(f"{name} {shown(text)} cannot be encoded as a file name") from None
    long = [c for c in raw.split(b"/") if len(c) > NAME_MAX]
    if long:
        raise UsageError(f"{name} {shown(text)}: a name is {len(long[0])} bytes long, at most {NAME_MAX} are allowed")
    if len(os.fsencode(os.path.abspath(text))) > PATH_MAX:
        raise UsageError(f"{name} {shown(text)} is longer than {PATH_MAX} bytes")
    return text


def _check_root(text: str, name: str) -> None:
    import os

    for p in {os.path.abspath(text), os.path.realpath(text)}:
        for root in FORBIDDEN_ROOTS:
            if p == root or p.startswith(root + "/"):
                raise UsageError(f"{name} {shown(text)} is under {root}, which is not a place for output files")


def _absolute(text: str) -> str:
    """`text` made absolute *without* normalizing it: "file/.." must stay a path through a file (the kernel
    refuses it), not collapse to the folder of the file as os.path.abspath would make it."""
    import os

    return text if os.path.isabs(text) else os.path.join(os.getcwd(), text)


def _nearest_existing(path: str) -> str:
    """The closest ancestor of `path` (itself included) that exists; a dangling symlink counts as existing."""
    import os

    p = path
    while not os.path.lexists(p):
        parent = os.path.dirname(p)
        if parent == p:
            break
        p = parent
    return p


def _check_creatable(text: str, name: str, path: str, what: str) -> None:
    """`path` does not exist: its nearest existing ancestor must be a writable folder."""
    import os

    anc = _nearest_existing(os.path.dirname(path))
    if not os.path.exists(anc):
        raise UsageError(f"{name} {shown(text)}: {shown(anc)} is a broken symbolic link")
    if not os.path.isdir(anc):
        raise UsageError(f"{name} {shown(text)}: {shown(anc)} is a file, so it cannot hold the {what}")
    if not os.access(anc, os.W_OK | os.X_OK):
        raise UsageError(f"{name} {shown(text)}: cannot create the {what}, {shown(anc)} is not writable")


def output_dir(text, name: str = "--out", *, files=(), folders=()):
    """Validate, before any work, a folder the command will write into (missing folders may be created).

    `files` / `folders`: names the command writes inside it; one that exists with the wrong kind (a folder
    where a file is meant, a file where a folder is meant) is refused too. Returns the path as given."""
    import os

    text = _check_text(text, name)
    _check_root(text, name)
    path = _absolute(text)
    if os.path.lexists(path) and not os.path.exists(path):
        raise UsageError(f"{name} {shown(text)} is a broken symbolic link")
    if os.path.exists(path):
        if not os.path.isdir(path):
            raise UsageError(f"{name} {shown(text)} is a file, expected a folder")
        if not os.access(path, os.W_OK | os.X_OK):
            raise UsageError(f"{name} {shown(text)} is a folder that is not writable")
        for f in files:
            if os.path.isdir(os.path.join(path, f)):
                raise UsageError(f"{name} {shown(text)}: {shown(f)} inside it is a folder, but a file is written there")
        for d in folders:
            sub = os.path.join(path, d)
            if os.path.lexists(sub) and not os.path.isdir(sub):
                raise UsageError(f"{name} {shown(text)}: {shown(d)} inside it is a file, but a folder is written there")
            if os.path.isdir(sub) and not os.access(sub, os.W_OK | os.X_OK):
                raise UsageError(f"{name} {shown(text)}: the folder {shown(d)} inside it is not writable")
    else:
        _check_creatable(text, name, path, "folder")
    return text


def output_file(text, name: str = "--out"):
    """Validate, before any work, a file the command will write (replaced atomically; missing parent
    folders may be created): not a folder, not a device, its folder exists or can be created."""
    import os
    import stat

    text = _check_text(text, name)
    _check_root(text, name)
    if text.endswith(("/", os.sep)) or os.path.basename(text) in (".", ".."):
        raise UsageError(f"{name} {shown(text)} names a folder, expected a file")
    path = _absolute(text)
    if os.path.lexists(path) and not os.path.exists(path):
        raise UsageError(f"{name} {shown(text)} is a broken symbolic link")
    if os.path.exists(path):
        if os.path.isdir(path):
            raise UsageError(f"{name} {shown(text)} is a folder, expected a file")
        if not stat.S_ISREG(os.stat(path).st_mode):
            raise UsageError(f"{name} {shown(text)} is not a regular file")
        if not os.access(os.path.dirname(path), os.W_OK | os.X_OK):
            raise UsageError(f"{name} {shown(text)}: its folder is not writable")
    else:
        _check_creatable(text, name, path, "file")
    return text


def make_folder(path) -> None:
    """Create a validated output folder (and its parents)."""
    import os

    os.makedirs(os.fspath(path), exist_ok=True)


def write_atomic(path, text: str | bytes) -> None:
    """Write a validated output file via a temporary sibling and rename (an interrupted run leaves nothing
    half-written); missing parent folders are created."""
    import os

    path = os.fspath(path)
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    from local2global.numeric.infra.atomic import atomic_write
    atomic_write(path, text)


# ------------------------------------------------------------------------------------------------ shared options
def add_json_flag(parser, what: str = "the result") -> None:
    """`--json`: a flag, the same in every command: print `what` as JSON on stdout instead of text. (A value
    after it, the old `--json FILE` of `check` and `flow --suite`, is refused by `cli.main` with the option
    that writes a file instead: the module's `JSON_FILE_HINT`.)"""
    parser.add_argument("--json", action="store_true", help=f"print {what} as JSON on stdout instead of text")


def json_value_error(argv, hint: str = "") -> str | None:
    """The message refusing `--json VALUE` / `--json=VALUE` in `argv` (None if there is none)."""
    for i, a in enumerate(argv):
        value = a.split("=", 1)[1] if a.startswith("--json=") else (
            argv[i + 1] if a == "--json" and i + 1 < len(argv) and not argv[i + 1].startswith("-") else None)
        if value is not None:
            return (f"--json is a flag (JSON on stdout) and takes no value, got {shown(value)}; "
                    + (f"to write a file use {hint}" if hint else "redirect stdout to keep it"))
    return None


def progress_enabled() -> bool:
    """Progress bars and step counters only on a terminal: never on piped or redirected stderr."""
    import sys

    try:
        return sys.stderr.isatty()
    except (AttributeError, ValueError):
        return False


class TerminalProgress:
    """Progress of a multi-step job on a terminal: one line per step, a tqdm bar for the steps that go item
    by item (`progress(step, done, total, item)`, the callback of `pipeline.run_all`). Use only when
    `progress_enabled()`: nothing of it must reach piped output."""

    def __init__(self, prefix: str = "l2g"):
        import sys
        self.prefix, self.file, self.bar, self.step = prefix, sys.stderr, None, None

    def __call__(self, step, done=None, total=None, item=""):
        if total is None:
            self.close()
            print(f"[{self.prefix}] {step}", file=self.file, flush=True)
            return
        if self.bar is None or self.step != step:
            from tqdm import tqdm
            self.close()
            self.step = step
            self.bar = tqdm(total=total, desc=f"[{self.prefix}] {step}", file=self.file, leave=True)
        self.bar.set_postfix_str(item, refresh=False)
        self.bar.update(done - self.bar.n)

    def close(self):
        if self.bar is not None:
            self.bar.close()
        self.bar = self.step = None


def kernel_step(records, out, workers):
    """The kernel pass over the records (`proofs.kernel.apply`), with a progress bar and one summary line on
    stderr; without ``coqc`` one line says so and the records are returned unchanged."""
    from local2global.proofs import kernel
    from tqdm import tqdm

    if kernel.coqc() is None:
        print(f"l2g: note: {kernel.MISSING}", file=sys.stderr)
        return records
    with tqdm(desc="kernel", unit="file", file=sys.stderr, leave=False, disable=not progress_enabled()) as bar:
        def progress(done, n):
            bar.total = n
            bar.update(done - bar.n)
        records, ks = kernel.apply(records, out, workers, progress)
    print(f"l2g: kernel: {ks.certified_steps} of {ks.exact_steps} exact steps kernel-checked by Coq {ks.coq} "
          f"({len(ks.unfit)} not expressible, {len(ks.not_compiled)} not compiled); negative controls refused by the "
          f"kernel: {ks.controls_refused} of {ks.controls_total}"
          + (f"; CONTRADICTION: the control certificate of {', '.join(ks.control_alarms)} compiled"
             if ks.control_alarms else "") + f"; {ks.files} certificates ({ks.cached} cached), {ks.seconds:.0f} s",
          file=sys.stderr)
    return records
