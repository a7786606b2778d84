from __future__ import annotations

import socket

import pytest

from hearts_p2p.discovery import DiscoveryConfig
from tests.ports import own_port


def free_udp_port() -> int:
    return own_port(socket.SOCK_DGRAM)


@pytest.fixture
def config() -> DiscoveryConfig:
    """A discovery port of this test's own, so parallel runs on the machine never mix."""
    return DiscoveryConfig(port=free_udp_port())
