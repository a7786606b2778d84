"""Seating: the genesis, every player's acceptance of it, and the coin flip that draws seats.

Players are numbered in genesis order (the host is 0); the joint coin flip orders them into
seats, and from then on the engine and the deck work in seats.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..coinflip import CoinFlip, CoinFlipCheatError, commitment
from ..engine import Game
from ..wire import decode_frame
from .abort import sign_abort
from .events import RosterEntry, SeatedRoster
from .genesis import Genesis, GenesisError
from .handsteps import start_hand
from .outcome import Termination
from .state import GameState, Status, StepRule, nothing_to_send
from .steps import Step, StepId, StepKind

__all__ = ["SEATING"]


def _check_genesis(s: GameState, player: int, body: dict[str, Any]) -> Genesis:
    genesis = Genesis.from_wire(s.game_id, body)
    if genesis.players[0].key != s.host_key:
        raise GenesisError("the genesis must list its host first")
    return genesis


def _start_game(s: GameState, done: Step) -> None:
    genesis = done.parsed[0]
    assert isinstance(genesis, Genesis)
    s.genesis = genesis
    if s.identity is not None:
        s.me = genesis.index_of(s.identity.public_key)
    s.status = Status.RUNNING
    if s.me is not None and genesis.players[s.me].dh != s.dh_public:
        # Only this player knows its key: it cannot prove the host wrong, so it leaves.
        why = "the genesis lists another pass key for this player: it leaves"
        sign_abort(s, Termination.LEFT, why, s.me)
        return
    if s.me not in (None, 0):
        s.relays.append(done.got[0])  # a host that showed two geneses is caught at once
    s.flip = CoinFlip(s.game_id + b"seats", s.players)
    s.new_step(0, StepId(StepKind.ACCEPT), s.everyone())


def _digest(s: GameState) -> bytes:
    assert s.genesis is not None
    return s.genesis.digest(decode_frame(s.entries[0]).envelope_bytes)


def _check_accept(s: GameState, player: int, body: dict[str, Any]) -> None:
    if body != {"genesis": _digest(s)}:
        raise GenesisError("accepted a different genesis")


def _check_commit(s: GameState, player: int, body: dict[str, Any]) -> None:
    digest = body.get("commit") if set(body) == {"commit"} else None
    if not isinstance(digest, bytes):
        raise CoinFlipCheatError(player, "malformed commitment")
    assert s.flip is not None
    s.flip.commit(player, digest)


def _check_reveal(s: GameState, player: int, body: dict[str, Any]) -> None:
    secret = body.get("secret") if set(body) == {"secret"} else None
    if not isinstance(secret, bytes):
        raise CoinFlipCheatError(player, "malformed reveal")
    assert s.flip is not None
    s.flip.reveal(player, secret)


def _seat_players(s: GameState, done: Step) -> None:
    assert s.flip is not None and s.genesis is not None
    s.player_at = s.flip.order(list(range(s.players)))
    s.seat_of = [0] * s.players
    for seat, player in enumerate(s.player_at):
        s.seat_of[player] = seat
    s.game = Game(s.genesis.rules)
    you = s.my_seat if s.my_seat is not None else -1
    roster = s.genesis.players
    entries = tuple(
        RosterEntry(seat, roster[p].name, roster[p].fingerprint, roster[p].bot)
        for seat, p in enumerate(s.player_at)
    )
    s.events.append(SeatedRoster(entries, you, s.genesis.rules.summary()))
    start_hand(s)


def _then(kind: StepKind) -> Callable[[GameState, Step], None]:
    """Advance to the seating step ``kind``, which every player sends."""

    def advance(s: GameState, done: Step) -> None:
        s.new_step(0, StepId(kind), s.everyone())

    return advance


def _send_accept(s: GameState) -> dict[str, Any]:
    return {"genesis": _digest(s)}


def _send_commit(s: GameState) -> dict[str, Any]:
    assert s.flip is not None and s.me is not None
    return {"commit": commitment(s.flip.context, s.me, s.derive("flip"))}


def _send_reveal(s: GameState) -> dict[str, Any]:
    return {"secret": s.derive("flip")}


SEATING: dict[StepKind, StepRule] = {
    StepKind.GENESIS: StepRule(_check_genesis, _start_game, nothing_to_send),
    StepKind.ACCEPT: StepRule(_check_accept, _then(StepKind.FLIP_COMMIT), _send_accept),
    StepKind.FLIP_COMMIT: StepRule(_check_commit, _then(StepKind.FLIP_REVEAL), _send_commit),
    StepKind.FLIP_REVEAL: StepRule(_check_reveal, _seat_players, _send_reveal),
}
