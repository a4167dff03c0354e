"""High-precision (mpmath) and float evaluation of the derived expressions; later flows and the torch model."""
from .landscape import Landscape as Landscape, PointValues as PointValues

__all__ = ["Landscape", "PointValues"]
