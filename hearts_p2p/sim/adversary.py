"""A hostile peer: the honest shell and protocol, plus whatever its keys let it sign and send.

Every attack is made of the project's own parts: its votes, noleads and aborts are the
protocol's own (``give_up_on``, ``roll_call``, ``quit``), called when no honest clock would; its
claims, equivocations and junk are envelopes signed with its own key for the step it stands in,
or an old one; it may withhold, delay or replay what it sends. Colluders pick the same victim.
"""

from __future__ import annotations

import contextlib
import functools
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from ..cards import cards_of
from ..deck import DeckUsageError
from ..engine import Action, PlayCard, SeatView
from ..game import Status
from ..game.claims import claim_body
from ..game.steps import StepKind
from ..identity import Identity
from ..wire import (
    KINDS,
    PROTOCOL_VERSION,
    Envelope,
    SignedMessage,
    WireError,
    decode_frame,
    encode_message,
    pack,
)
from .peer import SimPeer
from .scenario import Attack

if TYPE_CHECKING:
    from .world import World

__all__ = ["Adversary"]

_JUNK_BODIES: tuple[dict[str, Any], ...] = (
    {},
    {"x": 1},
    {"claim": []},
    {"player": 0, "ending": "gone", "evidence": []},
    {"player": 1, "ending": "stalled", "evidence": [b"\x00" * 8]},
    {"reason": "x", "culprit": 1, "ending": "gone", "evidence": []},
    {"reason": "x", "culprit": 0, "ending": "left", "evidence": []},
    {"share": b"\x01" * 32, "player": 1},
    {"card": 3},
    {"add": True},
)


