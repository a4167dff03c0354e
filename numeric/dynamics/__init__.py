"""Gradient flows at arbitrary precision, their limits and basins, Gaussian-start probabilities."""
