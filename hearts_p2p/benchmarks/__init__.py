"""Benchmarks run by ``hearts bench NAME``.

Each module here exposes ``add_arguments(parser)``, ``run(args) -> dict`` (the figures, JSON-ready)
and ``render(result) -> str``. Every figure is reported against a bound measured in the same run,
so a result means the same on a slow machine as on a fast one.
"""

NAMES = ("engine", "deck", "bots", "game", "handstart", "audit")
