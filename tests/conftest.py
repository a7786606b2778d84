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
    """The slow tests first, dealt out among the workers: no long test is left to run alone at
    the end while the other worker idles.

    Under ``-n`` xdist's load scheduler first sends each worker a chunk of consecutive tests (a
    quarter of its share) and never moves them: with the slow tests simply first, the first
    worker got every one of them. So each worker's first chunk starts with its turn of them."""
    slow = [item for item in items if item.get_closest_marker("slow") is not None]
    fast = [item for item in items if item.get_closest_marker("slow") is None]
    workers = getattr(config, "workerinput", {}).get("workercount", 1)
    chunk = max(len(items) // max(workers, 1) // 4, 2)
    if workers < 2 or len(slow) > chunk * workers:
        items[:] = slow + fast
        return
    rest = iter(fast)
    dealt: list[pytest.Item] = []
    for w in range(workers):
        turn = slow[w::workers]
        dealt += turn + [item for _, item in zip(range(chunk - len(turn)), rest, strict=False)]
    items[:] = dealt + list(rest)


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
