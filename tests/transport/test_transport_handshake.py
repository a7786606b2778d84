"""Mutual authentication: honest peers, impostors, strangers, reflection and silence."""

from __future__ import annotations

import functools
from typing import Any

import pytest
import trio
import trio.testing

from hearts_p2p.identity import Identity
from hearts_p2p.transport import FramedStream, HandshakeError, handshake
from hearts_p2p.transport.handshake import PROTOCOL_TAG, transcript

TABLE = b"t" * 16
ALICE = Identity.from_seed(b"a" * 32)
BOB = Identity.from_seed(b"b" * 32)
MALLORY = Identity.from_seed(b"m" * 32)


def pair() -> tuple[FramedStream, FramedStream]:
    a, b = trio.testing.memory_stream_pair()
    return FramedStream(a), FramedStream(b)


async def run_both(
    dialer: Identity,
    acceptor: Identity,
    *,
    dialer_expects: bytes | None = None,
    acceptor_expects: set[bytes] | None = None,
    acceptor_table: bytes = TABLE,
) -> dict[str, bytes | Exception]:
    a, b = pair()
    results: dict[str, bytes | Exception] = {}

    async def side(name: str, frames: FramedStream, **kwargs: Any) -> None:
        try:
            results[name] = await handshake(frames, **kwargs)
        except HandshakeError as e:
            results[name] = e
            await frames.aclose()

    with trio.fail_after(5):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(
                functools.partial(
                    side,
                    "dialer",
                    a,
                    identity=dialer,
                    table_id=TABLE,
                    dialer=True,
                    expected=None if dialer_expects is None else {dialer_expects},
                )
            )
            nursery.start_soon(
                functools.partial(
                    side,
                    "acceptor",
                    b,
                    identity=acceptor,
                    table_id=acceptor_table,
                    dialer=False,
                    expected=acceptor_expects,
                )
            )
    return results


async def test_honest_peers_learn_each_others_keys() -> None:
    r = await run_both(
        ALICE, BOB, dialer_expects=BOB.public_key, acceptor_expects={ALICE.public_key}
    )
    assert r == {"dialer": BOB.public_key, "acceptor": ALICE.public_key}


async def test_wrong_key_at_the_address_is_rejected() -> None:
    r = await run_both(ALICE, MALLORY, dialer_expects=BOB.public_key)
    assert isinstance(r["dialer"], HandshakeError) and r["dialer"].reason == "unknown-peer"
    assert isinstance(r["acceptor"], HandshakeError)


async def test_stranger_is_rejected_by_the_acceptor() -> None:
    r = await run_both(MALLORY, BOB, acceptor_expects={ALICE.public_key})
    assert isinstance(r["acceptor"], HandshakeError)
    assert r["acceptor"].reason == "unknown-peer"


async def test_other_table_is_rejected() -> None:
    r = await run_both(ALICE, BOB, acceptor_table=b"u" * 16)
    assert isinstance(r["acceptor"], HandshakeError) and r["acceptor"].reason == "table"
    assert isinstance(r["dialer"], HandshakeError) and r["dialer"].reason == "table"


async def test_impostor_who_cannot_sign_for_the_key_it_claims() -> None:
    """Mallory claims Bob's key but can only sign with her own."""
    a, b = pair()

    async def impostor() -> None:
        await b.send_frame(PROTOCOL_TAG + TABLE + BOB.public_key + bytes(32))
        hello = await b.receive_frame()
        digest = transcript(TABLE, (hello[32:64], hello[64:96]), (BOB.public_key, bytes(32)))
        await b.send_frame(MALLORY.sign(b"acceptor\0" + digest))

    with trio.fail_after(5):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(impostor)
            with pytest.raises(HandshakeError) as info:
                await handshake(a, ALICE, TABLE, dialer=True, expected={BOB.public_key})
            nursery.cancel_scope.cancel()
    assert info.value.reason == "signature"


async def test_reflected_signature_is_rejected() -> None:
    """A peer that echoes our hello and our own signature back gets nowhere."""
    a, b = pair()

    async def mirror() -> None:
        await b.send_frame(await b.receive_frame())
        await b.send_frame(await b.receive_frame())

    with trio.fail_after(5):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(mirror)
            with pytest.raises(HandshakeError) as info:
                await handshake(a, ALICE, TABLE, dialer=True)
            nursery.cancel_scope.cancel()
    assert info.value.reason == "self"


@pytest.mark.parametrize(
    ("hello", "reason"),
    [
        (b"GET / HTTP/1.1\r\n", "malformed"),
        (b"x" * 96, "protocol"),
        (b"x" * 5000, "malformed"),
    ],
)
async def test_garbage_hello(hello: bytes, reason: str) -> None:
    a, b = pair()
    with trio.fail_after(5):
        await b.send_frame(hello)
        with pytest.raises(HandshakeError) as info:
            await handshake(a, ALICE, TABLE, dialer=False)
    assert info.value.reason == reason


async def test_silent_peer_meets_the_callers_timeout(
    autojump_clock: trio.testing.MockClock,
) -> None:
    a, _ = pair()
    start = trio.current_time()
    with pytest.raises(trio.TooSlowError), trio.fail_after(5):
        await handshake(a, ALICE, TABLE, dialer=False)
    assert trio.current_time() - start == pytest.approx(5)


async def test_closed_before_finishing() -> None:
    a, b = pair()
    with trio.fail_after(5):
        await b.send_frame(PROTOCOL_TAG + TABLE + BOB.public_key + bytes(32))
        await b.aclose()
        with pytest.raises(HandshakeError) as info:
            await handshake(a, ALICE, TABLE, dialer=True)
    assert info.value.reason == "closed"
