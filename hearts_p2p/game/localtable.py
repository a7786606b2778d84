"""A whole table in one process: every player's protocol, messages passed by hand.

No sockets and no clock: messages are delivered one at a time in an order drawn from a seeded
generator, so a game is reproducible. It is the bound `hearts bench game` measures the network
against, and the table the protocol's tests run on (with hooks to tamper with messages or to
act in a seat's place).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Protocol

from ..engine import Action, SeatView
from ..identity import Identity
from ..rules import Rules
from ..wire import SignedMessage
from .genesis import Genesis, Player
from .protocol import GameProtocol

__all__ = ["Chooser", "LocalTable"]


class Chooser(Protocol):
    """Whoever plays a seat at the table: a bot, in practice."""

    def choose(self, view: SeatView) -> Action: ...


class LocalTable:
    """Players joined by a perfect network that reorders, ``seats`` choosing for each seat;
    ``tamper`` may rewrite or drop what a player sends, ``choose`` may act for a player
    (returning True when it did)."""

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
    ) -> None:
        n = rules.players
        self.ids = list(identities)
        host = self.ids[0].public_key
        self.protos = [GameProtocol(game_id, host, self.ids[i], secrets[i]) for i in range(n)]
        players = tuple(
            Player(f"p{i}", self.ids[i].public_key, self.protos[i].dh_public, True)
            for i in range(n)
        )
        self.genesis = Genesis(game_id, table_name, rules, players, 0)
        self.seats = list(seats)
        self.rng = random.Random(seed)
        self.queue: list[tuple[int, SignedMessage]] = []
        self.tamper: Callable[[int, SignedMessage], SignedMessage | None] | None = None
        self.choose: Callable[[int, GameProtocol], bool] | None = None

    def run(self, max_rounds: int = 1_000_000) -> None:
        """Play until nobody has anything left to send or decide."""
        self.protos[0].propose(self.genesis)
        for _ in range(max_rounds):
            for i, p in enumerate(self.protos):
                out, _, _ = p.drain()
                for m in out:
                    sent = self.tamper(i, m) if self.tamper else m
                    if sent is not None:
                        self.queue += [(j, sent) for j in range(len(self.protos)) if j != i]
            if self.queue:
                j, m = self.queue.pop(self.rng.randrange(len(self.queue)))
                self.protos[j].receive(m)
                continue
            if not self._act():
                return
        raise RuntimeError("the table did not settle")

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