class Adversary(SimPeer):
    """Player ``index`` with ``attacks``; its own seat's play is a bot's unless an attack acts."""

    hostile = True

    def __init__(
        self,
        world: World,
        index: int,
        identity: Identity,
        secret: bytes,
        bot: str,
        attacks: frozenset[Attack],
    ) -> None:
        super().__init__(world, index, identity, secret, bot)
        self.attacks = attacks
        self.sent: list[bytes] = []  # every frame it signed, for its replays
        self._claimed: tuple[int, str] | None = None  # the play step of its last claim
        if Attack.STALL in attacks:
            self.slow = 0.9 / 0.75  # 0.9 of the timeout: past the move clock, under the stall

    def think_time(self) -> float:
        """A staller ignores its bank: 0.9 of the timeout over every decision."""
        if Attack.STALL in self.attacks:
            return 0.9 * self.world.timeout
        return super().think_time()

    # -- its own moments -------------------------------------------------------------------

    def plan(self) -> None:
        """Schedule its next unprompted act, a few seconds (up to a timeout) away."""
        quiet = {Attack.WITHHOLD, Attack.STALL, Attack.EQUIVOCATE, Attack.CLAIM}
        if not self.attacks - quiet:
            return
        delay = self.rng.uniform(0.2, self.world.timeout)
        self.world.clock.after(delay, self._act)

    def victim(self) -> int:
        """The honest player colluders agree on: the lowest one still at the table."""
        honest = [p.index for p in self.world.peers if not p.hostile]
        return honest[0] if honest else (self.index + 1) % self.world.n

    def _act(self) -> None:
        if not self.alive:
            return
        p = self.protocol
        if p.status is not Status.RUNNING and Attack.REPLAY not in self.attacks:
            return
        self.plan()
        act = self.rng.choice(sorted(self.attacks - {Attack.WITHHOLD, Attack.STALL}))
        if act is Attack.FALSE_VOTE:
            p.give_up_on(self.victim(), self.world.timeout, stalled=self.rng.random() < 0.5)
        elif act is Attack.NOLEAD:
            p.roll_call()
        elif act is Attack.QUIT:
            p.quit("leaver")
        elif act is Attack.ABORT:
            self._forge("abort", "abort", {
                "reason": "gone", "culprit": self.victim(),
                "ending": self.rng.choice(("gone", "stalled", "left")), "evidence": [],
            })  # fmt: skip
        elif act is Attack.JUNK:
            body = dict(self.rng.choice(_JUNK_BODIES))
            kind = self.rng.choice(sorted(KINDS))
            self._forge(kind, self.rng.choice((p.step.name, kind)), body)
        elif act is Attack.REPLAY and self.sent:
            self.broadcast(self._replayed(self.rng.choice(self.log or self.sent)))
        elif act is Attack.SILENT:
            self.gone_for_good = True
            self.crash(torn=False)
            return
        elif act is Attack.CLAIM:
            self._claim()
        self.flush()

    def _replayed(self, frame: bytes) -> bytes:
        """An old frame as it is, re-wrapped (its envelope's length written longer than
        needed), or its envelope signed again for another game."""
        how = self.rng.random()
        try:
            msg = decode_frame(frame)
        except WireError:
            return frame
        if how < 0.2:
            env = msg.envelope_bytes
            return b"\x92\xc6" + len(env).to_bytes(4, "big") + env + pack(msg.signature)
        if how < 0.4:
            other = replace(msg.envelope, game_id=bytes(16))
            self.world.coverage.combos.add((self.protocol.step.kind.value, other.kind, "replay"))
            return encode_message(self.identity, other).raw
        return frame

    def _forge(self, kind: str, step: str, body: dict[str, Any]) -> None:
        """Sign ``body`` as ``kind`` for ``step`` under this seat's next number (or an old one)
        and send it to everyone, without its own protocol taking it."""
        p = self.protocol
        me = p.me if p.me is not None else self.index
        seq = p.next_seq if self.rng.random() < 0.8 else self.rng.randrange(max(1, p.next_seq))
        env = Envelope(PROTOCOL_VERSION, p.game_id, p.step.hand, step, me, seq, p.step.prev,
                       kind, body)  # fmt: skip
        msg = encode_message(self.identity, env)
        self.sent.append(msg.raw)
        self.broadcast(msg.raw)
        self.world.coverage.combos.add((p.step.kind.value, kind, "forged"))

    def _claim(self) -> bool:
        """Claim the rest, whatever the hand: a claim that does not hold is refused."""
        p = self.protocol
        s = p._s
        g = p.game
        seat = p.my_seat
        if g is None or g.hand is None or seat is None or s.flow is None:
            return False
        h = g.hand
        if p.step.kind is not StepKind.OPEN or h.turn != seat or h.trick or not h.claims_allowed:
            return False
        cards = tuple(int(c) for c in cards_of(h.hands[seat]))
        if not cards:
            return False
        self._claimed = (p.step.hand, p.step.name)
        p._send(p.step.name, claim_body(s, cards))
        return True

    # -- its seat's decisions --------------------------------------------------------------

    def choose(self, view: SeatView) -> Action:
        return self.bot.choose(view)

    def _decide(self, token: int, view: SeatView) -> None:
        if self._choosing != token or not self.alive:
            return
        step = self.protocol.step
        again = self._claimed == (step.hand, step.name)  # refused: it claims again, for ever
        if Attack.CLAIM in self.attacks and (again or self.rng.random() < 0.7) and self._claim():
            self._choosing = 0
            self.flush()
            return
        # A twin play opened another card of its own deck: the bot may pick that one now.
        with contextlib.suppress(DeckUsageError):
            super()._decide(token, view)

    def outgoing(self, out: list[SignedMessage]) -> list[SignedMessage]:
        """Its own messages as they leave: twins to some peers, some held back, some late."""
        if Attack.EQUIVOCATE in self.attacks:
            out = [m for m in out if not self._twin(m)]
        if Attack.STALL in self.attacks and out:
            delay = 0.9 * self.world.timeout
            for m in out:
                self.world.clock.after(delay, functools.partial(self._late, m.raw))
            return []
        return out

    def _late(self, frame: bytes) -> None:
        if self.alive:
            self.broadcast(frame)

    def broadcast(self, frame: bytes) -> None:
        self.sent.append(frame)
        for j in range(self.world.n):
            if j == self.index:
                continue
            if Attack.WITHHOLD in self.attacks and self.rng.random() < 0.5:
                continue
            self.send(j, frame)

    def _twin(self, m: SignedMessage) -> bool:
        """Send ``m`` to some peers and a twin of it (same number, another body) to the
        others; False when it made none (``m`` goes as usual)."""
        if self.rng.random() < 0.5:
            return False
        env = m.envelope
        body = dict(env.body)
        p = self.protocol
        flow = p.flow
        view = p.view()
        if env.kind == "play" and flow is not None and view is not None:
            others = [a.card for a in view.legal if isinstance(a, PlayCard)]
            if others:
                try:
                    body = flow.make_open(int(self.rng.choice(others)))
                except Exception:
                    return False
        else:
            body["x"] = self.rng.randrange(1 << 16)
        twin_env = Envelope(env.version, env.game_id, env.hand, env.step, env.sender, env.seq,
                            env.prev, env.kind, body)  # fmt: skip
        twin = encode_message(self.identity, twin_env)
        if twin.raw == m.raw:
            return False
        self.world.coverage.combos.add((env.step.split(".")[0], env.kind, "equivocate"))
        split = self.rng.randrange(1, self.world.n)
        for j in range(self.world.n):
            if j != self.index:
                self.send(j, twin.raw if j < split else m.raw)
        self.sent.append(twin.raw)
        return True
