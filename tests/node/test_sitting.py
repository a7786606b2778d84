"""The newcomer's side of ``hearts join --seat``, on the virtual clock: what it checks before
it sits and how long it waits. A feed is a list of frames on a stand-in connection: the log
of an in-memory game in which player 2 died in hand 1 and the table plays its seat."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import pytest
import trio

from hearts_p2p.game import GameProtocol, SeatedRoster, Status
from hearts_p2p.identity import Identity
from hearts_p2p.node.session import SessionError
from hearts_p2p.node.sitting import SitTimes, _asking, _catch_up, _check, _refused_watch
from hearts_p2p.node.watch import live_frame, peers_frame
from hearts_p2p.rules import OpenSeats, Rules
from hearts_p2p.wire import decode_frame

from .table import GAME_ID, TEST_PROOF_ROUNDS
from .test_takeover import DyingTable

KIM = Identity.from_seed(bytes([200]) * 32)


class Feed:
    """A watch connection that gives ``frames``, then nothing (a node that says no more)."""

    def __init__(self, frames: list[bytes]) -> None:
        self.frames = list(frames)
        self.sent: list[bytes] = []

    async def receive(self) -> bytes:
        if not self.frames:
            await trio.sleep_forever()
        return self.frames.pop(0)

    async def send(self, frame: bytes) -> None:
        self.sent.append(frame)


@cache
def whole_log() -> tuple[bytes, ...]:
    """The log of a game of four hands in which player 2 died in hand 1."""
    table = DyingTable(Rules(target=40, open_seats=OpenSeats.ANYONE), dead=2, hand=1,
                       step="play.9", seed=3)  # fmt: skip
    table.play()
    return tuple(table.protos[0].entries)


@cache
def open_log() -> tuple[bytes, ...]:
    """A running game's log up to a few entries after the table took player 2's seat over."""
    entries = whole_log()
    watcher = GameProtocol(GAME_ID, decode_frame(entries[0]).envelope.body["players"][0]["key"])
    for i, raw in enumerate(entries):
        watcher.receive(decode_frame(raw))
        if 2 in watcher.table_seats:
            return tuple(entries[: i + 5])
    raise AssertionError("the table never took the seat over")


def seat_of_two() -> int:
    p = GameProtocol(GAME_ID, decode_frame(open_log()[0]).envelope.body["players"][0]["key"])
    for raw in open_log():
        p.receive(decode_frame(raw))
    return p.seat_of[2]


async def test_an_honest_feed_audits_sound_and_the_open_seat_is_found(
    tmp_path: Path, autojump_clock: trio.abc.Clock
) -> None:
    """The log so far, then the node's ``live``: sound as far as it goes, seat open: player 2;
    the seats as drawn are kept for the newcomer's screen."""
    feed = Feed([*open_log(), live_frame(len(open_log()))])
    seats: list[SeatedRoster] = []
    live = await _catch_up(feed, GAME_ID, tmp_path / "w.log", SitTimes(), seats)  # type: ignore[arg-type]
    assert [len(s.players) for s in seats] == [4]
    try:
        assert _check(live, tmp_path / "w.log", seat_of_two()) == 2
        with pytest.raises(SessionError, match="is not open"):
            _check(live, tmp_path / "w.log", (seat_of_two() + 1) % 4)
    finally:
        live.close()


@pytest.mark.parametrize("at", [3, -2])
async def test_a_tampered_feed_is_refused_and_names_no_player(
    at: int, tmp_path: Path, autojump_clock: trio.abc.Clock
) -> None:
    """A hostile node serving the feed changes one byte of an entry (early, or the last):
    the newcomer does not sit, and says the feed is damaged or forged, blaming no player."""
    frames = list(open_log())
    raw = bytearray(frames[at])
    raw[-5] ^= 1  # inside the signature
    frames[at] = bytes(raw)
    live = await _catch_up(Feed([*frames, live_frame(len(frames))]), GAME_ID,  # type: ignore[arg-type]
                           tmp_path / "w.log", SitTimes(), [])  # fmt: skip
    try:
        with pytest.raises(SessionError, match="no player signed: it is damaged or forged"):
            _check(live, tmp_path / "w.log", seat_of_two())
    finally:
        live.close()


async def test_a_feed_that_never_says_live_gives_up_within_the_bound(
    tmp_path: Path, autojump_clock: trio.abc.Clock
) -> None:
    """A node that sends part of the log and then nothing: the newcomer gives up after
    ``catch_up`` seconds, with a clear message, sitting nowhere."""
    start = trio.current_time()
    with pytest.raises(SessionError, match="did not send its log in time"):
        await _catch_up(Feed(list(open_log()[:10])), GAME_ID, tmp_path / "w.log",  # type: ignore[arg-type]
                        SitTimes(catch_up=30), [])  # fmt: skip
    assert 30 <= trio.current_time() - start < 31


def newcomer() -> tuple[GameProtocol, bytes]:
    """Kim's protocol on the open log, having asked for player 2's seat, and its sit."""
    host = decode_frame(open_log()[0]).envelope.body["players"][0]["key"]
    kim = GameProtocol(GAME_ID, host, KIM, bytes([201]) * 32, min_proof_rounds=TEST_PROOF_ROUNDS)
    kim.resume(open_log())
    kim.ask_seat(2, "Kim", True)
    (sit,) = kim.drain()[0]
    return kim, sit.raw


