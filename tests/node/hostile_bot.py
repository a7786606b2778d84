"""A hostile peer: the real ``hearts bot`` with its links to the other players tampered with.

Run as ``python -m tests.node.hostile_bot ATTACK <hearts bot args...>``. Every game the bot
plays gets its links wrapped (``GameRunner`` is handed a ``HostileLinks`` around the mesh), so
the attack rides the real path: the bot's own protocol, signatures, transport and sockets, and
only what leaves or enters the process differs from an honest bot's.

Attacks:
  rewrap      every frame an honest player sends it goes on to the other two, its outer
              encoding re-wrapped longer than needed (the envelope as bin 32)
  equivocate  its first pass commit goes to one peer re-signed with another digest
  accuse      at its first pass reveal it sends an abort naming an honest player, with no
              evidence, and from then on sends no signed message (it stays connected)
  late        in hand 3, long after the honest peers have dropped hand 1 from memory, its first
              play of hand 1 again with another card, under a number far ahead of its own
  silent-lead the first time it holds 2♣ at a first lead, it never leads it, and from then on
              sends no signed message (it stays connected, its kernel answering)
  nolead      the first time it holds 2♣ at a first lead, it says ``nolead`` (the card is not
              its) in place of leading it, and from then on sends no signed message
  slow        holds each of its own signed messages 0.9 of the table's timeout before sending
              it: never long enough, on any one step, for the stall clock
"""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator
from dataclasses import replace
from enum import StrEnum
from typing import Any, cast

import trio

from hearts_p2p.cards import CLUB_2
from hearts_p2p.cli.main import main
from hearts_p2p.game import GameProtocol
from hearts_p2p.node import runner
from hearts_p2p.wire import SignedMessage, WireError, decode_frame, encode_message, pack

__all__ = ["Attack", "HostileLinks", "overlong"]


class Attack(StrEnum):
    REWRAP = "rewrap"
    EQUIVOCATE = "equivocate"
    ACCUSE = "accuse"
    LATE = "late"
    SILENT_LEAD = "silent-lead"
    NOLEAD = "nolead"
    SLOW = "slow"


def overlong(msg: SignedMessage) -> bytes:
    """The same frame with its envelope's length written in a longer form than needed."""
    env = msg.envelope_bytes
    return b"\x92\xc6" + len(env).to_bytes(4, "big") + env + pack(msg.signature)


def _signed(frame: bytes) -> SignedMessage | None:
    try:
        return decode_frame(frame)
    except WireError:
        return None  # a control frame (sync, chat, done)


def _say(what: str) -> None:
    """Tell the test the attack was made: an attack that never fires would prove nothing."""
    sys.stderr.write(f"hostile bot: {what}\n")
    sys.stderr.flush()


