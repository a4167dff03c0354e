"""Numeric evaluation of the derived expressions: mpmath at any precision, a float64 engine, flows, torch.

The public surface, on one screen (names resolve lazily, so importing the package imports nothing heavy):

- `NumericChain` (exact p, q, validated once, its regime); the precision policy `precision`;
- `Landscape`, `PointValues`, `evaluate_point` (evaluate/): the model's loss, gradient, Hessian, b*, energy
  at any precision, with or without attention and bias; `engine` (float64 arrays, the basin maps);
- `integrate`, `FlowResult`, `ReducedFlow`, `critical_class`, `integrate_class` (dynamics/flow): gradient flows
  at arbitrary precision, their end points named by the critical sets;
- `classify_theorem`, `predict`, `compare`, `boundary_suite`,
  `flow_report`, `attention_flow`, `limit_class`, `basin_slice`, `bisect_boundary`, `gaussian_fractions`
  (dynamics/basins): where the flows end, by the theorems, by prediction, by integration;
- `certified_probabilities`, `prob_report` (dynamics/gaussian): Gaussian initialisations, certified (arb);
- transformer/ (the full torch model, the canonical map, training) and infra/ (pools, cache, atomic
  writes) are subpackages, imported explicitly.
"""
from importlib import import_module

_WHERE = {
    "NumericChain": "chain", "precision": None,
    "Landscape": "evaluate.landscape", "PointValues": "evaluate.landscape", "evaluate_point": "evaluate.pointeval",
    "engine": None,
    "integrate": "dynamics.flow", "FlowResult": "dynamics.flow", "ReducedFlow": "dynamics.flow",
    "classify_theorem": "dynamics.basins", "predict": "dynamics.basins", "compare": "dynamics.basins",
    "critical_class": "dynamics.flow", "integrate_class": "dynamics.flow", "boundary_suite": "dynamics.basins",
    "flow_report": "dynamics.basins", "attention_flow": "dynamics.basins", "limit_class": "dynamics.basins",
    "basin_slice": "dynamics.basins", "bisect_boundary": "dynamics.basins", "gaussian_fractions": "dynamics.basins",
    "certified_probabilities": "dynamics.gaussian", "prob_report": "dynamics.gaussian",
}
_MODULES = {"precision": "precision", "engine": "evaluate.engine"}

__all__ = sorted(_WHERE)


def __getattr__(name):
    if name not in _WHERE:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    if _WHERE[name] is None:
        value = import_module(f"{__name__}.{_MODULES[name]}")
    else:
        value = getattr(import_module(f"{__name__}.{_WHERE[name]}"), name)
    globals()[name] = value
    return value
