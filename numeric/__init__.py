"""High-precision (mpmath) and float evaluation of the derived expressions; later flows and the torch model."""
from local2global.numeric.evaluate.landscape import Landscape as Landscape, PointValues as PointValues

__all__ = ["Landscape", "PointValues"]
