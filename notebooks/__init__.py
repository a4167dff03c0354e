"""The walkthrough notebooks (jupytext percent-format `NN_name.py`), shipped with the package so that
`l2g all` can execute them from an installed wheel. They are not meant to be imported."""
