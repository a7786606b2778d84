"""Resuming from a log cut in the middle of a step: nothing written twice, nothing lost."""

from __future__ import annotations

from pathlib import Path

import pytest

from hearts_p2p.game import GameProtocol, ProtocolError
from hearts_p2p.log import GameLog, read_log
from hearts_p2p.node.session import _replay_own_log
from hearts_p2p.rules import Rules
from hearts_p2p.wire import decode_frame

from .table import GAME_ID, TEST_PROOF_ROUNDS, Table


@pytest.mark.parametrize("step", ["remix", "remix_share", "remix_answer", "reveal"])
def test_a_log_cut_inside_a_step_resumes_without_duplicates(step: str, tmp_path: Path) -> None:
    """The peer resumed re-sends its own message of the step byte for byte: its remix proof's
    intermediates, share and answer come from its hand's stream like every other secret."""
    table = Table(Rules(players=4, target=10), seed=4)
    table.run()
    full = table.protos[3].entries
    steps = [decode_frame(e).envelope.step for e in full]
    first_reveal = steps.index(step)
    cut = first_reveal + 2  # a crash after writing two of the step's four entries
    path = tmp_path / "p3.log"
    log = GameLog.open(path)
    for entry in full[:cut]:
        log.append(entry)

    secret, choices = bytes([3 + 9]) * 32, table.protos[3].choices  # as the secrets file keeps
    proto = GameProtocol(
        GAME_ID,
        table.ids[0].public_key,
        table.ids[3],
        secret,
        choices,
        min_proof_rounds=TEST_PROOF_ROUNDS,
    )
    _replay_own_log(proto, log)
    assert len(log.entries) == first_reveal  # the half-written step is cut from the file
    for entry in full[first_reveal : first_reveal + 4]:  # the peers catch it up
        proto.receive(decode_frame(entry))
    for entry in proto.drain()[1]:
        log.append(entry)
    log.close()
    assert read_log(path).entries == full[: first_reveal + 4]


@pytest.mark.parametrize("step", ["remix", "remix_share", "remix_answer", "reveal"])
def test_a_log_cut_just_before_the_own_entry_that_ends_a_step_resumes_whole(
    step: str, tmp_path: Path
) -> None:
    """A crash after writing three of a step's four entries, the one left out the peer's own
    and the last in the step's order: the replay makes it again, completing the step, and it
    is written to the file, which goes on whole (such a log was refused as "does not replay":
    a peer killed there could never come back)."""
    table = Table(Rules(players=4, target=10), seed=4)
    table.run()
    full = table.protos[0].entries
    first = [decode_frame(e).envelope.step for e in full].index(step)
    last = decode_frame(full[first + 3]).envelope.sender  # the player whose entry ends the step
    path = tmp_path / "p.log"
    log = GameLog.open(path)
    for entry in full[: first + 3]:
        log.append(entry)
    proto = GameProtocol(
        GAME_ID,
        table.ids[0].public_key,
        table.ids[last],
        bytes([last + 9]) * 32,
        table.protos[last].choices,
        min_proof_rounds=TEST_PROOF_ROUNDS,
    )
    _replay_own_log(proto, log)
    assert log.entries == full[: first + 4]
    for entry in full[first + 4 :]:  # the peers catch it up to the end
        proto.receive(decode_frame(entry))
    for entry in proto.drain()[1]:
        log.append(entry)
    log.close()
    assert read_log(path).entries == full


def test_a_game_resumes_only_into_a_fresh_protocol() -> None:
    table = Table(Rules(players=4, target=10), seed=4)
    table.run()
    p = table.protos[0]
    with pytest.raises(ProtocolError):
        p.resume(p.entries)
