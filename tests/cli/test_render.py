"""Screen lines and typed input without a network: names from peers, ASCII, notations, errors."""

from __future__ import annotations

import dataclasses
import io
import random
import re

import pytest
import trio

from hearts_p2p.cards import Card
from hearts_p2p.cli.commands import Command, InputError, NotYourTurn, parse_line
from hearts_p2p.cli.hint import best_action, hint_line
from hearts_p2p.cli.render import Screen, Style, shown_width, wrapped
from hearts_p2p.cli.terminal import TerminalSeat
from hearts_p2p.engine import PassCards, PlayCard, SeatView
from hearts_p2p.engine.game import Game, deal_hands
from hearts_p2p.frontend import (
    ChatLine,
    HandVoided,
    Notice,
    ReclaimRefused,
    RosterEntry,
    SeatedRoster,
    SeatReclaimed,
    SeatTakenOver,
    SitAsked,
)
from hearts_p2p.rules import Rules
from hearts_p2p.text import clean


def screen(unicode: bool = True, color: bool = False) -> tuple[Screen, io.StringIO]:
    out = io.StringIO()
    return Screen(out, Style(unicode=unicode, color=color)), out


def passing_view(seed: int = 1) -> SeatView:
    game = Game(Rules())
    game.start_hand(deal_hands(game.rules, 1, random.Random(seed)))
    return SeatView.of(game, 0)


def playing_view() -> SeatView:
    """Seat 0's view once every seat has passed, whoever leads."""
    game = Game(Rules())
    game.start_hand(deal_hands(game.rules, 1, random.Random(3)))
    for seat in range(4):
        game.apply(seat, SeatView.of(game, seat).legal[0])
    while 0 not in game.to_act():
        seat = game.to_act()[0]
        game.apply(seat, SeatView.of(game, seat).legal[0])
    return SeatView.of(game, 0)


def test_names_from_the_network_cannot_drive_the_terminal() -> None:
    assert clean("Eve\x1b[2J\x07\u202eevil\r\n") == "Eve[2Jevil"
    s, out = screen()
    evil = "Mallory\x1b]0;pwned\x07\u2066"
    s.event(SeatedRoster((RosterEntry(0, "Ada", "aaaa", False), RosterEntry(1, evil, "bbbb", True),
                          RosterEntry(2, "C", "cccc", True), RosterEntry(3, "D", "dddd", True)),
                         0, "4 players"))  # fmt: skip
    s.event(ChatLine(1, "hi\x1b[31m there\x00"))
    s.event(Notice(f"{evil} joined"))
    text = out.getvalue()
    assert "\x1b" not in text and "\x07" not in text and "\u2066" not in text
    assert "  Mallory]0;pwned (left)  key bbbb  bot" in text
    assert "<Mallory]0;pwned> hi[31m there" in text


def test_ascii_terminal_gets_letters_and_no_colour() -> None:
    s, out = screen(unicode=False, color=False)
    view = playing_view()
    for line in s.turn_lines(view):
        s.line(line)
    s.prompt(s.prompt_for(view))
    text = out.getvalue()
    assert all(ch not in text for ch in "♣♦♠♥─·\x1b")
    assert "Your hand: C " in text or "Your hand: D " in text
    assert "[" in text.split("Your hand: ")[1]  # playable cards are bracketed without colour


def test_colour_marks_red_suits_and_playable_cards() -> None:
    s, _ = screen(color=True)
    assert s.style.card(Card.parse("qh")) == "Q\x1b[31m♥\x1b[0m"
    assert s.style.card(Card.parse("qs")) == "Q♠"
    hand = s.hand(playing_view())
    assert "\x1b[1m" in hand and "\x1b[2m" in hand  # playable bold, the rest dim


def test_a_line_arriving_during_a_prompt_keeps_the_prompt_below() -> None:
    s, out = screen()
    s.prompt("play [2♣]> ")
    s.line("<Bea> hello")
    assert out.getvalue() == "play [2♣]> \n<Bea> hello\nplay [2♣]> "
    s.typed()
    s.line("after")
    assert out.getvalue().endswith("play [2♣]> after\n")


@pytest.mark.parametrize("typed", ["3c", "3C", "3♣", "3♧", " play 3c "])
def test_any_notation_plays_the_card(typed: str) -> None:
    view = playing_view()  # a club was led; seat 0 holds 3♣ 5♣ 6♣
    assert parse_line(typed, view) == PlayCard(Card.parse("3c"))
    with pytest.raises(InputError, match=r"^you must follow ♣: 3♣ 5♣ 6♣$"):
        parse_line("qd", view)
    with pytest.raises(InputError, match=r"^you do not hold Q♠$"):
        parse_line("Q♠", view)


