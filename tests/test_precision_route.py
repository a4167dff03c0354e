"""The route of `--dps` and of the chain through a command: one range table for every command's --dps (refused
outside it before any work, stated in each help), the requested digits honoured by every part of `l2g flow`, and
the chain built once per command and passed down."""
from __future__ import annotations

import pytest

from local2global.cli import build_parser, main
from local2global.commands._common import DPS

#: the smallest command line of each row of the table (before --dps)
ARGV = {
    "eval": ["eval", "--p", "0.2", "--q", "0.3", "--e", "1", "--w", "1/2"],
    "flow": ["flow", "--p", "0.9", "--q", "0.9", "--e0", "1/2", "--w0", "-1/2"],
    "flow --suite": ["flow", "--suite"],
    "prob": ["prob", "--p", "0.9", "--q", "0.9", "--sigma", "1/10"],
    "basins": ["basins", "--p", "0.9", "--q", "0.9", "--sigma", "1/10"],
    "check": ["check", "--list"],
    "verify": ["verify", "Thm 11"],
    "all": ["all"],
}


def _commands_with_dps() -> set[str]:
    sub = next(a for a in build_parser()._actions if a.dest == "command")
    return {name for name, p in sub.choices.items() if any("--dps" in a.option_strings for a in p._actions)}


def test_every_command_with_dps_has_a_row_of_the_one_table():
    assert {row.split()[0] for row in DPS} == _commands_with_dps() and set(ARGV) == set(DPS)


@pytest.mark.parametrize("row", sorted(DPS))
def test_a_dps_outside_the_table_is_refused_before_any_work(row, capsys):
    lo, hi, _ = DPS[row]
    for bad in (lo - 1, hi + 1):
        assert main(ARGV[row] + ["--dps", str(bad)]) == 2
        err = capsys.readouterr().err.strip()
        assert err == f"l2g: error: --dps must be between {lo} and {hi}, got {bad}", err


@pytest.mark.parametrize("row", sorted(DPS))
def test_each_help_states_the_range_and_default_of_the_table(row, capsys):
    lo, hi, default = DPS[row]
    with pytest.raises(SystemExit):
        main([ARGV[row][0], "--help"])
    assert f"({lo}..{hi}, default {default})" in " ".join(capsys.readouterr().out.split())


@pytest.mark.parametrize("extra", [[], ["--a0", "1/10"], ["--untied", "--h0", "2/5"]])
def test_l2g_flow_builds_one_chain_and_runs_every_part_at_the_requested_digits(extra, monkeypatch, capsys):
    """Below the 30 digits it once raised the theorem side to, --dps 20 is what the prediction, the integration and
    the classification are given; and the chain validated by the command is the only one built."""
    from local2global.numeric import chain as C
    from local2global.numeric.dynamics import basins, basins_r3, basins_untied, flow

    built, seen = [], []
    real_init = C.NumericChain.__post_init__
    monkeypatch.setattr(C.NumericChain, "__post_init__", lambda self: built.append(1) or real_init(self))
    for module, name in ((basins, "classify_theorem"), (basins, "predict"), (basins_r3, "predict_R3"),
                         (basins_untied, "predict"), (flow.ReducedFlow, "run")):
        real = getattr(module, name)

        def spy(*a, _real=real, _name=name, **k):
            seen.append((_name, k["dps"]))
            return _real(*a, **k)
        monkeypatch.setattr(module, name, spy)
    assert main(ARGV["flow"] + extra + ["--dps", "20", "--json"]) == 0
    capsys.readouterr()
    assert len(built) == 1
    assert {name for name, _ in seen} >= {"run"} and len(seen) >= 2, seen
    # every part at the requested 20 digits; a prediction once more at 20 + GUARD, the second precision its error
    # estimate compares with (`basins.two_precisions`), never first
    from local2global.numeric.precision import GUARD
    first = {}
    for name, d in seen:
        first.setdefault(name, d)
    assert set(first.values()) == {20} and {d for _, d in seen} <= {20, 20 + GUARD}, seen
    assert all(d == 20 for name, d in seen if name != "predict" and name != "predict_R3"), seen
