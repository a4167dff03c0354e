"""Evaluators of the derived expressions: mpmath (any precision), the float64 engine, compilation."""
