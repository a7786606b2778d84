"""What a seat can do, and the two ways doing it can go wrong.

Actions are small frozen values so they log, compare and hash cleanly. A string that names no card
is a ``CardParseError``; a real card that may not be played now is an ``IllegalActionError`` whose
message names the rule (``must follow ♦``), as a player would say it.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..cards import Card, CardParseError, card, format_cards

__all__ = [
    "Action",
    "ChooseMoon",
    "Claim",
    "Expose",
    "IllegalActionError",
    "PassCards",
    "PlayCard",
]


class IllegalActionError(ValueError):
    """A well-formed action that the rules do not allow now; ``rule`` is the short reason."""

    def __init__(self, rule: str, seat: int | None = None) -> None:
        super().__init__(rule)
        self.rule = rule
        self.seat = seat


@dataclass(frozen=True, slots=True)
class PassCards:
    """The cards a seat passes, sorted so their order leaks nothing.

    ``cards`` is None for another seat's pass whose cards this peer does not get to see.
    """

    cards: tuple[Card, ...] | None

    def __post_init__(self) -> None:
        if self.cards is not None:
            if not isinstance(self.cards, tuple | list | set | frozenset):
                raise CardParseError(f"{self.cards!r} is not a list of cards")
            object.__setattr__(self, "cards", tuple(sorted(card(c) for c in self.cards)))

    def __str__(self) -> str:
        return "pass " + (format_cards(self.cards) if self.cards is not None else "(hidden)")


@dataclass(frozen=True, slots=True)
class PlayCard:
    card: Card

    def __post_init__(self) -> None:
        object.__setattr__(self, "card", card(self.card))

    def __str__(self) -> str:
        return f"play {self.card}"


@dataclass(frozen=True, slots=True)
class ChooseMoon:
    """A moon shooter's choice: add the penalty to everyone else, or take it off their own score."""

    add_to_others: bool

    def __post_init__(self) -> None:
        if not isinstance(self.add_to_others, bool):
            raise IllegalActionError(
                f"the moon choice is true or false, not {self.add_to_others!r}"
            )

    def __str__(self) -> str:
        return "moon: others +" if self.add_to_others else "moon: shooter −"


@dataclass(frozen=True, slots=True)
class Expose:
    """The cards a Gong Zhu seat shows before play (亮牌), sorted; empty to show none.

    An exposure is public, so unlike a pass its cards are always named.
    """

    cards: tuple[Card, ...]

    def __post_init__(self) -> None:
        if not isinstance(self.cards, tuple | list | set | frozenset):
            raise CardParseError(f"{self.cards!r} is not a list of cards")
        cards = tuple(sorted(card(c) for c in self.cards))
        if len(set(cards)) != len(cards):
            raise IllegalActionError("expose each card once")
        object.__setattr__(self, "cards", cards)

    def __str__(self) -> str:
        return "expose " + (format_cards(self.cards) if self.cards else "nothing")


@dataclass(frozen=True, slots=True)
class Claim:
    """A claim of every remaining trick (摊牌) by the seat on lead, showing its whole hand."""

    cards: tuple[Card, ...]

    def __post_init__(self) -> None:
        if not isinstance(self.cards, tuple | list | set | frozenset):
            raise CardParseError(f"{self.cards!r} is not a list of cards")
        object.__setattr__(self, "cards", tuple(sorted(set(card(c) for c in self.cards))))

    def __str__(self) -> str:
        return "claim the rest with " + format_cards(self.cards)


Action = PassCards | PlayCard | ChooseMoon | Expose | Claim
