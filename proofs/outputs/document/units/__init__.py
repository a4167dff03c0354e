"""The units of the derivations document, one module per paper topic (importing registers them)."""
from . import setting, landscape, flow, attention, full, untied  # noqa: F401 - importing registers them