def test_ten_is_10_or_t_and_a_pass_is_three_cards_on_a_line() -> None:
    view = passing_view()
    three = view.hand[:3]
    typed = " ".join(c.ascii.lower().replace("10", "t") for c in three)
    assert parse_line(typed, view) == PassCards(three)
    assert parse_line(", ".join(str(c) for c in three), view) == PassCards(three)
    with pytest.raises(InputError, match=r"^pass exactly 3 cards \(you named 2\)"):
        parse_line(" ".join(str(c) for c in three[:2]), view)
    with pytest.raises(InputError, match=r"^'qx' is not a card"):
        parse_line("qx", view)


def test_illegal_card_names_the_rule_and_the_choices() -> None:
    view = playing_view()
    legal = [a.card for a in view.legal if isinstance(a, PlayCard)]
    illegal = [c for c in view.hand if c not in legal]
    if not illegal:
        pytest.skip("every card in this hand is playable")
    with pytest.raises(InputError) as e:
        parse_line(illegal[0].ascii, view)
    rule, _, choices = str(e.value).partition(": ")
    assert rule.startswith(("you must", "no points", "hearts are not broken"))
    assert choices.split() == [str(c) for c in legal]


def test_commands_and_input_out_of_turn() -> None:
    assert parse_line("  HELP ", None) == Command("help")
    assert parse_line("exit", None) == Command("quit")
    assert parse_line("say good luck all", None) == Command("say", "good luck all")
    assert parse_line("", None) is None
    with pytest.raises(NotYourTurn):
        parse_line("qs", None)
    with pytest.raises(InputError, match="say what"):
        parse_line("say", None)


@pytest.mark.parametrize(
    ("players", "you", "expected"),
    [
        (3, 0, ["you", "left", "right"]),
        (4, 2, ["across", "right", "you", "left"]),
        (5, 0, ["you", "left", "2 to your left", "2 to your right", "right"]),
        (6, 1, ["right", "you", "left", "2 to your left", "across", "2 to your right"]),
    ],
)
def test_seats_are_named_the_short_way_round(players: int, you: int, expected: list[str]) -> None:
    s, _ = screen()
    s.players, s.you = players, you
    assert [("you" if seat == you else s.direction(seat)) for seat in range(players)] == expected


def test_the_cards_received_are_starred_until_the_first_trick_is_taken() -> None:
    s, _ = screen()
    view = playing_view()
    assert len(view.received) == 3 and not view.tricks
    shown = s.hand(view)
    for c in view.received:
        group = shown.split(s.style.suit(c.suit))[1].split("   ")[0]
        assert re.search(rf"(^| )\[?{c.rank_name}\]?\*", group), shown
    assert shown.count("*") == 3


def test_the_trick_line_lists_the_points_taken_so_far() -> None:
    s, _ = screen()
    view = playing_view()
    assert " · taken:" not in s.situation(view)
    taken = dataclasses.replace(view, points_taken=(1, 0, 13, 0))
    s.names = {1: "Bot 1", 2: "Bot 2", 3: "Bot 3"}
    assert s.situation(taken).endswith(" · taken: you 1, Bot 2 13")


def test_a_hint_names_the_card_and_what_it_does() -> None:
    view = playing_view()  # a club was led; seat 0 holds 3♣ 5♣ 6♣
    style = Style(unicode=True, color=False)
    line = hint_line(view, PlayCard(Card.parse("3c")), 120, style)
    assert line.startswith("hint: 3♣ — stays under ")
    assert line.endswith(": the trick goes to someone else (Monte-Carlo, 120 deals)")
    leading = dataclasses.replace(view, trick=None)
    low, high = Card.parse("3c"), Card.parse("6c")
    assert "a low lead: your lowest ♣" in hint_line(leading, PlayCard(low), 9, style)
    assert "of your leads, ♣ costs you least" in hint_line(leading, PlayCard(high), 9, style)
    action, deals = best_action(view)
    assert action in view.legal and deals > 0
    passing = passing_view()
    action, _ = best_action(passing)
    assert hint_line(passing, action, 0, style).startswith("hint: pass ")


class _Controls:
    def say(self, text: str) -> None:
        raise AssertionError("nothing to say")

    def quit(self) -> None:
        raise AssertionError("nobody quits")


