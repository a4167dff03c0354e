"""One module per `l2g` subcommand (discovered automatically; names starting with _ are helpers)."""