async def test_a_sit_never_taken_or_never_answered_ends_the_ask(
    tmp_path: Path, autojump_clock: trio.abc.Clock
) -> None:
    """The node answers each sit "not taken" (or not at all): the newcomer sends at most six,
    then gives up saying so; with no answer it waits ``answer`` seconds once, then gives up."""
    kim, raw = newcomer()
    no = peers_frame([], taken=False)
    feed = Feed([no] * 7)
    with pytest.raises(SessionError, match="did not take the sit"):
        await _asking(feed, kim, tmp_path / "k.log", decode_frame(raw), SitTimes())  # type: ignore[arg-type]
    assert feed.sent == [raw] * 6
    kim, raw = newcomer()
    start = trio.current_time()
    with pytest.raises(SessionError, match="did not take the sit"):
        await _asking(Feed([]), kim, tmp_path / "k2.log", decode_frame(raw),  # type: ignore[arg-type]
                      SitTimes(answer=7))  # fmt: skip
    assert 7 <= trio.current_time() - start < 8


async def test_a_taken_sit_gives_the_seats_addresses_but_the_newcomers_own(
    tmp_path: Path, autojump_clock: trio.abc.Clock
) -> None:
    """Taken: the roster the newcomer dials is the addresses given, its own key left out, and
    the hand is the sit's."""
    kim, raw = newcomer()
    other = Identity.from_seed(bytes([5]) * 32).public_key
    answer = peers_frame(
        [(other, ("127.0.0.1", 4000)), (KIM.public_key, ("127.0.0.1", 4001))], True
    )
    roster, hand = await _asking(Feed([answer]), kim, tmp_path / "k.log",  # type: ignore[arg-type]
                                 decode_frame(raw), SitTimes())  # fmt: skip
    assert [(m.public_key, m.address) for m in roster] == [(other, ("127.0.0.1", 4000))]
    assert hand == decode_frame(raw).envelope.hand


async def test_a_newcomer_the_table_left_hands_behind_asks_for_the_coming_hand(
    tmp_path: Path, autojump_clock: trio.abc.Clock
) -> None:
    """The feed read while the newcomer audited passes two boundaries: the sit it sends is the
    newest its protocol signed, for the hand the table can still seat it at, not the first,
    for a hand the table has long passed (which it would refuse, three times, to no end)."""
    kim, raw = newcomer()
    asked = decode_frame(raw).envelope.hand
    early = list(whole_log()[len(open_log()) :])
    cut = next(i for i, e in enumerate(early) if decode_frame(e).envelope.hand == asked + 2)
    feed = Feed([peers_frame([], True)])
    _, hand = await _asking(feed, kim, tmp_path / "k.log", decode_frame(raw), SitTimes(),  # type: ignore[arg-type]
                            early[: cut + 5])  # fmt: skip
    assert hand == asked + 2 == kim.game.number + 1  # type: ignore[union-attr]
    assert [decode_frame(f).envelope.hand for f in feed.sent] == [asked + 2]


class Dealt:
    def __init__(self, number: int) -> None:
        self.number = number


class Following:
    """What ``_refused_watch`` reads of a newcomer's protocol, set by the test as it goes."""

    def __init__(self) -> None:
        self.status = Status.RUNNING
        self.me: int | None = None
        self.game = Dealt(2)
        self.step = object()


async def test_the_newcomer_leaves_once_its_hand_is_dealt_without_it_or_the_game_stands_still(
    autojump_clock: trio.abc.Clock,
) -> None:
    """Asked for hand 3: while hand 2 is played (the steps of hand 3's deck, shuffled ahead,
    among them) it waits; once hand 3 is dealt without it, it leaves saying it was not seated.
    Seated, it stays. Given two boundaries (an ``anyone`` table), it waits for hand 4 before it
    leaves. Unseated with the game standing still past the bound, it leaves saying the table
    stopped answering."""
    for seated in (False, True):
        p, why = Following(), []
        async with trio.open_nursery() as nursery:
            nursery.start_soon(_refused_watch, p, 3, 100.0, why, nursery.cancel_scope)
            for _ in range(5):
                p.step = object()  # the game moves on: play, and the next deck's steps
                await trio.sleep(1)
            assert why == []
            p.me = 2 if seated else None
            p.game = Dealt(3)
            await trio.sleep(1)
            nursery.cancel_scope.cancel()
        assert why == ([] if seated else [why[0]])
        assert seated or "did not seat you at hand 3" in why[0]
    p, why = Following(), []
    async with trio.open_nursery() as nursery:  # an ``anyone`` table: a late escrow re-asks
        nursery.start_soon(_refused_watch, p, 3, 100.0, why, nursery.cancel_scope, 2)
        p.game = Dealt(3)
        await trio.sleep(1)
        assert why == []  # hand 3 dealt without it: it waits for hand 4
        p.game = Dealt(4)
        await trio.sleep(1)
    assert "did not seat you at hand 4" in why[0]
    p, why = Following(), []
    start = trio.current_time()
    async with trio.open_nursery() as nursery:
        nursery.start_soon(_refused_watch, p, 3, 100.0, why, nursery.cancel_scope)
    assert "stopped answering for 100 s" in why[0] and 100 < trio.current_time() - start < 102
