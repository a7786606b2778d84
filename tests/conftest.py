"""Every test runs with settings of its own: the user's hearts config file is never read, and
every property test draws the same examples on every run, in any worker."""

from __future__ import annotations

import compileall
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import settings

# Derandomized: a property test's examples follow from its name alone, so a run under xdist, on
# CI or on a laptop tries the same ones, and a failure seen once is seen again. No deadline: how
# long one example takes depends on what else the machine runs, which no test may assert, and
# no example database, which the xdist workers would otherwise share.
settings.register_profile("hearts", derandomize=True, deadline=None, database=None)
settings.load_profile("hearts")


def pytest_sessionstart(session: pytest.Session) -> None:
    """The package compiled once, before any test: the suite starts hundreds of ``hearts``
    processes, and where the environment forbids writing bytecode on import
    (``PYTHONDONTWRITEBYTECODE``, as here and on CI) each would compile every module again (about
    half a second of CPU). An installed copy has its bytecode from pip; this gives the checkout
    the same. Only the controller compiles; the xdist workers find it done."""
    if hasattr(session.config, "workerinput"):
        return
    root = Path(__file__).resolve().parent.parent
    for folder in ("hearts_p2p", "cli"):
        compileall.compile_dir(root / folder, quiet=1)


def pytest_configure(config: pytest.Config) -> None:
    """The deck's P-256 products remembered across this process's tests (``cryptomemo``)."""
    from tests import cryptomemo

    cryptomemo.install()


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The slow tests first, so that under ``-n`` one worker plays the real games while the other
    runs the tests that compute in its own process.

    The slow tests are mostly processes that wait on each other and on their clocks; two of them
    side by side left both cores half idle, and the in-process tests then fought for them. Under
    xdist's ``worksteal`` (pyproject.toml) the first worker takes the first half of the tests and
    the second the rest; a worker that runs out takes half of what the other has left, from its
    end, so no long test is left to run alone at the end while the other worker idles."""
    slow = [item for item in items if item.get_closest_marker("slow") is not None]
    fast = [item for item in items if item.get_closest_marker("slow") is None]
    items[:] = slow + fast


@pytest.fixture(autouse=True, scope="session")
def _no_user_config(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """An empty XDG config folder for this process and every ``hearts`` it starts."""
    before = os.environ.get("XDG_CONFIG_HOME")
    folder: Path = tmp_path_factory.mktemp("config")
    os.environ["XDG_CONFIG_HOME"] = str(folder)
    yield
    if before is None:
        os.environ.pop("XDG_CONFIG_HOME", None)
    else:
        os.environ["XDG_CONFIG_HOME"] = before
