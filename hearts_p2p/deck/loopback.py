"""Every seat of a hand in one process, each message delivered to every other seat in one
global order: the harness for tests, vectors and the benchmark."""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable, Iterable, Sequence

from ..cards import Card, cards_of
from .errors import DeckError
from .messages import Message
from .public import Phase
from .seat import SeatDeck

__all__ = ["Loopback"]


class Loopback:
    """Broadcasts messages between ``seats`` and records the transcript.

    A seat that raises stops receiving; its error is kept in ``errors`` so a test can check
    that every honest seat caught a cheat. With ``measure``, CPU time is summed per phase of
    the seat doing the work.
    """

    def __init__(self, seats: Sequence[SeatDeck], *, measure: bool = False) -> None:
        self.seats = list(seats)
        self.transcript: list[Message] = []
        self.errors: dict[int, DeckError] = {}
        self.cpu: dict[Phase, float] = {}
        self._measure = measure

    def act(self, seat: int, action: Callable[[SeatDeck], list[Message]]) -> None:
        """Run a local action of ``seat`` (start, choose_pass, open, alarm) and deliver."""
        self.post(self._timed(self.seats[seat], action))

    def post(self, messages: Iterable[Message]) -> None:
        queue = deque(messages)
        while queue:
            msg = queue.popleft()
            self.transcript.append(msg)
            for seat in self.seats:
                if seat.seat == msg.seat or seat.seat in self.errors:
                    continue
                try:
                    queue.extend(self._timed(seat, _receiver(msg)))
                except DeckError as e:
                    self.errors[seat.seat] = e

    def _timed(self, seat: SeatDeck, action: Callable[[SeatDeck], list[Message]]) -> list[Message]:
        if not self._measure:
            return action(seat)
        phase = seat.phase
        start = time.process_time()
        try:
            return action(seat)
        finally:
            self.cpu[phase] = self.cpu.get(phase, 0.0) + time.process_time() - start

    def start(self) -> None:
        for seat in self.seats:
            self.act(seat.seat, SeatDeck.start)

    def pass_lowest(self) -> None:
        """Every seat passes its three lowest dealt cards."""
        for seat in self.seats:
            if seat.phase is Phase.PASS_COMMIT and seat.seat not in self.errors:
                low = cards_of(seat.dealt)[:3]
                self.act(seat.seat, _passer(low))

    def play_lowest(self) -> None:
        """Seats open their lowest card in turn from the dealer's left until all are open (the
        deck does not care about the rules of play)."""
        n, dealer = len(self.seats), self.seats[0].params.dealer
        order = [(dealer + 1 + k) % n for k in range(n)]
        while any(self.seats[s].phase is Phase.PLAY and self.seats[s].hand for s in order):
            for s in order:
                seat = self.seats[s]
                if s not in self.errors and seat.phase is Phase.PLAY and seat.hand:
                    card = cards_of(seat.hand)[0]
                    self.act(s, _opener(card))

    def run(self) -> None:
        """A whole honest hand up to the audit."""
        self.start()
        self.pass_lowest()
        self.play_lowest()


Action = Callable[[SeatDeck], list[Message]]


def _receiver(msg: Message) -> Action:
    return lambda seat: seat.receive(msg)


def _passer(cards: list[Card]) -> Action:
    return lambda seat: seat.choose_pass(cards)


def _opener(card: int) -> Action:
    return lambda seat: seat.open(card)
