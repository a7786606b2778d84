"""What ``hearts watch`` prints of the seats: a newcomer taking one is said, and named so."""

from __future__ import annotations

from hearts_p2p.cli.render import Style
from hearts_p2p.cli.watching import Printer
from hearts_p2p.game import RosterEntry, SeatedRoster, SeatTaken


def test_a_seat_taken_by_a_newcomer_is_said_and_the_seat_named_its_way_from_then_on() -> None:
    """The watcher's screen says who took which seat from which hand, and names the seat by the
    newcomer from then on, as the players' screens do."""
    printer = Printer(Style(unicode=True, color=False))
    roster = tuple(RosterEntry(i, n, "aaaa", False) for i, n in enumerate(("Ada", "Bea", "C", "D")))
    printer.lines(SeatedRoster(roster, 0, "4 players"))
    (line,) = printer.lines(SeatTaken(1, "Kim", "e7op-shjb-a4ya", "Bea", 3))
    assert line == "Kim (e7op-shjb-a4ya) took seat 1 (Bea)'s seat from hand 3; every seat re-keyed"
    assert printer.seats.name(1) == "seat 1 (Kim)"
