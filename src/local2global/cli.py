"""`l2g`: parses arguments and dispatches to the subcommand modules in `local2global.commands`.

Every module there defines `NAME`, `HELP`, `add_arguments(parser)` and `run(args) -> int`.
Input errors raise `UsageError` and end as one line on stderr with exit code 2.
"""
from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys

from local2global import commands
from local2global.commands import UsageError


def _command_modules():
    names = sorted(m.name for m in pkgutil.iter_modules(commands.__path__) if not m.name.startswith("_"))
    return [importlib.import_module(f"{commands.__name__}.{n}") for n in names]


class _Parser(argparse.ArgumentParser):
    def error(self, message):          # argparse prints usage + message; we keep it to one line
        raise UsageError(message)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="l2g", description="Companion to 'Local to Global' (Makkuva et al., NeurIPS 2024): "
                                              "derivations, proof checks, flows and the full transformer.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True
    for mod in _command_modules():
        sp_ = sub.add_parser(mod.NAME, help=mod.HELP, description=mod.HELP)
        mod.add_arguments(sp_)
        sp_.set_defaults(_run=mod.run)
    return parser


def main(argv=None) -> int:
    try:
        args = build_parser().parse_args(argv)
        return int(args._run(args) or 0)
    except UsageError as ex:
        print(f"l2g: error: {ex}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("l2g: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # the reader went away (e.g. `l2g check | head`): not an error of ours, and no traceback
        import os
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0


if __name__ == "__main__":
    raise SystemExit(main())
