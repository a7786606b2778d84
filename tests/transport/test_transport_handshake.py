"""Mutual authentication: honest peers, impostors, strangers, relays, reflection and silence."""

from __future__ import annotations

import socket
from collections.abc import Awaitable, Callable

import pytest
import trio
import trio.testing

from hearts_p2p.identity import Identity
from hearts_p2p.transport import (
    Authenticated,
    FramedStream,
    HandshakeError,
    accept_handshake,
    dial_handshake,
)
from hearts_p2p.transport.connection import (
    KEEPALIVE,
    Connection,
    accept_connection,
    open_connection,
)
from hearts_p2p.transport.handshake import ANY_KEY, PROTOCOL_TAG, transcript

TABLE = b"t" * 16
ALICE = Identity.from_seed(b"a" * 32)
BOB = Identity.from_seed(b"b" * 32)
MALLORY = Identity.from_seed(b"m" * 32)


def pair() -> tuple[FramedStream, FramedStream]:
    a, b = trio.testing.memory_stream_pair()
    return FramedStream(a), FramedStream(b)


Outcome = Authenticated | HandshakeError


async def outcome(call: Callable[[], Awaitable[Authenticated]], frames: FramedStream) -> Outcome:
    try:
        return await call()
    except HandshakeError as e:
        await frames.aclose()
        return e


async def run_both(
    dialer: Identity,
    acceptor: Identity,
    *,
    dialer_expects: bytes | None = None,
    acceptor_expects: set[bytes] | None = None,
    acceptor_table: bytes = TABLE,
) -> dict[str, Outcome]:
    a, b = pair()
    results: dict[str, Outcome] = {}

    async def dial() -> None:
        results["dialer"] = await outcome(
            lambda: dial_handshake(a, dialer, TABLE, dialer_expects), a
        )

    async def accept() -> None:
        results["acceptor"] = await outcome(
            lambda: accept_handshake(b, acceptor, acceptor_table, acceptor_expects), b
        )

    with trio.fail_after(5):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(dial)
            nursery.start_soon(accept)
    return results


def reason(result: Outcome) -> str:
    assert isinstance(result, HandshakeError), result
    return result.reason


async def test_honest_peers_learn_each_others_keys_and_one_transcript() -> None:
    r = await run_both(
        ALICE, BOB, dialer_expects=BOB.public_key, acceptor_expects={ALICE.public_key}
    )
    dialer, acceptor = r["dialer"], r["acceptor"]
    assert isinstance(dialer, Authenticated) and isinstance(acceptor, Authenticated)
    assert (dialer.peer_key, acceptor.peer_key) == (BOB.public_key, ALICE.public_key)
    assert dialer.transcript == acceptor.transcript


async def test_a_dialer_without_a_key_takes_whoever_proves_one() -> None:
    r = await run_both(ALICE, BOB)
    assert isinstance(r["dialer"], Authenticated) and r["dialer"].peer_key == BOB.public_key


async def test_another_key_at_the_address_is_refused_both_ways() -> None:
    """Alice calls Bob; Mallory answers. Alice's proof names Bob, so Mallory cannot accept it."""
    r = await run_both(ALICE, MALLORY, dialer_expects=BOB.public_key)
    assert reason(r["acceptor"]) == "signature"
    assert reason(r["dialer"]) == "refused"


async def test_an_impostor_that_answers_with_its_own_key_is_refused() -> None:
    """Mallory ignores the check and proves her own key: Alice wanted Bob's."""
    a, b = pair()

    async def impostor() -> None:
        await b.send_frame(PROTOCOL_TAG + bytes(32))
        nonce = (await b.receive_frame())[len(PROTOCOL_TAG) :]
        await b.receive_frame()
        digest = transcript(TABLE, ALICE.public_key, MALLORY.public_key, (nonce, bytes(32)))
        await b.send_frame(MALLORY.public_key + MALLORY.sign(b"acceptor\0" + digest))

    with trio.fail_after(5):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(impostor)
            with pytest.raises(HandshakeError) as info:
                await dial_handshake(a, ALICE, TABLE, BOB.public_key)
    assert info.value.reason == "unknown-peer"


async def test_an_impostor_that_cannot_sign_for_the_key_it_claims() -> None:
    """Mallory claims Bob's key but can only sign with her own."""
    a, b = pair()

    async def impostor() -> None:
        await b.send_frame(PROTOCOL_TAG + bytes(32))
        nonce = (await b.receive_frame())[len(PROTOCOL_TAG) :]
        await b.receive_frame()
        digest = transcript(TABLE, ALICE.public_key, BOB.public_key, (nonce, bytes(32)))
        await b.send_frame(BOB.public_key + MALLORY.sign(b"acceptor\0" + digest))

    with trio.fail_after(5):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(impostor)
            with pytest.raises(HandshakeError) as info:
                await dial_handshake(a, ALICE, TABLE, BOB.public_key)
    assert info.value.reason == "signature"


async def test_a_peer_cannot_relay_a_callers_proof_to_someone_else() -> None:
    """Alice calls Mallory; Mallory forwards Alice's proof to Bob to pass as Alice there.

    Mallory relays the hellos too (so the nonces match), but Alice's proof names Mallory's key,
    and Bob accepts only a proof addressed to him.
    """
    alice_end, mallory_front = pair()
    mallory_back, bob_end = pair()
    bob: list[Outcome] = []

    async def relay(src: FramedStream, dst: FramedStream) -> None:
        while True:
            await dst.send_frame(await src.receive_frame())

    async def bob_accepts() -> None:
        bob.append(await outcome(lambda: accept_handshake(bob_end, BOB, TABLE, None), bob_end))

    with trio.fail_after(5):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(relay, mallory_front, mallory_back)
            nursery.start_soon(relay, mallory_back, mallory_front)
            nursery.start_soon(bob_accepts)
            with pytest.raises(HandshakeError):
                await dial_handshake(alice_end, ALICE, TABLE, MALLORY.public_key)
            nursery.cancel_scope.cancel()
    assert reason(bob[0]) == "signature"


