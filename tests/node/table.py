"""An in-memory table: every player's GameProtocol, messages delivered in a seeded random order."""

from __future__ import annotations

from hearts_p2p.identity import Identity
from hearts_p2p.node.localtable import LocalTable
from hearts_p2p.node.protocol import GameProtocol
from hearts_p2p.rules import Rules

GAME_ID = bytes(range(16))


def identities(n: int) -> list[Identity]:
    return [Identity.from_seed(bytes([i + 1]) * 32) for i in range(n)]


class Table(LocalTable):
    """The test table: fixed keys and secrets, so every game is the same for a given seed."""

    def __init__(
        self, rules: Rules, seed: int = 1, strategy: str = "heuristic", deal: int = 0
    ) -> None:
        """``deal`` varies the players' secrets, and so every deal; ``seed`` the bots and the
        network's order."""
        n = rules.players
        secrets = [bytes([i + 9 + deal]) * 32 for i in range(n)]
        super().__init__(
            rules, identities(n), secrets, GAME_ID, seed=seed, strategy=strategy,
            table_name="test table",
        )  # fmt: skip


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
