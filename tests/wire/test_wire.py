"""The envelope format and the strict decoder: signed bytes round-trip, garbage is refused."""

from __future__ import annotations

import contextlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hearts_p2p.identity import Identity
from hearts_p2p.wire import (
    MAX_FRAME,
    Envelope,
    WireError,
    decode_frame,
    encode_message,
    pack,
)

ALICE = Identity.from_seed(bytes(range(32)))
BOB = Identity.from_seed(bytes(range(1, 33)))


def envelope(**over: object) -> Envelope:
    fields: dict[str, object] = dict(
        version=1,
        game_id=b"g" * 16,
        hand=1,
        step="shuffle",
        sender=2,
        seq=7,
        prev=bytes(32),
        kind="shuffle",
        body={"deck": [b"x" * 32, b"y" * 32]},
    )
    fields.update(over)
    return Envelope(**fields)  # type: ignore[arg-type]


def test_round_trip_keeps_exact_bytes_and_verifies() -> None:
    msg = encode_message(ALICE, envelope())
    back = decode_frame(msg.raw)
    assert back.envelope == msg.envelope
    assert back.raw == msg.raw and back.envelope_bytes == msg.envelope_bytes
    assert back.verify(ALICE.public_key)
    assert not back.verify(BOB.public_key)


def test_flipped_byte_breaks_the_signature() -> None:
    msg = encode_message(ALICE, envelope())
    raw = bytearray(msg.raw)
    raw[-70] ^= 1  # inside the envelope bytes
    try:
        back = decode_frame(bytes(raw))
    except WireError:
        return
    assert not back.verify(ALICE.public_key)


@pytest.mark.parametrize(
    ("over", "code"),
    [
        ({"version": 2}, "unknown_version"),
        ({"game_id": b"short"}, "bad_field"),
        ({"hand": -1}, "bad_field"),
        ({"sender": 99}, "bad_field"),
        ({"seq": True}, "bad_field"),
        ({"prev": b"\x00" * 31}, "bad_field"),
        ({"kind": ""}, "bad_field"),
        ({"kind": "no_such_kind"}, "unknown_kind"),
        ({"step": "ü"}, "bad_field"),
        ({"body": {"a": {"b": {"c": {"d": {"e": {"f": {"g": {}}}}}}}}}, "too_deep"),
    ],
)
def test_bad_envelope_fields_are_refused_with_their_code(
    over: dict[str, object], code: str
) -> None:
    env = envelope(**over)
    raw = pack([pack(env.to_list()), b"s" * 64])
    with pytest.raises(WireError) as err:
        decode_frame(raw)
    assert err.value.code == code


@pytest.mark.parametrize(
    ("raw", "code"),
    [
        (b"", "not_msgpack"),
        (b"\xc1", "not_msgpack"),
        (pack({"a": 1}), "bad_frame"),
        (pack([b"x", b"y", b"z"]), "bad_frame"),
        (pack([b"x", b"s" * 63]), "bad_signature_length"),
        (pack([pack([1, 2, 3]), b"s" * 64]), "bad_envelope"),
        (pack([pack({1: 2}), b"s" * 64]), "not_msgpack"),
        (b"\x00" * (MAX_FRAME + 1), "too_large"),
    ],
)
def test_malformed_frames_get_specific_errors(raw: bytes, code: str) -> None:
    with pytest.raises(WireError) as err:
        decode_frame(raw)
    assert err.value.code == code


@settings(max_examples=400, derandomize=True)
@given(st.binary(max_size=2048))
def test_random_bytes_only_ever_raise_wire_error(data: bytes) -> None:
    with contextlib.suppress(WireError):
        decode_frame(data)


@settings(max_examples=400, derandomize=True)
@given(st.data())
def test_mutated_frames_only_ever_raise_wire_error_or_fail_verification(
    data: st.DataObject,
) -> None:
    original = encode_message(ALICE, envelope())
    raw = bytearray(original.raw)
    for _ in range(data.draw(st.integers(1, 4))):
        op = data.draw(st.sampled_from(["flip", "cut", "insert"]))
        i = data.draw(st.integers(0, max(0, len(raw) - 1)))
        if op == "flip" and raw:
            raw[i] ^= data.draw(st.integers(1, 255))
        elif op == "cut":
            del raw[i:]
        else:
            raw[i:i] = data.draw(st.binary(min_size=1, max_size=8))
    try:
        msg = decode_frame(bytes(raw))
    except WireError:
        return
    if (msg.envelope_bytes, msg.signature) != (original.envelope_bytes, original.signature):
        assert not msg.verify(ALICE.public_key)


def _longer(data: bytes) -> bytes:
    """``data`` as a bin 32 item: a valid but longer encoding than the shortest."""
    return b"\xc6" + len(data).to_bytes(4, "big") + data


def test_a_frame_rewrapped_in_longer_bytes_is_refused() -> None:
    """Only the shortest encoding is a frame: re-wrapping a genuine message can never make it
    look like a second message under the same number."""
    msg = encode_message(ALICE, envelope())
    rewrapped = b"\x92" + _longer(msg.envelope_bytes) + pack(msg.signature)
    with pytest.raises(WireError) as e:
        decode_frame(rewrapped)
    assert e.value.code == "not_canonical"


def test_an_envelope_in_longer_bytes_is_refused_even_when_signed() -> None:
    """A signer's own non-shortest envelope is refused too: one message, one byte string."""
    env = envelope()
    fields = env.to_list()
    long_seq = b"\x99" + b"".join(pack(f) for f in fields[:5]) + b"\xce" + (7).to_bytes(4, "big")
    long_env = long_seq + b"".join(pack(f) for f in fields[6:])
    assert decode_frame(encode_message(ALICE, env).raw).envelope == env
    signed = pack([long_env, ALICE.sign(b"hearts-p2p/v1 message\0" + long_env)])
    with pytest.raises(WireError) as e:
        decode_frame(signed)
    assert e.value.code == "not_canonical"
