"""Build hook: the wheel ships the package's derivations, derived by the package itself while it is built.

Everything else about the package is in pyproject.toml. `build_py` copies the sources as usual, then runs
`local2global.symbolic._prederive` on the *built* copy (so the derivation cache's key, the SHA-256 of the very
sources that are installed, matches at run time) and adds its digest-checked files to
`local2global/symbolic/_derived/`. The derivations need SymPy only (a build requirement). If they cannot run,
the wheel is built without them and the first command derives into the user's cache instead: same results,
slower first run. An editable install (`pip install -e .`) runs from the source tree and ships nothing.
"""
import os
import subprocess
import sys

from setuptools import setup
from setuptools.command.build_py import build_py


class BuildWithDerivations(build_py):
    def run(self):
        super().run()
        if self.editable_mode or self.dry_run:
            return
        lib = os.path.abspath(self.build_lib)
        target = os.path.join(lib, "local2global", "symbolic", "_derived")
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [lib, os.environ.get("PYTHONPATH")])))
        env.pop("L2G_NO_DERIVATION_CACHE", None)
        done = subprocess.run([sys.executable, "-m", "local2global.symbolic._prederive", target], env=env, cwd=lib)
        if done.returncode != 0:
            self.warn("deriving the shipped derivations failed: the wheel has none (the first command derives them)")


setup(cmdclass={"build_py": BuildWithDerivations})
