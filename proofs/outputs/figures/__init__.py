"""The figures (paper numbering), each registered by a `fig_*` module of this package."""
