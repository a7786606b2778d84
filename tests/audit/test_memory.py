"""A peer's memory per hand stays small: nothing keeps the decoded messages of finished steps."""

from __future__ import annotations

import gc

from hearts_p2p.game import GameProtocol, Genesis, Status
from hearts_p2p.log import read_log
from hearts_p2p.wire import SignedMessage, decode_frame

from .log_vectors import DIR


def test_a_replayed_game_keeps_no_decoded_message_of_its_finished_steps() -> None:
    entries = read_log(DIR / "ties_play_on.log").entries  # two hands
    first = decode_frame(entries[0]).envelope
    genesis = Genesis.from_wire(first.game_id, first.body)
    proto = GameProtocol(genesis.game_id, genesis.players[0].key)
    gc.collect()
    # Messages another test of this process left alive are not this replay's: held here, so
    # none is freed and its address taken by one of the replay's.
    before = [o for o in gc.get_objects() if isinstance(o, SignedMessage)]
    others = {id(o) for o in before}
    for raw in entries:
        proto.receive(decode_frame(raw))
        proto.drain()
    assert proto.status is Status.FINISHED
    gc.collect()
    alive = sum(isinstance(o, SignedMessage) and id(o) not in others for o in gc.get_objects())
    assert len(entries) > 150 and alive <= genesis.rules.players
