"""One module per `l2g` subcommand (discovered automatically; names starting with _ are helpers)."""
from local2global.commands._common import ComputationError as ComputationError, UsageError as UsageError
from local2global.commands._common import json_value_error as json_value_error, shown as shown

__all__ = ["ComputationError", "UsageError", "json_value_error", "shown"]
