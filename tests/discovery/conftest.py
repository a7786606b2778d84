from __future__ import annotations

import socket

import pytest

from hearts_p2p.discovery import DiscoveryConfig


def free_udp_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@pytest.fixture
def config() -> DiscoveryConfig:
    """A discovery port of this test's own, so parallel runs on the machine never mix."""
    return DiscoveryConfig(port=free_udp_port())
