"""An in-memory table: every player's GameProtocol, messages delivered in a seeded random order."""

from __future__ import annotations

from typing import Any

from hearts_p2p.bots import make_bot
from hearts_p2p.game import GameProtocol, LocalTable
from hearts_p2p.game.localtable import TIGHT
from hearts_p2p.game.state import Window
from hearts_p2p.identity import Identity
from hearts_p2p.rules import Rules
from hearts_p2p.wire import PROTOCOL_VERSION, Envelope, SignedMessage, encode_message

GAME_ID = bytes(range(16))
# Remix proofs of 4 rounds: every step of the proof runs (commit, share, answer, check on
# receipt, audit) at a quarter of the 16 rounds' cost; a test of the proof's soundness (a cheat
# it catches with odds 1 - 2^-R) asks for PROOF_ROUNDS.
TEST_PROOF_ROUNDS = 4


def identities(n: int) -> list[Identity]:
    return [Identity.from_seed(bytes([i + 1]) * 32) for i in range(n)]


class Table(LocalTable):
    """The test table: fixed keys and secrets, so every game is the same for a given seed."""

    def __init__(
        self,
        rules: Rules,
        seed: int = 1,
        strategy: str = "heuristic",
        deal: int = 0,
        proof_rounds: int = TEST_PROOF_ROUNDS,
        window: Window | None = TIGHT,
        views: bool = True,
    ) -> None:
        """``deal`` varies the players' secrets, and so every deal; ``seed`` the bots and the
        network's order; ``window`` how much of its log each protocol holds in memory."""
        n = rules.players
        secrets = [bytes([i + 9 + deal]) * 32 for i in range(n)]
        bots = [make_bot(strategy, seed + i) for i in range(n)]
        super().__init__(
            rules,
            identities(n),
            secrets,
            GAME_ID,
            bots,
            seed=seed,
            table_name="test table",
            proof_rounds=proof_rounds,
            window=window,
            views=views,
        )
        self.proof_rounds = proof_rounds


def forge(p: GameProtocol, body: dict[str, Any]) -> SignedMessage:
    """A message signed by ``p`` for its current step, its state left untouched."""
    assert p.identity is not None and p.me is not None
    step = p.step
    env = Envelope(PROTOCOL_VERSION, p.game_id, step.hand, step.name, p.me, p.next_seq,
                   step.prev, step.kind.value, body)  # fmt: skip
    return encode_message(p.identity, env)


def send_to_all(table: LocalTable, sender: int, msg: SignedMessage) -> None:
    """Deliver ``msg`` to every peer, the cheat's own included: its client took it as sent."""
    table.queue += [(j, msg) for j in range(len(table.protos))]


def play_unchecked(table: LocalTable, player: int, card: int) -> None:
    """Send ``card`` as this seat's play, its own engine checking it only as a stranger's would:
    what a cheating client does. The other peers' checks are the ones under test."""
    p = table.protos[player]
    assert p.game is not None and p.game.hand is not None and p.flow is not None
    seat = p.my_seat
    assert seat is not None
    hand = p.game.hand
    hand.known &= ~(1 << seat)
    try:
        msg = forge(p, p.flow.make_open(card))
        p.receive(msg)
    finally:
        hand.known |= 1 << seat
    send_to_all(table, player, msg)