def test_typing_after_your_card_is_chosen_never_says_you_plays_next() -> None:
    s, out = screen()
    seat = TerminalSeat(s, _Controls())
    view = playing_view()
    assert view.to_act == (0,)
    seat._view = view  # the card is chosen; the table has not played it yet
    seat.handle_line("hint")
    seat.handle_line("qs")
    assert out.getvalue() == (
        "no hint: your card is on its way to the table\nyour card is on its way to the table\n"
    )


def test_a_seat_taken_over_is_said_once_and_marked_from_then_on() -> None:
    s, out = screen()
    names = [("Ada", False), ("Bea", False), ("C", True), ("D", True)]
    roster = tuple(RosterEntry(i, n, "aaaa", bot) for i, (n, bot) in enumerate(names))
    s.event(SeatedRoster(roster, 0, "4 players"))
    s.event(SeatTakenOver(1, "Bea", "left", 2))
    s.event(ChatLine(1, "still here?"))
    text = out.getvalue()
    assert "Bea (left) left the table: the table plays that seat from here on" in text
    assert "<Bea [table]> still here?" in text


def test_a_voided_hand_is_said_with_the_seats_that_left_and_the_re_deal() -> None:
    s, out = screen()
    names = [("Ada", False), ("Bea", False), ("Cal", True), ("D", True)]
    roster = tuple(RosterEntry(i, n, "aaaa", bot) for i, (n, bot) in enumerate(names))
    s.event(SeatedRoster(roster, 0, "4 players"))
    s.event(HandVoided(4, (1, 2), ("Bea", "Cal"), 5))
    s.event(HandVoided(6, (3,), ("D",), None))
    text = out.getvalue()
    assert "hand 4 voided: Bea (left) and Cal (across) left together; re-dealt as hand 5" in text
    assert "hand 6 voided: D (right) left, and its escrow needs a share" in text
    assert "one player is left: the game ends on the totals so far" in text


def test_a_player_back_learns_it_was_taken_over_and_the_table_sees_it_return() -> None:
    s, out = screen(unicode=False)
    names = [("Ada", False), ("Bea", False), ("C", True), ("D", True)]
    roster = tuple(RosterEntry(i, n, "aaaa", bot) for i, (n, bot) in enumerate(names))
    s.event(SeatedRoster(roster, 1, "4 players"))
    s.event(SeatTakenOver(1, "Bea", "gone", 3, 5))
    s.event(SeatTakenOver(0, "Ada", "left", 3))
    s.event(SeatReclaimed(1, "Bea", 4))
    s.event(ReclaimRefused(0, "Ada", 4, (2,)))
    s.event(ChatLine(0, "hi"))
    text = out.getvalue()
    assert "you were gone in hand 3: the table has played your seat since trick 5" in text
    assert "you are back from hand 4" in text
    assert "asked to come back at hand 4, but C (left) signed" in text
    assert "<Ada [table]> hi" in text  # refused: still the table's


class _Answers(_Controls):
    def __init__(self) -> None:
        self.answers: list[tuple[bytes, bool]] = []

    def consent(self, newcomer: bytes, yes: bool) -> None:
        self.answers.append((newcomer, yes))


async def test_at_an_ask_table_a_seated_person_is_asked_and_answers_y_or_n() -> None:
    """A newcomer's ask at an ``ask`` table: the screen says who asks for whose seat and asks
    y or n; the answer goes to the game once. At an ``anyone`` table, or to a person with no
    seat (the newcomer itself), nothing is asked: a y then answers nothing."""
    s, out = screen()
    names = [("Ada", False), ("Bea", False), ("C", True), ("D", True)]
    roster = tuple(RosterEntry(i, n, "aaaa", bot) for i, (n, bot) in enumerate(names))
    s.event(SeatedRoster(roster, 0, "4 players"))
    controls = _Answers()
    seat = TerminalSeat(s, controls)
    kim = bytes([7]) * 32
    await seat.notify(SitAsked(1, "Kim", "e7op-shjb-a4ya", "Bea", 3, False, kim, ask=True))
    assert "Kim (e7op-shjb-a4ya) asks to take Bea (left)'s seat from hand 3" in out.getvalue()
    assert "let them sit? y or n" not in out.getvalue()  # no seat of its own: nothing asked
    seat._view = playing_view()
    await seat.notify(SitAsked(1, "Kim", "e7op-shjb-a4ya", "Bea", 3, False, kim, ask=False))
    assert "let them sit? y or n" not in out.getvalue()
    await seat.notify(SitAsked(1, "Kim", "e7op-shjb-a4ya", "Bea", 3, False, kim, ask=True))
    assert "let them sit? y or n" in out.getvalue()
    seat.handle_line("n")
    seat.handle_line("y")  # asked once, answered once
    assert controls.answers == [(kim, False)]
    assert "you said no" in out.getvalue()


