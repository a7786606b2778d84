"""The installed distribution's version: one number, kept in pyproject.toml only. Its own
module, so ``hearts --version`` answers without loading the rest of the program."""

from __future__ import annotations

__all__ = ["installed_version"]


def installed_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("hearts-p2p")
    except PackageNotFoundError:
        return "unknown (not installed)"
