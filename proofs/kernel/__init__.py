"""The kernel pass: exact steps re-proved by Coq's kernel from certificates generated out of their SymPy
obligations (`certificate`), printed by one SymPy -> Coq printer (`coq`), compiled by `coqc` (`compile`)."""
