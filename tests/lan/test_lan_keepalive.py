"""A cable pulled with nothing in flight: the other end sees the link go, though no reset ever
comes. Without the transport's keepalive the kernel would hold the idle link up for hours, so
a node waiting on that peer (the first lead, which no one else can name) would wait for ever."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from .lan_netns import private_lan, require_netns

pytestmark = [pytest.mark.netns, pytest.mark.slow]


def test_an_idle_link_whose_cable_is_pulled_is_seen_down() -> None:
    require_netns()
    script = str(Path(__file__).with_name("idle_peer.py"))
    with private_lan(2) as lan:
        peers = [
            subprocess.Popen(lan.command(i, script, str(i), *lan.addresses),
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            for i in range(2)
        ]  # fmt: skip
        try:
            assert peers[0].stdout is not None
            assert json.loads(peers[0].stdout.readline()) == {"connected": True}
            lan.unplug(1)
            out, err = peers[0].communicate(timeout=180)
        finally:
            for p in peers:
                if p.poll() is None:
                    p.kill()
                p.communicate()
    assert peers[0].returncode == 0, err
    assert json.loads(out)["gone_after_s"] is not None, "the pulled link stayed up"
