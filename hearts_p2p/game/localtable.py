"""A whole table in one process: every player's protocol, messages passed by hand.

No sockets and no clock: each pair of players is a link that keeps its order, as a TCP stream
does, and the next link to deliver is drawn from a seeded generator, so a game is reproducible.
Players relay what they take, as the node does. It is the bound `hearts bench game` measures
the network against, and the table the protocol's tests run on (with hooks to tamper with
messages, to route them differently to each player, or to act in a seat's place).
"""

from __future__ import annotations

import functools
import random
from collections import deque
from collections.abc import Callable, Sequence
from typing import Protocol

from ..deck import PROOF_ROUNDS
from ..engine import Action, SeatView
from ..identity import Identity
from ..rules import Rules
from ..wire import SignedMessage
from .events import GameEvent
from .genesis import Genesis, Player
from .protocol import GameProtocol
from .state import Window

__all__ = ["Chooser", "LocalTable"]


TIGHT = Window(trim_at=8, keep=0, steps=4)  # the log in memory trimmed at almost every step


def _read(log: list[bytes], start: int, stop: int) -> list[bytes]:
    return log[start:stop]


class Chooser(Protocol):
    """Whoever plays a seat at the table: a bot, in practice."""

    def choose(self, view: SeatView) -> Action: ...


class LocalTable:
    """Players joined by a perfect network, ``seats`` choosing for each seat. ``tamper`` may
    rewrite or drop what a player sends, ``route`` what it sends to each other player (its
    equivocation, say), ``choose`` may act for a player (returning True when it did); ``queue``
    takes messages delivered out of any link's order (an outsider's, say)."""

    def __init__(
        self,
        rules: Rules,
        identities: Sequence[Identity],
        secrets: Sequence[bytes],
        game_id: bytes,
        seats: Sequence[Chooser],
        *,
        seed: int = 1,
        table_name: str = "local table",
        proof_rounds: int = PROOF_ROUNDS,
        window: Window | None = TIGHT,
        views: bool = True,
    ) -> None:
        n = rules.players
        self.ids = list(identities)
        host = self.ids[0].public_key
        self.protos = [
            GameProtocol(
                game_id, host, self.ids[i], secrets[i], min_proof_rounds=proof_rounds, views=views
            )
            for i in range(n)
        ]
        players = tuple(
            Player(f"p{i}", self.ids[i].public_key, self.protos[i].dh_public, True)
            for i in range(n)
        )
        # Each player's log as its shell would hold it: the protocol reads the older entries
        # back from it, and in the tight window, which tests use, it does so all the time.
        self.logs: list[list[bytes]] = [[] for _ in range(n)]
        if window is not None:
            for p, held in zip(self.protos, self.logs, strict=True):
                p.keep_history(functools.partial(_read, held), window)
        self.genesis = Genesis(game_id, table_name, rules, players, 0, proof_rounds)
        self.seats = list(seats)
        self.rng = random.Random(seed)
        self.queue: list[tuple[int, SignedMessage]] = []
        self.links: dict[tuple[int, int], deque[SignedMessage]] = {}
        self.tamper: Callable[[int, SignedMessage], SignedMessage | None] | None = None
        self.route: Callable[[int, int, SignedMessage], SignedMessage | None] | None = None
        self.choose: Callable[[int, GameProtocol], bool] | None = None

    def run(self, max_rounds: int = 1_000_000) -> None:
        """Play until nobody has anything left to send or decide."""
        self.protos[0].propose(self.genesis)
        self.settle(max_rounds)

    def settle(self, max_rounds: int = 1_000_000) -> None:
        """Deliver and decide until nothing is left; a test may then act (a timeout, say) and
        settle again."""
        for _ in range(max_rounds):
            for i, p in enumerate(self.protos):
                self._send(i, p)
            if self.queue:
                j, m = self.queue.pop(self.rng.randrange(len(self.queue)))
                self.protos[j].receive(m)
                continue
            busy = [link for link, msgs in self.links.items() if msgs]
            if busy:
                link = busy[self.rng.randrange(len(busy))]
                self.protos[link[1]].receive(self.links[link].popleft())
                continue
            if not self._act():
                return
        raise RuntimeError("the table did not settle")

    def drain(
        self, i: int, p: GameProtocol
    ) -> tuple[list[SignedMessage], list[bytes], list[GameEvent]]:
        """Player ``i``'s drain, its entries written to its log as a shell writes its file."""
        kept = p.log_kept
        out, entries, events = p.drain()
        del self.logs[i][kept:]
        self.logs[i] += entries
        return out, entries, events

    def _send(self, i: int, p: GameProtocol) -> None:
        """Player ``i``'s relays, then its own messages, onto its links."""
        n = len(self.protos)
        out, _, _ = self.drain(i, p)
        for m in p.take_relays():
            named = -1 if p.forged(m) else m.envelope.sender
            for j in range(n):
                if j not in (i, named):
                    self.links.setdefault((i, j), deque()).append(m)
        for m in out:
            sent = self.tamper(i, m) if self.tamper else m
            for j in range(n):
                routed = self.route(i, j, sent) if self.route and sent is not None else sent
                if j != i and routed is not None:
                    self.links.setdefault((i, j), deque()).append(routed)

    def _act(self) -> bool:
        acted = False
        for i, p in enumerate(self.protos):
            if self.choose is not None and self.choose(i, p):
                acted = True
                continue
            view = p.choice_needed()
            if view is not None:
                p.submit(self.seats[i].choose(view))
                acted = True
        return acted
