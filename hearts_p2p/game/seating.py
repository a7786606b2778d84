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
from .escrow import EscrowEntry, ephemeral_secret, make_escrow, open_entry, open_with_ephemeral
from .events import RosterEntry, SeatedRoster
from .genesis import Genesis, GenesisError
from .handsteps import start_hand
from .outcome import CheatError, Termination
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
    s.move_to(Status.RUNNING)
    if s.me not in (None, 0):
        s.relays.append(done.got[0])  # a host that showed two geneses is caught at once
    s.flip = CoinFlip(s.game_id + b"seats", s.players)
    s.new_step(0, StepId(StepKind.ACCEPT), s.everyone())
    # A player that will not play this genesis leaves at its first step, where its word is
    # placed for every peer alike.
    if s.me is not None and genesis.players[s.me].dh != s.dh_public:
        # Only this player knows its key: it cannot prove the host wrong, so it leaves.
        why = "the genesis lists another pass key for this player: it leaves"
        sign_abort(s, Termination.LEFT, why, s.me)
    elif s.me is not None and genesis.proof_rounds < s.min_proof_rounds:
        why = (
            f"the genesis asks remix proofs of {genesis.proof_rounds} rounds, fewer than the "
            f"{s.min_proof_rounds} this player accepts: it leaves"
        )
        sign_abort(s, Termination.LEFT, why, s.me)


def _digest(s: GameState) -> bytes:
    assert s.genesis is not None
    return s.genesis.digest(decode_frame(s.read(0, 1)[0]).envelope_bytes)


def _check_accept(s: GameState, player: int, body: dict[str, Any]) -> None:
    if set(body) != {"genesis", "escrow"} or body["genesis"] != _digest(s):
        raise GenesisError("accepted a different genesis")
    items = body["escrow"]
    if not isinstance(items, list) or len(items) != s.players - 1:
        raise GenesisError(f"its escrow is not {s.players - 1} entries")
    entries = [EscrowEntry.from_wire(item) for item in items]
    holders = [h for h in s.everyone() if h != player]
    escrow: dict[int, EscrowEntry] = {}
    for holder, entry in zip(holders, entries, strict=True):
        if entry is None:
            raise GenesisError("its escrow holds a malformed entry")
        escrow[holder] = entry
    s.escrow[player] = escrow
    if s.me is None or player == s.me:
        return
    share = open_entry(escrow[s.me], s.game_id, player, s.me, s.dh_private, s.dh_public)
    if share is None:
        # Only this player can see it: it says so at the coin flip, and the sender must show
        # the box's key before any card is dealt.
        s.bad_escrow = player if s.bad_escrow is None else min(s.bad_escrow, player)
    else:
        s.shares[player] = share


def _send_accept(s: GameState) -> dict[str, Any]:
    assert s.genesis is not None and s.me is not None
    dhs = [p.dh for p in s.genesis.players]
    escrow = make_escrow(s.secret, s.game_id, s.me, dhs)
    return {"genesis": _digest(s), "escrow": [e.to_wire() for e in escrow]}


def _check_commit(s: GameState, player: int, body: dict[str, Any]) -> int | None:
    digest = body.get("commit") if set(body) == {"commit", "escrow"} else None
    if not isinstance(digest, bytes):
        raise CoinFlipCheatError(player, "malformed commitment")
    bad = body["escrow"]
    if bad is not None and (
        not isinstance(bad, int) or isinstance(bad, bool) or bad == player
        or not 0 <= bad < s.players
    ):  # fmt: skip
        raise CoinFlipCheatError(player, "malformed escrow alarm")
    assert s.flip is not None
    s.flip.commit(player, digest)
    return bad


def _after_commit(s: GameState, done: Step) -> None:
    """Every escrow box must open for its holder before the seats are drawn: a box disputed at
    the coin flip is settled by its sender showing that box's key."""
    s.disputes = {p: a for p, a in done.parsed.items() if isinstance(a, int)}
    accused = sorted(set(s.disputes.values()))
    if accused:
        s.new_step(0, StepId(StepKind.ESCROW_OPEN), tuple(accused))
    else:
        s.new_step(0, StepId(StepKind.FLIP_REVEAL), s.everyone())


def _accusers(s: GameState, accused: int) -> list[int]:
    return [p for p in s.everyone() if s.disputes.get(p) == accused]


def _check_open_escrow(s: GameState, player: int, body: dict[str, Any]) -> list[bytes]:
    keys = body.get("keys") if set(body) == {"keys"} else None
    need = len(_accusers(s, player))
    if not isinstance(keys, list) or len(keys) != need:
        raise GenesisError(f"showed not {need} escrow keys")
    if not all(isinstance(k, bytes) and len(k) == 32 for k in keys):
        raise GenesisError("showed a malformed escrow key")
    return keys


def _send_open_escrow(s: GameState) -> dict[str, Any]:
    assert s.me is not None
    return {"keys": [ephemeral_secret(s.secret, h) for h in _accusers(s, s.me)]}


def _settle_escrow(s: GameState, done: Step) -> None:
    """Open each disputed box with its shown key: a box holding its committed share makes the
    alarm false; anything else is its sender's fault. The first dispute by accuser decides."""
    assert s.genesis is not None
    evidence = tuple(done.in_order())
    disputes: list[tuple[int, int, bytes]] = []
    for accused in done.senders:
        keys = done.parsed[accused]
        assert isinstance(keys, list)
        disputes += zip(_accusers(s, accused), [accused] * len(keys), keys, strict=False)
    accuser, accused, key = min(disputes)
    entry = s.escrow[accused][accuser]
    names = s.genesis.players
    dh = names[accuser].dh
    if open_with_ephemeral(entry, s.game_id, accused, accuser, key, dh) is not None:
        why = f"said the escrow {names[accused].name} sealed to it is bad, but it opens"
        raise CheatError(accuser, why, evidence)
    raise CheatError(accused, f"sealed a bad escrow share to {names[accuser].name}", evidence)


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


def _send_commit(s: GameState) -> dict[str, Any]:
    assert s.flip is not None and s.me is not None
    return {"commit": commitment(s.flip.context, s.me, s.derive("flip")), "escrow": s.bad_escrow}


def _send_reveal(s: GameState) -> dict[str, Any]:
    return {"secret": s.derive("flip")}


SEATING: dict[StepKind, StepRule] = {
    StepKind.GENESIS: StepRule(_check_genesis, _start_game, nothing_to_send),
    StepKind.ACCEPT: StepRule(_check_accept, _then(StepKind.FLIP_COMMIT), _send_accept),
    StepKind.FLIP_COMMIT: StepRule(_check_commit, _after_commit, _send_commit),
    StepKind.ESCROW_OPEN: StepRule(_check_open_escrow, _settle_escrow, _send_open_escrow),
    StepKind.FLIP_REVEAL: StepRule(_check_reveal, _seat_players, _send_reveal),
}
