"""A peer backed by its shell's log holds only the last of it in memory, and decides alike."""

from __future__ import annotations

from hearts_p2p.game import GameEvent, GameProtocol, Status
from hearts_p2p.game.state import Window
from hearts_p2p.rules import Rules
from hearts_p2p.wire import SignedMessage

from .table import Table


class _Held(Table):
    """A test table that notes the most log entries any of its protocols held in memory."""

    most = 0

    def drain(
        self, i: int, p: GameProtocol
    ) -> tuple[list[SignedMessage], list[bytes], list[GameEvent]]:
        drained = super().drain(i, p)
        self.most = max(self.most, p.log_held)
        return drained


def test_a_peer_with_a_history_holds_a_bounded_slice_of_its_log_and_decides_alike() -> None:
    """Every protocol that the shell's log backs holds only the last entries in memory, however
    long the game, and reads older ones back when it must: its log is byte for byte the log of
    a protocol that keeps everything, at every peer."""
    rules = Rules(target=50)
    whole = _Held(rules, seed=5, window=None)
    whole.run()
    window = Window(trim_at=24, keep=8)
    sliced = _Held(rules, seed=5, window=window)
    sliced.run()
    log = whole.protos[0].entries
    assert all(p.status is Status.FINISHED for p in (*whole.protos, *sliced.protos))
    assert whole.protos[0].game is not None and whole.protos[0].game.number >= 3
    for i, p in enumerate(sliced.protos):
        assert p.entries == log and sliced.logs[i] == log
    assert whole.most == len(log)  # without a history, all of it
    assert sliced.most <= window.trim_at + 2 * rules.players  # one drain's steps past the mark
