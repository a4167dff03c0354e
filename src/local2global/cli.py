"""`l2g`: parses arguments and dispatches to the subcommand modules in `local2global.commands`.

Every module there defines `NAME`, `HELP`, `SUMMARY` (one line), `EXAMPLE`, `add_arguments(parser)` and `run(args) -> int`.
Nothing reaches the user as a traceback: input errors raise `UsageError` and end as one line on stderr with
exit code 2; a valid input the numeric layer cannot handle (`ComputationError`) and an OSError while writing
end as one line and exit code 1; any other exception too (exit 1, the traceback only with L2G_TRACEBACK=1). Bare `l2g` prints the overview (commands, one example each) on
stderr and exits 2, like every other call that names no valid command.
"""
from __future__ import annotations

import argparse
import importlib
import os
import pkgutil
import re
import sys

from local2global import commands
from local2global.commands import ComputationError, UsageError, json_value_error, shown

DESCRIPTION = ("Companion to 'Local to Global' (Makkuva et al., NeurIPS 2024): derivations, proof checks, "
               "flows and the full transformer.")


def _command_modules():
    names = sorted(m.name for m in pkgutil.iter_modules(commands.__path__) if not m.name.startswith("_"))
    return [importlib.import_module(f"{commands.__name__}.{n}") for n in names]


class _Parser(argparse.ArgumentParser):
    def __init__(self, *a, **k):
        super().__init__(*a, **k)
        # argparse reads only -3 and -0.5 as values, so `--w0 -1/2` or `--e -1e-3` failed with "expected one
        # argument"; no option of ours starts with a digit, so "-" + digit, ".digit", inf or nan is a value
        self._negative_number_matcher = re.compile(r"^-(\d|\.\d|inf|nan)", re.IGNORECASE)

    def error(self, message):          # argparse prints usage + message; we keep it to one line
        raise UsageError(message)


def overview(mods=None) -> str:
    """The command list with one example each (epilog of `l2g --help`, and what bare `l2g` prints)."""
    mods = mods or _command_modules()
    width = max(len(m.NAME) for m in mods)
    lines = ["commands (l2g COMMAND --help for the options of one):"]
    for m in mods:
        lines.append(f"  {m.NAME:<{width}}  {m.SUMMARY}")
        lines.append(f"  {'':<{width}}  e.g. {m.EXAMPLE}")
    lines += ["", "Numbers are read exactly (0.9 is 9/10). --json prints JSON on stdout; --out names what a "
                  "command writes (default ./build)."]
    return "\n".join(lines)


def build_parser() -> argparse.ArgumentParser:
    mods = _command_modules()
    parser = _Parser(prog="l2g", description=DESCRIPTION, epilog=overview(mods),
                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True
    for mod in mods:
        sp_ = sub.add_parser(mod.NAME, help=mod.HELP, description=mod.HELP,
                             epilog=f"example: {mod.EXAMPLE}" + (f"\n\n{mod.EPILOG}" if getattr(mod, "EPILOG", "") else ""),
                             formatter_class=argparse.RawDescriptionHelpFormatter)
        mod.add_arguments(sp_)
        sp_.set_defaults(_run=mod.run)
    return parser


def _os_error(ex: OSError) -> str:
    where = f" {shown(ex.filename)}" if getattr(ex, "filename", None) else ""
    return f"cannot write{where}: {ex.strerror or ex}"


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    try:
        parser = build_parser()
        if not argv:
            print(parser.format_usage().rstrip() + "\n\n" + overview(), file=sys.stderr)
            return 2
        by_name = {m.NAME: m for m in _command_modules()}
        if argv[0] in by_name:
            bad_json = json_value_error(argv[1:], getattr(by_name[argv[0]], "JSON_FILE_HINT", ""))
            if bad_json:
                raise UsageError(bad_json)
        args = parser.parse_args(argv)
        return int(args._run(args) or 0)
    except UsageError as ex:
        print(f"l2g: error: {' '.join(str(ex).split())}", file=sys.stderr)
        return 2
    except ComputationError as ex:
        print(f"l2g: error: {' '.join(str(ex).split())}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("l2g: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # the reader went away (e.g. `l2g check | head`): not an error of ours, and no traceback
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0
    except OSError as ex:
        # the paths were validated before any work, so this is the machine (disk full, a folder removed
        # meanwhile, ...), not the input: exit 1
        print(f"l2g: error: {' '.join(_os_error(ex).split())}", file=sys.stderr)
        return 1
    except Exception as ex:                                  # a user never sees a traceback
        if os.environ.get("L2G_TRACEBACK"):
            raise
        msg = " ".join(f"{type(ex).__name__}: {ex}".split())[:300]
        print(f"l2g: error: internal error ({msg}); please report it (L2G_TRACEBACK=1 shows the traceback)",
              file=sys.stderr)
        return 1


def console() -> None:
    """The `l2g` program (its console script and `python -m local2global`): `main`, then the process ends at once.

    By then every output is written and closed and every worker has ended; what the interpreter's shutdown
    would add is freeing each derived expression one by one (half a second after `l2g check`). A run under
    coverage (the mutation benchmark) exits normally: coverage saves its data at exit. SIGINT and SIGTERM end it
    by `numeric.infra.interrupt` (its whole process tree, one line, exit 130 / 143)."""
    from local2global.numeric.infra import interrupt
    interrupt.install()
    code = main()
    if "coverage" in sys.modules:
        raise SystemExit(code)
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (BrokenPipeError, OSError, ValueError):
            pass                                              # the reader went away: nothing left to say
    os._exit(code)


if __name__ == "__main__":
    console()