@pytest.mark.parametrize("expected", [{ALICE.public_key}, None], ids=["mesh", "lobby"])
async def test_a_stranger_learns_nothing_from_an_acceptor(expected: set[bytes] | None) -> None:
    """Before the caller has proven a key it expects, the acceptor sends only its tag, a fresh
    nonce and an empty refusal: never its key, never the table id."""
    a, b = pair()
    sent: list[bytes] = []

    async def stranger() -> None:
        sent.append(await a.receive_frame())
        await a.send_frame(PROTOCOL_TAG + bytes(32))
        claim = transcript(b"x" * 16, MALLORY.public_key, ANY_KEY, (bytes(32), bytes(32)))
        await a.send_frame(MALLORY.public_key + MALLORY.sign(b"dialer\0" + claim))
        sent.append(await a.receive_frame())

    with trio.fail_after(5):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(stranger)
            with pytest.raises(HandshakeError):
                await accept_handshake(b, BOB, TABLE, expected)
    assert len(sent[0]) == len(PROTOCOL_TAG) + 32 and sent[0].startswith(PROTOCOL_TAG)
    assert sent[1] == b""
    assert not any(BOB.public_key in s or TABLE in s for s in sent)


async def test_a_mesh_acceptor_wants_to_be_named() -> None:
    """A caller that did not say whom it calls is taken only by an open acceptor (the lobby)."""
    r = await run_both(ALICE, BOB, acceptor_expects={ALICE.public_key})
    assert reason(r["acceptor"]) == "signature"
    assert reason(r["dialer"]) == "refused"


async def test_another_table_is_refused() -> None:
    r = await run_both(ALICE, BOB, acceptor_table=b"u" * 16)
    assert reason(r["acceptor"]) == "signature"
    assert reason(r["dialer"]) == "refused"


async def test_a_reflected_hello_is_refused() -> None:
    """A peer that echoes everything back gets nowhere."""
    a, b = pair()

    async def mirror() -> None:
        while True:
            await b.send_frame(await b.receive_frame())

    with trio.fail_after(5):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(mirror)
            with pytest.raises(HandshakeError) as info:
                await dial_handshake(a, ALICE, TABLE, None)
            nursery.cancel_scope.cancel()
    assert info.value.reason == "self"


async def test_our_own_key_is_refused() -> None:
    r = await run_both(ALICE, ALICE)
    assert reason(r["acceptor"]) == "self"


@pytest.mark.parametrize(
    ("hello", "why"),
    [
        (b"GET / HTTP/1.1\r\n", "malformed"),
        (b"x" * 48, "protocol"),
        (b"x" * 5000, "malformed"),
    ],
)
async def test_garbage_hello(hello: bytes, why: str) -> None:
    a, b = pair()
    with trio.fail_after(5):
        await b.send_frame(hello)
        with pytest.raises(HandshakeError) as info:
            await accept_handshake(a, ALICE, TABLE)
    assert info.value.reason == why


async def test_silent_peer_meets_the_callers_timeout(
    autojump_clock: trio.testing.MockClock,
) -> None:
    a, _ = pair()
    start = trio.current_time()
    with pytest.raises(trio.TooSlowError), trio.fail_after(5):
        await accept_handshake(a, ALICE, TABLE)
    assert trio.current_time() - start == pytest.approx(5)


async def test_closed_before_finishing() -> None:
    a, b = pair()
    with trio.fail_after(5):
        await b.send_frame(PROTOCOL_TAG + bytes(32))
        await b.aclose()
        with pytest.raises(HandshakeError) as info:
            await dial_handshake(a, ALICE, TABLE, None)
    assert info.value.reason == "closed"


@pytest.mark.skipif(not hasattr(socket, "TCP_USER_TIMEOUT"), reason="Linux's TCP options")
async def test_both_ends_of_a_connection_ask_the_kernel_to_notice_a_silent_peer() -> None:
    """Dialed and accepted sockets alike carry the keepalive and the user timeout: a pulled
    cable sends no reset, and only these end such a link (tests/lan/test_lan_keepalive.py)."""
    a, b = Identity.from_seed(bytes([1]) * 32), Identity.from_seed(bytes([2]) * 32)
    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    port = listeners[0].socket.getsockname()[1]
    accepted: list[Connection] = []
    async with trio.open_nursery() as nursery:

        async def accept() -> None:
            stream = await listeners[0].accept()
            accepted.append(await accept_connection(stream, b, b"T" * 16))

        nursery.start_soon(accept)
        dialed = await open_connection("127.0.0.1", port, a, b"T" * 16, expected=b.public_key)
    for conn in (dialed, accepted[0]):
        sock = conn._frames.stream.socket  # type: ignore[attr-defined]
        assert sock.getsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE) == 1
        tcp = socket.IPPROTO_TCP
        assert sock.getsockopt(tcp, socket.TCP_KEEPIDLE) == KEEPALIVE["idle"]
        assert sock.getsockopt(tcp, socket.TCP_KEEPCNT) == KEEPALIVE["count"]
        assert sock.getsockopt(tcp, socket.TCP_USER_TIMEOUT) == KEEPALIVE["user_timeout_ms"]
        await conn.aclose()
    await listeners[0].aclose()
