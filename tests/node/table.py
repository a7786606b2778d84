"""An in-memory table: every player's GameProtocol, messages delivered in a seeded random order."""

from __future__ import annotations

import random
from collections.abc import Callable

from hearts_p2p.bots import make_bot
from hearts_p2p.identity import Identity
from hearts_p2p.node.genesis import Genesis, Player
from hearts_p2p.node.protocol import GameProtocol
from hearts_p2p.rules import Rules
from hearts_p2p.wire import SignedMessage

GAME_ID = bytes(range(16))


def identities(n: int) -> list[Identity]:
    return [Identity.from_seed(bytes([i + 1]) * 32) for i in range(n)]


class Table:
    """Players connected by a perfect, reordering network; ``tamper`` may rewrite messages."""

    def __init__(
        self, rules: Rules, seed: int = 1, strategy: str = "heuristic", deal: int = 0
    ) -> None:
        """``deal`` varies the players' secrets, and so every deal; ``seed`` the bots and the
        network's order."""
        n = rules.players
        self.ids = identities(n)
        self.protos = [
            GameProtocol(
                GAME_ID, self.ids[0].public_key, self.ids[i], secret=bytes([i + 9 + deal]) * 32
            )
            for i in range(n)
        ]
        players = tuple(
            Player(f"p{i}", self.ids[i].public_key, self.protos[i].dh_public, True)
            for i in range(n)
        )
        self.genesis = Genesis(GAME_ID, "test table", rules, players, 0)
        self.bots = [make_bot(strategy, seed + i) for i in range(n)]
        self.rng = random.Random(seed)
        self.queue: list[tuple[int, SignedMessage]] = []
        self.tamper: Callable[[int, SignedMessage], SignedMessage | None] | None = None
        self.choose: Callable[[int, GameProtocol], bool] | None = None

    def run(self, max_rounds: int = 1_000_000) -> None:
        self.protos[0].propose(self.genesis)
        for _ in range(max_rounds):
            for i, p in enumerate(self.protos):
                out, _, _ = p.drain()
                for m in out:
                    sent = self.tamper(i, m) if self.tamper else m
                    if sent is not None:
                        self.queue += [(j, sent) for j in range(len(self.protos)) if j != i]
            if self.queue:
                k = self.rng.randrange(len(self.queue))
                j, m = self.queue.pop(k)
                self.protos[j].receive(m)
                continue
            acted = False
            for i, p in enumerate(self.protos):
                if self.choose is not None and self.choose(i, p):
                    acted = True
                    continue
                view = p.choice_needed()
                if view is not None:
                    p.submit(self.bots[i].choose(view))
                    acted = True
            if not acted:
                return
        raise AssertionError("the table did not settle")


def play_unchecked(p: GameProtocol, card: int) -> None:
    """Send ``card`` as this seat's play, its own engine checking it only as a stranger's would:
    what a cheating client does. The other peers' checks are the ones under test."""
    assert p.game is not None and p.game.hand is not None and p.flow is not None
    seat = p.my_seat
    assert seat is not None
    hand = p.game.hand
    hand.known &= ~(1 << seat)
    try:
        p._send(p.step.name, p.flow.make_open(card))
    finally:
        hand.known |= 1 << seat
