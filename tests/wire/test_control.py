"""Control frames: each decoded once, into a typed value; anything else is refused."""

from __future__ import annotations

import pytest

from hearts_p2p.control import (
    MAX_CHAT,
    Chat,
    Done,
    Sync,
    Synced,
    Watching,
    encode,
    parse_control,
)
from hearts_p2p.identity import Identity
from hearts_p2p.wire import (
    Envelope,
    SignedMessage,
    WireError,
    decode_peer_frame,
    encode_message,
    pack,
)


@pytest.mark.parametrize(
    "control", [Sync(7), Synced(), Chat("hello"), Done(), Watching(("Kim", "Lou")), Watching(())]
)
def test_a_control_round_trips(control: object) -> None:
    frame = decode_peer_frame(encode(control))  # type: ignore[arg-type]
    assert isinstance(frame, dict)
    assert parse_control(frame) == control


@pytest.mark.parametrize(
    ("frame", "parsed"),
    [
        ({"t": "sync", "have": -3}, Sync(0)),
        ({"t": "chat", "text": "x" * 500}, Chat("x" * MAX_CHAT)),
        ({"t": "sync", "have": "3"}, None),
        ({"t": "chat", "text": 5}, None),
        ({"t": "shout"}, None),
        ({"t": "watching", "names": ["Kim", 7, "x" * 50]}, Watching(("Kim", "x" * 32))),
        ({"t": "watching", "names": ["w"] * 100}, Watching(("w",) * 64)),
        ({"t": "watching", "names": "Kim"}, None),
        ({}, None),
    ],
)
def test_controls_are_bounded_and_strangers_refused(
    frame: dict[str, object], parsed: object
) -> None:
    assert parse_control(frame) == parsed


def test_a_game_message_decodes_once_into_a_signed_message() -> None:
    env = Envelope(1, b"g" * 16, 0, "deal", 0, 0, bytes(32), "deal", {"keys": []})
    msg = encode_message(Identity.from_seed(bytes(32)), env)
    frame = decode_peer_frame(msg.raw)
    assert isinstance(frame, SignedMessage) and frame == msg


def test_a_frame_that_is_neither_is_refused() -> None:
    with pytest.raises(WireError) as err:
        decode_peer_frame(pack([1, 2, 3]))
    assert err.value.code == "bad_frame"
