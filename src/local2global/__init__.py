"""local2global: a symbolic-mathematics companion to Makkuva et al., "Local to Global" (NeurIPS 2024).

Subpackages: `local2global.symbolic` (SymPy derivations), `local2global.numeric` (mpmath / numpy /
torch evaluation), `local2global.proofs` (the claim registry). The `l2g` command is `local2global.cli`.
"""
__version__ = "0.1.0"
