"""Network warnings reach the game screen as one cleaned line each, never as raw log records."""

from __future__ import annotations

import io
import logging
from collections.abc import Iterator

import pytest

from hearts_p2p.cli.netlog import say_network_trouble
from hearts_p2p.cli.render import Screen, Style


@pytest.fixture
def root_logging() -> Iterator[None]:
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    yield
    for handler in root.handlers[:]:
        root.removeHandler(handler)
    for handler in handlers:
        root.addHandler(handler)
    root.setLevel(level)


@pytest.mark.usefixtures("root_logging")
def test_a_trouble_repeated_every_second_is_one_line_above_the_prompt() -> None:
    out = io.StringIO()
    screen = Screen(out, Style(unicode=True, color=False))
    say_network_trouble(lambda text: screen.line(f"[{text}]"))
    screen.prompt("play [2♣]> ")
    announcer = logging.getLogger("hearts_p2p.discovery.announcer")
    for _ in range(3):
        announcer.warning("announcement on %s failed: %s", "eth0", "[Errno 101] unreachable\x1b[2J")
    logging.getLogger("hearts_p2p.node.lobby").info("lobby: refused a connection: %s", "noise")
    assert out.getvalue() == (
        "play [2♣]> \n[network: announcement on eth0 failed: [Errno 101] unreachable[2J]\n"
        "play [2♣]> "
    )


@pytest.mark.usefixtures("root_logging")
def test_quiet_keeps_errors_only() -> None:
    said: list[str] = []
    say_network_trouble(said.append, logging.ERROR)
    log = logging.getLogger("hearts_p2p.transport.mesh")
    log.warning("closing connection to %s: %s", "Bea", "reset")
    log.error("cannot listen")
    assert said == ["network: cannot listen"]
