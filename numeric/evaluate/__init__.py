"""Evaluators of the derived expressions: mpmath (any precision), arb balls (rigorous enclosures, `arb`), the
float64 engine, compilation."""