def last_card_view() -> SeatView:
    """Seat 0's view at its last card of the hand: everything before played."""
    game = Game(Rules())
    game.start_hand(deal_hands(game.rules, 1, random.Random(3)))
    for seat in range(4):
        game.apply(seat, SeatView.of(game, seat).legal[0])
    while len(SeatView.of(game, 0).hand) > 1 or 0 not in game.to_act():
        seat = game.to_act()[0]
        game.apply(seat, SeatView.of(game, seat).legal[0])
    return SeatView.of(game, 0)


async def test_the_last_card_of_a_hand_is_played_without_asking_unless_asked_to() -> None:
    view = last_card_view()
    assert len(view.hand) == 1 and view.legal == (PlayCard(view.hand[0]),)
    s, out = screen()
    seat = TerminalSeat(s, _Controls())
    with trio.fail_after(1):
        assert await seat.choose(view) == view.legal[0]
    assert "your last card" in out.getvalue()
    asking = TerminalSeat(screen()[0], _Controls(), play_last_card=False)
    with trio.move_on_after(1) as waited:
        await asking.choose(view)
    assert waited.cancelled_caught  # it waits for the person's line, as for any card


def test_scores_shows_a_sheet_of_every_hand_and_the_totals() -> None:
    """Microsoft Hearts' score sheet: a row for each hand scored, the points taken so far in
    the one being played, the totals; you first, then clockwise."""
    game = Game(Rules(target=500))
    rng = random.Random(5)
    for _ in range(2):
        game.start_hand(deal_hands(game.rules, len(game.results) + 1, rng))
        while game.to_act():
            seat = game.to_act()[0]
            game.apply(seat, SeatView.of(game, seat).legal[0])
    game.start_hand(deal_hands(game.rules, 3, rng))
    view = SeatView.of(game, 0)
    assert len(view.results) == 2
    s, out = screen()
    names = [("Ada", False), ("Bea", False), ("Cal", True), ("Dee", True)]
    roster = tuple(RosterEntry(i, n, "aaaa", bot) for i, (n, bot) in enumerate(names))
    s.event(SeatedRoster(roster, 0, "4 players"))
    seat = TerminalSeat(s, _Controls())
    seat._view = view
    seat.handle_line("scores")
    lines = out.getvalue().splitlines()
    at = lines.index("Score sheet:")
    head, hand1, hand2, so_far, total = lines[at + 1 : at + 6]
    assert head.split() == ["you", "Bea", "Cal", "Dee"]
    assert hand1.split()[:2] == ["hand", "1"] and hand2.split()[:2] == ["hand", "2"]
    assert so_far.split()[:2] == ["so", "far"]
    sums = [sum(r.points[p] for r in view.results) for p in range(4)]
    assert [int(x) for x in total.split()[1:]] == [sums[p] for p in (0, 1, 2, 3)]


def test_long_lines_wrap_between_words_at_the_terminal_s_width(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """On a terminal a line wraps at its width, between words, the rest indented; colour codes
    take no room and a CJK character two. Anywhere else (a pipe, a file) a line is left whole."""
    text = "Bea (left) left the table: the table plays that seat from here on, and may ask it back"
    lines = wrapped(text, 40)
    assert len(lines) == 3 and all(shown_width(ln) <= 40 for ln in lines)
    assert " ".join(ln.strip() for ln in lines) == text
    assert all(ln.startswith("  ") for ln in lines[1:])
    assert shown_width("\x1b[31m7♥\x1b[0m") == 2 and shown_width("拱猪") == 4
    assert wrapped("  scores   you  Bea", 40) == ["  scores   you  Bea"]  # columns kept

    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    monkeypatch.setenv("COLUMNS", "40")
    out = Tty()
    Screen(out, Style(unicode=True, color=False)).line(text)
    assert out.getvalue() == "\n".join(lines) + "\n"
    piped = io.StringIO()
    Screen(piped, Style(unicode=True, color=False)).line(text)
    assert piped.getvalue() == text + "\n"
