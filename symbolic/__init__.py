"""Derivations of the paper's objects with SymPy only (no numerics, no torch).

The public surface, on one screen. The model object carries everything the paper derives for the
canonical scalars; the modules below it are named after the paper's objects.

- `canonical_model(attention=False|True)`: the reduced model (logit slope A, offset, loss with bias,
  b*, reduced loss G(A), gradient, Hessian, energy, critical sets with derived classes) in R^2/R^3
  (attention off) or R^3/R^4 (attention on);
- `MarkovChain`: the data (stationary law, entropies, regime);
- `derive_logit`, `derive_attention_output` (Eq. 3, 39-41, computed from the transformer);
- `F`, `G`, `derive_optimal_bias` (Lemma 5 in the coordinates (A, c)); `structure`, `A_star` (Sec. 3);
- `derive_energy`, `energy_on_w_axis`, `saddle_asymptotes`, `E_sad`, `g_of_w`, `f_w_axis` (Sec. 4, Lemma 12);
- `basin_sets`, `I_common`, `limit_equations` (Thms 2, 8);
- `Basin`, `Piece`, `RELATIONS`, `first_match`: the one type of the basin sets in R^2 (`basins.basins`) and R^3
  (`theorem_sets`: Theorems A, B), with its one operator table;
- R^3 with attention (Sec. 4.1, our result): `slope_factors`, `flow_structure`, `airy_reduction`, `linearisation`,
  `separatrix`, `airy_tail`, `lambert_inverse`, `race`, `lemma_c`, `r3_facts`, the sign data (`Datum`,
  `sign_data`), `derive_limit_r3`, `theorem_sets`, `set_class_r3`;
- `latex`: the one LaTeX printer in the paper's notation; `simplify_unit`, `simplify_log`: targeted
  simplification under 0 < p, q < 1.
"""
from . import _symbols as symbols
from ._result import Result as Result
from ._symbols import BRANCHES as BRANCHES, W_BRANCHES as W_BRANCHES
from ._symbols import binary_entropy as binary_entropy, ell_log as ell_log, sigma as sigma
from .markov import MarkovChain as MarkovChain, printed_entropy_rate as printed_entropy_rate
from .canonical import derive_logit as derive_logit, derive_attention_output as derive_attention_output
from .canonical import rank_one_logit as rank_one_logit, rank_one_parameters as rank_one_parameters
from .bias import F as F, G as G, derive_optimal_bias as derive_optimal_bias
from .bias import cross_entropy_loss as cross_entropy_loss, logistic_loss as logistic_loss
from .landscape import structure as structure, A_star as A_star, G_prime_at_0 as G_prime_at_0
from .model import CanonicalModel as CanonicalModel, CriticalSet as CriticalSet, canonical_model as canonical_model
from .model import ATT_BRANCHES as ATT_BRANCHES
from .energy import derive_energy as derive_energy, conservation as conservation
from .energy import energy_on_w_axis as energy_on_w_axis, saddle_asymptotes as saddle_asymptotes
from .energy import E_sad as E_sad, f_w_axis as f_w_axis, g_of_w as g_of_w
from .basins import basin_sets as basin_sets, I_common as I_common
from .basins import limit_equations as limit_equations
from .sets import Basin as Basin, Piece as Piece, RELATIONS as RELATIONS, first_match as first_match
from .latex import latex as latex
from ._simplify import simplify_log as simplify_log, simplify_unit as simplify_unit
# the digest-checked cache files, also used for the code compiled from these expressions (numeric.evaluate)
from ._cache import store_verified as store_verified, verified_file as verified_file
# where every cache of the package lives ($L2G_CACHE/<kind>): one rule, read by numeric.infra.cache too
from ._cache import cache_folder as cache_folder

#: the objects of R^3 with attention (`basins_r3`), imported on first use: most commands never need the module
_R3 = ("slope_factors", "flow_structure", "airy_reduction", "linearisation", "separatrix", "airy_tail",
       "lambert_inverse", "race", "lemma_c", "r3_facts", "Datum", "sign_data", "derive_limit_r3", "theorem_sets",
       "set_class_r3")


def __getattr__(name):
    if name in _R3:
        from . import basins_r3
        value = globals()[name] = getattr(basins_r3, name)
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "store_verified", "verified_file", "cache_folder",
    "symbols", "Result", "BRANCHES", "W_BRANCHES", "ATT_BRANCHES", "binary_entropy", "ell_log", "sigma",
    "MarkovChain", "printed_entropy_rate", "derive_logit", "derive_attention_output", "rank_one_logit",
    "rank_one_parameters", "F", "G", "derive_optimal_bias", "cross_entropy_loss", "logistic_loss", "structure",
    "A_star", "G_prime_at_0", "CanonicalModel", "CriticalSet", "canonical_model", "derive_energy",
    "conservation", "energy_on_w_axis", "saddle_asymptotes", "E_sad", "f_w_axis", "g_of_w",
    "basin_sets", "I_common", "limit_equations", "latex", "simplify_log", "simplify_unit",
    "Basin", "Piece", "RELATIONS", "first_match", *_R3,
]
