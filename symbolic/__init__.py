"""Derivations of the paper's objects with SymPy only (no numerics, no torch).

Public surface; each module is named after the paper object it derives.
"""
from . import _symbols as symbols
from ._result import Result as Result
from ._symbols import BRANCHES as BRANCHES, W_BRANCHES as W_BRANCHES
from ._symbols import binary_entropy as binary_entropy, ell_log as ell_log, sigma as sigma
from .markov import MarkovChain as MarkovChain
from .canonical import derive_logit as derive_logit, logit as logit, slope_A as slope_A, offset_c as offset_c
from .bias import F as F, G as G, b_star as b_star, derive_optimal_bias as derive_optimal_bias
from .bias import loss_with_bias as loss_with_bias, reduced_loss as reduced_loss
from .landscape import critical_points as critical_points, structure as structure
from .landscape import gradient_with_bias as gradient_with_bias, hessian_with_bias as hessian_with_bias

__all__ = [
    "symbols", "Result", "BRANCHES", "W_BRANCHES", "binary_entropy", "ell_log", "sigma", "MarkovChain",
    "derive_logit", "logit", "slope_A", "offset_c", "F", "G", "b_star", "derive_optimal_bias",
    "loss_with_bias", "reduced_loss", "critical_points", "structure", "gradient_with_bias", "hessian_with_bias",
]
