"""The `l2g` program's entry point (its console script and `python -m local2global`): the interruption handlers
first, before the CLI's imports (a fifth of a second), so that a Ctrl-C at any moment ends it the same way."""


def console() -> None:
    from local2global.numeric.infra import interrupt
    interrupt.install()
    from local2global.cli import console as run
    run()
