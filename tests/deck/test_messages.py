"""Strict decoding: any garbage is a DeckMessageError, never another exception."""

from __future__ import annotations

import contextlib
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hearts_p2p.deck import DeckMessageError, Echo, Open, Stage, message_from_wire

_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.binary(max_size=40) | st.text(max_size=10),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner),
    max_leaves=10,
)
_kinds = st.sampled_from(
    [
        "shuffle",
        "echo",
        "lock",
        "deal",
        "pass_commit",
        "pass_reveal",
        "remix",
        "remix_share",
        "remix_answer",
        "open",
        "reveal",
        "x",
    ]
)


_GOOD = [
    Open(1, 5, 42, bytes(32), bytes(16)).to_wire(),
    Echo(0, Stage.LOCK, bytes(32)).to_wire(),
    {"kind": "deal", "seat": 2, "keys": [bytes(32)], "nonces": [bytes(16)]},
    {
        "kind": "pass_reveal",
        "seat": 1,
        "positions": [1, 2, 3],
        "nonce": bytes(16),
        "ephemeral": bytes(32),
        "sealed": bytes(160),
    },
    {"kind": "remix", "seat": 0, "deck": [bytes(32)], "proof": [[bytes(32)]], "share": bytes(32)},
    {"kind": "remix_share", "seat": 3, "share": bytes(32)},
    {"kind": "remix_answer", "seat": 2, "orders": [[0, 1]], "keys": [[bytes(32), bytes(32)]]},
]


@settings(max_examples=150, deadline=None)
@given(index=st.integers(0, len(_GOOD) - 1), field=st.text(max_size=12), value=_values)
def test_garbage_is_refused_cleanly(index: int, field: str, value: Any) -> None:
    """One field of a good message replaced (or added) by anything at all."""
    good = _GOOD[index]
    name = sorted(good)[len(field) % len(good)] if field else field
    with contextlib.suppress(DeckMessageError):
        message_from_wire({**good, name: value})


@settings(max_examples=100, deadline=None)
@given(kind=_kinds, extra=st.dictionaries(st.text(max_size=12), _values))
def test_unknown_shapes_are_refused(kind: str, extra: dict[str, Any]) -> None:
    with contextlib.suppress(DeckMessageError):
        message_from_wire({**extra, "kind": kind})


def test_exact_fields_and_types() -> None:
    good = Open(1, 5, 42, bytes(32), bytes(16)).to_wire()
    assert message_from_wire(good) == Open(1, 5, 42, bytes(32), bytes(16))
    for bad in (
        {**good, "extra": 1},
        {k: v for k, v in good.items() if k != "nonce"},
        {**good, "card": 52},
        {**good, "seat": True},
        {**good, "key": bytes(31)},
    ):
        with pytest.raises(DeckMessageError):
            message_from_wire(bad)
    echo = Echo(0, Stage.LOCK, bytes(32))
    assert Echo.from_wire(echo.to_wire()) == echo
    with pytest.raises(DeckMessageError):
        Echo.from_wire({**echo.to_wire(), "stage": "deal"})


def test_the_remix_proofs_messages_round_trip_and_refuse_bad_shapes() -> None:
    for good in _GOOD[-3:]:
        assert message_from_wire(good).to_wire() == good
    remix, answer = _GOOD[-3], _GOOD[-1]
    for bad in (
        {**remix, "proof": [bytes(32)]},  # a round that is not a list
        {**remix, "proof": [[bytes(32)]] * 65},  # more rounds than any proof has
        {**remix, "share": bytes(31)},
        {**answer, "orders": [[52]]},
        {**answer, "keys": [[bytes(16)]]},
        {k: v for k, v in answer.items() if k != "keys"},
    ):
        with pytest.raises(DeckMessageError):
            message_from_wire(bad)
