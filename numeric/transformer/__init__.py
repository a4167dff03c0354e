"""The full single-layer transformer in torch (float64), the canonical map onto it, training runs."""
