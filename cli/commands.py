"""What a player types: cards in any notation, and a few table commands.

Parsing returns a value or raises ``InputError`` with the one line to show; the prompt then comes
back. Nothing a person types can raise anything else.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from hearts_p2p.cards import Card, CardParseError
from hearts_p2p.engine import (
    Action,
    ChooseMoon,
    Claim,
    Expose,
    HandPhase,
    PassCards,
    PlayCard,
    SeatView,
)

HELP = """commands:
  a card, e.g. qs 10h Q♠ th   play it when it is your turn (the prompt lists what you may play)
  Enter                       play your only playable card
  three cards, e.g. qs ah 2d  choose them to pass at the start of a hand; Enter sends them
  undo                        choose the cards to pass again, until you send them
  cards to expose, e.g. qs jd Gong Zhu, before the first lead: expose them (none: expose none)
  claim                       on lead, take the rest when every card of yours must win
  hint                        what the Monte-Carlo bot would play from your seat, and why
  hand                        your hand, the trick so far and whose turn it is
  scores                      the score sheet: every hand, this one so far, the totals
  last                        the previous trick
  say TEXT                    chat to the table
  help                        this list
  quit                        leave the game (asks first); the others play on, the table
                              playing your seat
cards: rank 2-10 J Q K A (or T for 10), suit c d s h or ♣ ♦ ♠ ♥, in any case"""


_ALIASES = {
    "hand": "hand",
    "scores": "scores",
    "score": "scores",
    "last": "last",
    "hint": "hint",
    "undo": "undo",
    "quit": "quit",
    "exit": "quit",
    "leave": "quit",
}

# The words the editor line completes besides cards (lineinput.py).
COMMAND_WORDS = ("claim", "hand", "help", "hint", "last", "quit", "say", "scores", "undo")


class InputError(ValueError):
    """A line that cannot be acted on; the message is shown as is."""


class NotYourTurn(InputError):
    """Cards typed while nothing is asked of this seat; the terminal says what it waits for."""


@dataclass(frozen=True)
class Command:
    """A table command that is not an action: hand, scores, last, hint, undo, help, quit, say."""

    name: str
    text: str = ""


def parse_line(line: str, view: SeatView | None) -> Command | Action | None:
    """The meaning of one typed line in the current situation; None for an empty line."""
    words = line.strip()
    if not words:
        return _only_card(view)
    head, _, rest = words.partition(" ")
    lower = head.lower()
    if lower in ("help", "?", "h"):
        return Command("help")
    if lower in _ALIASES:
        return Command(_ALIASES[lower])
    if lower == "say":
        if not rest.strip():
            raise InputError("say what? e.g. say good luck")
        return Command("say", rest.strip())
    if lower in ("play", "pass", "expose") and rest.strip():
        words = rest  # "play qs", "pass qs ah 2d" and "expose qs" mean what they say
    if view is None or not view.legal:
        raise NotYourTurn("not your turn")
    if lower == "claim" and not rest.strip():
        return _claim(view)
    if view.phase is HandPhase.MOON_CHOICE:
        return _moon(lower)
    if view.phase is HandPhase.EXPOSE:
        return _expose([] if words.lower() in ("none", "no", "-") else _cards(words), view)
    cards = _cards(words)
    if view.phase is HandPhase.PASSING:
        return _pass(cards, view)
    return _play(cards, view)


def _only_card(view: SeatView | None) -> PlayCard | Expose | None:
    """Enter alone plays the one card you may play, saving a forced move's typing; before the
    first lead of Gong Zhu it exposes nothing, or only what you must."""
    if view is not None and view.phase is HandPhase.EXPOSE and view.legal:
        exposures = [a for a in view.legal if isinstance(a, Expose)]
        return min(exposures, key=lambda a: len(a.cards))
    if view is None or view.phase is not HandPhase.PLAYING:
        return None
    legal = [a for a in view.legal if isinstance(a, PlayCard)]
    return legal[0] if len(legal) == 1 else None


def _cards(text: str) -> list[Card]:
    out = []
    for token in re.split(r"[\s,]+", text.strip()):
        if not token:
            continue
        try:
            out.append(Card.parse(token))
        except CardParseError:
            raise InputError(f"{token!r} is not a card; type help for commands") from None
    return out


def _pass(cards: list[Card], view: SeatView) -> PassCards:
    if len(cards) != 3:
        raise InputError(f"pass exactly 3 cards (you named {len(cards)}), e.g. qs ah 2d")
    if len(set(cards)) != 3:
        raise InputError("pass 3 different cards")
    for c in cards:
        if c not in view.hand:
            raise InputError(f"you do not hold {c}")
    return PassCards(tuple(cards))


def _play(cards: list[Card], view: SeatView) -> PlayCard:
    if len(cards) != 1:
        raise InputError(f"play one card, not {len(cards)}")
    card = cards[0]
    legal = [a.card for a in view.legal if isinstance(a, PlayCard)]
    if card not in legal:
        reason = view.why_illegal(card)
        if reason.startswith("you do not hold"):
            raise InputError(reason)
        raise InputError(f"{reason}: {' '.join(str(c) for c in legal)}")
    return PlayCard(card)


def _expose(cards: list[Card], view: SeatView) -> Expose:
    """The exposure typed, if the rules allow it; else the line that says why not."""
    chosen = Expose(tuple(set(cards)))
    if chosen in view.legal:
        return chosen
    for c in cards:
        if c not in view.hand:
            raise InputError(f"you do not hold {c}")
    options = [a for a in view.legal if isinstance(a, Expose)]
    held = set().union(*(a.cards for a in options))
    for c in cards:
        if c not in held:
            raise InputError(f"{c} may not be exposed now; you may expose {_listed(held)}")
    must = set(options[0].cards).intersection(*(a.cards for a in options))
    raise InputError(f"you must expose {_listed(must - set(cards))}")


def _listed(cards: set[Card]) -> str:
    return " ".join(str(c) for c in sorted(cards)) or "nothing"


def _claim(view: SeatView) -> Claim:
    """The claim of the rest, when it holds; the terminal never sends one that would be refused."""
    claims = [a for a in view.legal if isinstance(a, Claim)]
    if claims:
        return claims[0]
    if view.phase is not HandPhase.PLAYING or view.trick is not None or not view.tricks:
        raise InputError("you may claim only on lead, from the second trick on")
    if not view.rules.is_gongzhu and not view.rules.claims:
        raise InputError("this table plays without claims")
    raise InputError("no claim: a card of yours could still lose a trick")


def _moon(word: str) -> ChooseMoon:
    if word in ("a", "add", "others", "+"):
        return ChooseMoon(add_to_others=True)
    if word in ("s", "subtract", "me", "-", "−"):
        return ChooseMoon(add_to_others=False)
    raise InputError("type a to add the points to everyone else, or s to subtract them from you")