class HostileLinks:
    """The mesh as the runner sees it, with one attack applied to what goes in and out."""

    def __init__(self, attack: Attack, mesh: Any, protocol: GameProtocol) -> None:
        self.attack = attack
        self.mesh = mesh
        self.protocol = protocol
        self.peers: tuple[bytes, ...] = mesh.peers
        self._twins: dict[bytes, bytes] = {}  # equivocate: the pass commit -> its twin
        self._accusation: tuple[bytes, bytes] | None = None  # accuse: (replaced, accusation)
        self._first_play: SignedMessage | None = None  # late: its first play of hand 1
        self._slow_said = False
        self._late_sent = False
        self._lead: tuple[bytes, bytes | None] | None = None  # its lead of 2♣ -> what goes out

    def is_connected(self, peer: bytes) -> bool:
        return bool(self.mesh.is_connected(peer))

    async def wait_change(self) -> None:
        await self.mesh.wait_change()

    def inbox(self, peer: bytes) -> AsyncIterator[bytes]:
        return self._inbox(peer)

    async def _inbox(self, peer: bytes) -> AsyncIterator[bytes]:
        async for frame in self.mesh.inbox(peer):
            msg = _signed(frame) if self.attack is Attack.REWRAP else None
            if msg is not None:
                for other in self.peers:
                    if other != peer:
                        await self._quietly(other, overlong(msg))
            yield frame

    async def send(self, peer: bytes, payload: bytes) -> None:
        frame = self._outgoing(peer, payload)
        if frame is not None:
            await self.mesh.send(peer, frame)

    async def relay(self, peer: bytes, payload: bytes) -> None:
        await self.send(peer, payload)

    async def broadcast(self, payload: bytes) -> frozenset[bytes]:
        missed: set[bytes] = set()
        if self.attack is Attack.SLOW and _signed(payload) is not None:
            if not self._slow_said:
                self._slow_said = True
                _say(f"holds each of its messages {0.9 * TIMEOUT:.1f} s")
            await trio.sleep(0.9 * TIMEOUT)
        for peer in self.peers:
            frame = self._outgoing(peer, payload)
            if frame is not None and not await self._quietly(peer, frame):
                missed.add(peer)
        late = self._late(_signed(payload)) if self.attack is Attack.LATE else None
        for peer in self.peers if late is not None else ():
            await self._quietly(peer, late)
        return frozenset(missed)

    def _late(self, msg: SignedMessage | None) -> bytes | None:
        """Once this peer sends in hand 3: its first play of hand 1 with another card."""
        if msg is None or msg.envelope.sender != self.protocol.me or self._late_sent:
            return None
        env = msg.envelope
        if env.hand == 1 and env.kind == "play" and self._first_play is None:
            self._first_play = msg
        first = self._first_play
        if env.hand < 3 or first is None or self.protocol.identity is None:
            return None
        self._late_sent = True
        old = first.envelope
        body = {**old.body, "card": (old.body["card"] + 1) % 52}
        late = encode_message(self.protocol.identity, replace(old, seq=env.seq + 1000, body=body))
        _say(f"sends its first play of hand 1 again, another card, in hand {env.hand}")
        return late.raw

    async def _quietly(self, peer: bytes, frame: bytes) -> bool:
        try:
            await self.mesh.send(peer, frame)
        except Exception:  # a peer gone mid-send: the runner's watcher sees it
            return False
        return True

    def _outgoing(self, peer: bytes, payload: bytes) -> bytes | None:
        """What this peer sends ``peer`` in place of ``payload`` (None: nothing)."""
        msg = _signed(payload)
        p = self.protocol
        if msg is None or p.me is None or p.identity is None:
            return payload
        if self.attack is Attack.EQUIVOCATE:
            return self._equivocate(peer, msg)
        if self.attack is Attack.ACCUSE:
            return self._accuse(msg)
        if self.attack in (Attack.SILENT_LEAD, Attack.NOLEAD):
            return self._withhold_lead(msg)
        return payload

    def _withhold_lead(self, msg: SignedMessage) -> bytes | None:
        """Its lead of 2♣ withheld (or a ``nolead`` in its place); nothing signed after it."""
        if self._lead is not None:
            replaced, instead = self._lead
            return instead if msg.raw == replaced else None
        env = msg.envelope
        lead = env.kind == "play" and env.body.get("card") == int(CLUB_2)
        if env.sender != self.protocol.me or not lead:
            return msg.raw
        instead: bytes | None = None
        if self.attack is Attack.NOLEAD:
            assert self.protocol.identity is not None
            nolead = replace(env, step="nolead", kind="nolead", body={})
            instead = encode_message(self.protocol.identity, nolead).raw
            _say(f"holds 2♣ in hand {env.hand} and says nolead (seq {env.seq})")
        else:
            _say(f"holds 2♣ in hand {env.hand} and never leads it")
        self._lead = (msg.raw, instead)
        return instead

    def _equivocate(self, peer: bytes, msg: SignedMessage) -> bytes:
        env = msg.envelope
        mine = env.sender == self.protocol.me and env.kind == "pass_commit"
        if not mine or (self._twins and msg.raw not in self._twins):
            return msg.raw
        if msg.raw not in self._twins:
            body = {**env.body, "digest": bytes(32)}
            assert self.protocol.identity is not None
            twin = encode_message(self.protocol.identity, replace(env, body=body))
            self._twins[msg.raw] = twin.raw
            _say(f"sends another pass commit (seq {env.seq}) to one peer")
        return self._twins[msg.raw] if peer == self.peers[0] else msg.raw

    def _accuse(self, msg: SignedMessage) -> bytes | None:
        """Its pass reveal becomes the accusation, to every peer; nothing signed after it."""
        if self._accusation is not None:
            replaced, accusation = self._accusation
            return accusation if msg.raw == replaced else None
        env = msg.envelope
        if env.sender != self.protocol.me or env.kind != "pass_reveal":
            return msg.raw
        g = self.protocol.genesis
        assert g is not None and self.protocol.identity is not None
        victim = g.index_of(self.peers[0])
        reason = f"player {victim} cheated"
        body: dict[str, Any] = {"reason": reason, "culprit": victim, "evidence": []}
        abort = replace(env, step="abort", kind="abort", body=body)
        self._accusation = (msg.raw, encode_message(self.protocol.identity, abort).raw)
        _say(f"accuses player {victim} (seq {env.seq}) and sends nothing signed any more")
        return self._accusation[1]


def _install(attack: Attack) -> None:
    """Make every ``GameRunner`` this process builds use hostile links."""
    honest_init = runner.GameRunner.__init__

    def init(
        self: runner.GameRunner, protocol: GameProtocol, links: Any, *a: Any, **kw: Any
    ) -> None:
        hostile = HostileLinks(attack, links, protocol)  # its inboxes only iterate, as used
        honest_init(self, protocol, cast(runner.Links, hostile), *a, **kw)

    runner.GameRunner.__init__ = init  # type: ignore[method-assign]


TIMEOUT = 120.0  # the table's, as the bot's command line gives it


if __name__ == "__main__":
    if "--timeout" in sys.argv:
        TIMEOUT = float(sys.argv[sys.argv.index("--timeout") + 1])
    _install(Attack(sys.argv[1]))
    sys.exit(main(["bot", *sys.argv[2:]]))
