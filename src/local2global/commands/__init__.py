"""One module per `l2g` subcommand (discovered automatically; names starting with _ are helpers)."""
from local2global.commands._common import UsageError as UsageError

__all__ = ["UsageError"]
