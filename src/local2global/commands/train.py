"""`l2g train --setting ours|paper`: the training runs behind Figs. 3, 4, 6 into the cache the claims read.

Parsing and validation only; the runs are `numeric.transformer.experiments.train_setting` (nothing cached is
trained again)."""
from __future__ import annotations

import sys

from ._common import UsageError, output_dir, progress_enabled

NAME = "train"
HELP = ("train the full transformer for Figs. 3, 4 and 6 into the cache that `l2g check` / `l2g all` read: "
        "--setting ours (N = 12, exact losses; what the first `l2g all` trains) or --setting paper (the paper's "
        "N = 1024, d = 8, std 0.001, SGD, batch 16, 800 iterations, 3 seeds, the learning rate by a stated rule; "
        "hours on two CPU cores)")
SUMMARY = "train Figs. 3, 4, 6 in our setting or the paper's (N = 1024, SGD) into the cache the claims read"
EXAMPLE = "l2g train --setting paper"
EPILOG = ("the paper's setting: Fig. 3 as Sec. 5.1 states it; Fig. 6 with Fig. 3's training (the paper states no\n"
          "other); Fig. 4 with Sec. 5.2's p = 0.5, q = 0.8, std 0.02 and Sec. 5.1's N, d, optimizer, batch and\n"
          "iterations. Learning rate (the paper states none): the largest power of two from 8 down to 1/128 whose\n"
          "seed-0 pilot of every init stays finite and ends below its initial held-out loss. Also trained: Fig. 3 at\n"
          "N = 12 with the paper's SGD at that rate (it separates the optimizer from the sequence length).")


def add_arguments(parser):
    parser.add_argument("--setting", required=True, choices=("ours", "paper"),
                        help="ours: N = 12, exact population losses (about a minute); paper: the paper's setting")
    parser.add_argument("--device", default="cpu", choices=("cpu", "cuda"),
                        help="where torch trains (cuda only when torch sees a GPU; cached apart from the CPU's runs)")


def run(args) -> int:
    from local2global.numeric.transformer import experiments as X
    output_dir(X.cache_dir(), "cache folder")
    if args.device == "cuda":
        import torch
        if not torch.cuda.is_available():
            raise UsageError("--device cuda: torch sees no GPU on this machine (torch.cuda.is_available() is False)")
    terminal = progress_enabled()

    def say(text):
        if terminal:
            print(f"[l2g train] {text}", file=sys.stderr, flush=True)
    X.train_setting(args.setting, device=args.device, progress=terminal, say=say)
    which = "the paper's" if args.setting == "paper" else "our"
    print(f"l2g: the runs of Figs. 3, 4, 6 in {which} setting are cached "
          f"in {X.cache_dir()}", file=sys.stderr)
    return 0
