"""The table's rules: one frozen, validated value with every option of the rule set.

It travels in the game's first message, so it round-trips through a plain dict and refuses any
value it does not know rather than guessing. Two games share it: Hearts and Gong Zhu (拱猪). A
Hearts table's dict leaves the game and every Gong Zhu option out, so it stays byte for byte what
it was before Gong Zhu existed (it is signed into every game's genesis).
"""

from __future__ import annotations

from dataclasses import KW_ONLY, asdict, dataclass, field
from enum import Enum, StrEnum
from functools import cached_property
from typing import Any

from .cards import DECK_MASK, Card, card, cards_of, mask_of

__all__ = [
    "PRESETS",
    "GameKind",
    "Moon",
    "OpenSeats",
    "PassDirection",
    "Rules",
    "RulesError",
    "Ties",
    "check_rules",
    "deck_mask",
    "position_owner",
    "removed_cards",
]


class RulesError(ValueError):
    """A rules value that is not allowed; the message says which field and why."""


class GameKind(StrEnum):
    HEARTS = "hearts"
    GONGZHU = "gongzhu"  # 拱猪


class Moon(StrEnum):
    CLASSIC = "classic"  # shooter 0, everyone else the full penalty
    NEGATIVE = "negative"  # shooter minus the full penalty, everyone else 0
    CHOICE = "choice"  # the shooter picks one of the two
    OFF = "off"  # no moon: points count as taken


class Ties(StrEnum):
    SHARED = "shared"  # equal lowest totals share the win
    PLAY_ON = "play_on"  # keep playing hands until one total is lowest


class PassDirection(StrEnum):
    LEFT = "left"
    RIGHT = "right"
    ACROSS = "across"
    NONE = "none"


_REMOVED = {
    3: ("2C",),
    4: (),
    5: ("2C", "2D"),
    6: ("2C", "2D", "2S", "3C"),
}
_PASS_CYCLE = {
    3: (PassDirection.LEFT, PassDirection.RIGHT, PassDirection.NONE),
    4: (PassDirection.LEFT, PassDirection.RIGHT, PassDirection.ACROSS, PassDirection.NONE),
    5: (PassDirection.LEFT, PassDirection.RIGHT, PassDirection.NONE),
    6: (PassDirection.LEFT, PassDirection.RIGHT, PassDirection.ACROSS, PassDirection.NONE),
}


_REMOVED_CARDS = {p: tuple(Card.parse(c) for c in cs) for p, cs in _REMOVED.items()}
_DECK_MASKS = {p: DECK_MASK & ~mask_of(cs) for p, cs in _REMOVED_CARDS.items()}


def removed_cards(players: int) -> tuple[Card, ...]:
    """Cards taken out of the deck so that it divides evenly among ``players``."""
    if not _is_int(players) or players not in _REMOVED:
        raise RulesError(f"players must be 3, 4, 5 or 6, not {players!r}")
    return _REMOVED_CARDS[players]


def deck_mask(players: int) -> int:
    """The mask of the cards dealt for ``players``."""
    removed_cards(players)
    return _DECK_MASKS[players]


def position_owner(position: int, players: int, dealer: int) -> int:
    """The seat dealt deck position ``position``: cards go round from the dealer's left."""
    removed_cards(players)
    if not _is_int(dealer) or not 0 <= dealer < players:
        raise RulesError(f"dealer must be a seat from 0 to {players - 1}, not {dealer!r}")
    if not _is_int(position) or not 0 <= position < 52:
        raise RulesError(f"deck positions run from 0 to 51, not {position!r}")
    return (dealer + 1 + position) % players


# The options of one game that the other leaves at their defaults (a Gong Zhu table's `passing`
# is not among them: it is always False there).
_HEARTS_DEFAULTS: dict[str, object] = {
    "moon": Moon.CLASSIC,
    "jack_of_diamonds": False,
    "spot_hearts": False,
    "queen_breaks_hearts": False,
    "target": 0,
    "ties": Ties.SHARED,
}
_GONGZHU_FLAGS = (
    "expose_all",
    "expose_all_but_sheep",
    "hearts_by_rank",
    "force_fourth",
    "same_colour_discard",
    "partners",
)
_GONGZHU_DEFAULTS: dict[str, object] = {"limit": 0, **dict.fromkeys(_GONGZHU_FLAGS, False)}


class OpenSeats(StrEnum):
    """Who may take a seat the table plays (its player left) at a hand boundary (SPEC 6.15).

    ``no`` is the default: the genesis names the people who agreed to play together, and a
    stranger sits in only where the host said so before anyone accepted it."""

    NO = "no"  # only the seat's own player, coming back
    ANYONE = "anyone"  # any newcomer one seated player carries in ``seats``
    ASK = "ask"  # a newcomer every seated player carries in ``seats``: each one consents


@dataclass(frozen=True)
class Rules:
    """Every option of both rule sets; defaults are Microsoft Hearts for four players.

    The options of the game not being played keep their defaults (a Gong Zhu table never passes,
    so its ``passing`` is False); any other value is refused rather than ignored.
    """

    players: int = 4
    passing: bool = True
    moon: Moon = Moon.CLASSIC
    jack_of_diamonds: bool = False
    spot_hearts: bool = False
    queen_breaks_hearts: bool = False
    target: int = field(default=0)  # 0: the default, 100 (500 with spot_hearts); Hearts only
    ties: Ties = Ties.SHARED
    _: KW_ONLY
    game: GameKind = GameKind.HEARTS
    # Hearts: the seat on lead may claim the rest when it must win every trick (Gong Zhu's 摊牌
    # is always allowed). Left out of the dict when off, so older tables' rules are unchanged.
    claims: bool = False
    # Either game: who may take an open seat (SPEC 6.15). Left out of the dict when ``no``.
    open_seats: OpenSeats = OpenSeats.NO
    # Gong Zhu (拱猪) options, refused for Hearts.
    limit: int = 0  # the game ends once a total is -limit or less; 0: the default, 1000
    expose_all: bool = False  # 分牌全亮: Q♠ J♦ 10♣ A♥ must all be exposed
    expose_all_but_sheep: bool = False  # 除羊全亮: Q♠ 10♣ A♥ must be exposed, J♦ may not be
    hearts_by_rank: bool = False  # 按点计分: 2♥..10♥ score minus their rank, 4♥ -10
    force_fourth: bool = False  # 逼明: once three exposable cards are exposed, the fourth must be
    same_colour_discard: bool = False  # 同色垫牌: a discard off the led colour takes the trick
    partners: bool = False  # 打对家: seats across are partners and their results add up

    def __post_init__(self) -> None:
        _check_type("players", self.players, int)
        if self.players not in _REMOVED:
            raise RulesError(f"players must be 3, 4, 5 or 6, not {self.players}")
        for name in ("passing", "jack_of_diamonds", "spot_hearts", "queen_breaks_hearts"):
            _check_type(name, getattr(self, name), bool)
        for name in (*_GONGZHU_FLAGS, "claims"):
            _check_type(name, getattr(self, name), bool)
        object.__setattr__(self, "game", _enum("game", GameKind, self.game))
        object.__setattr__(self, "moon", _enum("moon", Moon, self.moon))
        object.__setattr__(self, "ties", _enum("ties", Ties, self.ties))
        object.__setattr__(self, "open_seats", _enum("open_seats", OpenSeats, self.open_seats))
        _check_type("target", self.target, int)
        _check_type("limit", self.limit, int)
        if self.game is GameKind.GONGZHU:
            self._check_gongzhu()
            return
        _check_defaults(self, _GONGZHU_DEFAULTS, "a Gong Zhu option")
        if self.target == 0:
            object.__setattr__(self, "target", 500 if self.spot_hearts else 100)
        if not 1 <= self.target <= 10_000:
            raise RulesError(f"target must be from 1 to 10000, not {self.target}")

    def _check_gongzhu(self) -> None:
        # The exposure phase takes the pass's place, so a Gong Zhu table never passes.
        object.__setattr__(self, "passing", False)
        _check_defaults(self, {**_HEARTS_DEFAULTS, "claims": False}, "a Hearts option")
        if self.players not in (4, 5):
            raise RulesError(f"players must be 4 or 5 for Gong Zhu, not {self.players}")
        if self.limit == 0:
            object.__setattr__(self, "limit", 1000)
        if not 1 <= self.limit <= 10_000:
            raise RulesError(f"limit must be from 1 to 10000, not {self.limit}")
        if self.expose_all and self.expose_all_but_sheep:
            raise RulesError("expose_all and expose_all_but_sheep cannot both hold")
        if self.force_fourth and (self.expose_all or self.expose_all_but_sheep):
            # With every card forced there is no fourth to force; with J♦ barred it could not be.
            raise RulesError("force_fourth cannot go with expose_all or expose_all_but_sheep")
        if self.partners and self.players != 4:
            raise RulesError("partners needs 4 players")

    @property
    def is_gongzhu(self) -> bool:
        return self.game is GameKind.GONGZHU

    # Derived values are cached: the engine reads them on every hand and trick.
    @cached_property
    def cards_each(self) -> int:
        return (52 - len(_REMOVED[self.players])) // self.players

    @cached_property
    def deck_mask(self) -> int:
        return _DECK_MASKS[self.players]

    @cached_property
    def deck_cards(self) -> tuple[Card, ...]:
        """The cards dealt, in suit-then-rank order."""
        return tuple(cards_of(self.deck_mask))

    @property
    def queen_points(self) -> int:
        return 25 if self.spot_hearts else 13

    @cached_property
    def penalty_total(self) -> int:
        """All the points a moon shooter must take: every heart and Q♠ (26, or 129 spot)."""
        hearts = sum(range(2, 15)) if self.spot_hearts else 13
        return hearts + self.queen_points

    def heart_points(self, value: int) -> int:
        """Points of one heart: 1, or its spot value 2..14."""
        c = card(value)
        return c.rank + 2 if self.spot_hearts else 1

    def pass_direction(self, hand_number: int) -> PassDirection:
        """Direction of the pass in hand ``hand_number`` (1-based)."""
        _check_hand_number(hand_number)
        if not self.passing:
            return PassDirection.NONE
        cycle = _PASS_CYCLE[self.players]
        return cycle[(hand_number - 1) % len(cycle)]

    def pass_target(self, seat: int, hand_number: int) -> int | None:
        """The seat that ``seat`` passes to in that hand, or None in a no-pass hand."""
        n = self.players
        if not _is_int(seat) or not 0 <= seat < n:
            raise RulesError(f"seat must be from 0 to {n - 1}, not {seat!r}")
        d = self.pass_direction(hand_number)
        if d is PassDirection.LEFT:
            return (seat + 1) % n
        if d is PassDirection.RIGHT:
            return (seat - 1) % n
        if d is PassDirection.ACROSS:
            return (seat + n // 2) % n
        return None

    def dealer(self, hand_number: int) -> int:
        """The dealer's seat in hand ``hand_number`` (1-based): seat 0 deals first."""
        _check_hand_number(hand_number)
        return (hand_number - 1) % self.players

    def to_dict(self) -> dict[str, Any]:
        """The table's rules as a plain dict: only the keys of the game being played."""
        d = asdict(self)
        d["moon"] = self.moon.value
        d["ties"] = self.ties.value
        d["game"] = self.game.value
        d["open_seats"] = self.open_seats.value
        keys = _GONGZHU_KEYS if self.is_gongzhu else _HEARTS_KEYS + ("claims",) * self.claims
        keys += ("open_seats",) * (self.open_seats is not OpenSeats.NO)
        return {k: d[k] for k in keys}

    @classmethod
    def from_dict(cls, data: Any) -> Rules:
        """Strict inverse of ``to_dict``: unknown or missing keys are refused."""
        if not isinstance(data, dict):
            raise RulesError(f"rules must be a map, not {type(data).__name__}")
        game = _enum("game", GameKind, data.get("game", GameKind.HEARTS))
        if game is GameKind.HEARTS and "game" in data:
            raise RulesError("game 'hearts' is the default and is left out of the rules")
        names = set(_GONGZHU_KEYS if game is GameKind.GONGZHU else _HEARTS_KEYS)
        if game is GameKind.HEARTS and "claims" in data:
            if data["claims"] is not True:
                raise RulesError("claims is left out of the rules when off")
            names.add("claims")
        if "open_seats" in data:
            if data["open_seats"] == OpenSeats.NO.value:
                raise RulesError("open_seats 'no' is the default and is left out of the rules")
            names.add("open_seats")
        unknown = sorted(str(k) for k in data if k not in names)
        if unknown:
            raise RulesError(f"unknown rules option(s) for {game.value}: {', '.join(unknown)}")
        missing = sorted(names - set(data))
        if missing:
            raise RulesError(f"missing rules option(s): {', '.join(missing)}")
        return cls(**data)

    def summary(self) -> str:
        """A short human line: ``4 players, to 100, moon classic, J♦ −10``."""
        if self.is_gongzhu:
            return self._gongzhu_summary()
        parts = [f"{self.players} players", f"to {self.target}"]
        if not self.passing:
            parts.append("no passing")
        parts.append(f"moon {self.moon.value}")
        if self.jack_of_diamonds:
            parts.append("J♦ −10")
        if self.spot_hearts:
            parts.append("spot hearts")
        if self.queen_breaks_hearts:
            parts.append("Q♠ breaks hearts")
        if self.ties is Ties.PLAY_ON:
            parts.append("ties play on")
        if self.claims:
            parts.append("claims")
        if self.open_seats is not OpenSeats.NO:
            parts.append(f"open seats: {self.open_seats.value}")
        return ", ".join(parts)

    def _gongzhu_summary(self) -> str:
        parts = ["Gong Zhu", f"{self.players} players", f"to −{self.limit}"]
        labels = {
            "expose_all": "all exposed",
            "expose_all_but_sheep": "all but J♦ exposed",
            "hearts_by_rank": "hearts by rank",
            "force_fourth": "fourth forced",
            "same_colour_discard": "same-colour discards",
            "partners": "partners",
        }
        parts += [label for name, label in labels.items() if getattr(self, name)]
        return ", ".join(parts)


_HEARTS_KEYS = ("players", "passing", *_HEARTS_DEFAULTS)
_GONGZHU_KEYS = ("game", "players", *_GONGZHU_DEFAULTS)


def check_rules(value: object) -> Rules:
    """``value`` itself if it is a ``Rules``, else an error (not an AttributeError later on)."""
    if not isinstance(value, Rules):
        raise RulesError(f"expected a Rules value, not {value!r}")
    return value


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _check_hand_number(number: object) -> None:
    if not (isinstance(number, int) and not isinstance(number, bool) and number >= 1):
        raise RulesError(f"hand numbers start at 1, not {number!r}")


def _check_type(name: str, value: object, kind: type) -> None:
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise RulesError(f"{name} must be {kind.__name__}, not {value!r}")


def _check_defaults(rules: Rules, defaults: dict[str, object], kind: str) -> None:
    for name, default in defaults.items():
        value = getattr(rules, name)
        if value != default or type(value) is not type(default):
            raise RulesError(f"{name} is {kind} and this table plays {rules.game.value}")


def _enum(name: str, kind: type[Enum], value: object) -> Any:
    try:
        return kind(value)
    except ValueError:
        allowed = ", ".join(str(m.value) for m in kind)
        raise RulesError(f"{name} must be one of {allowed}, not {value!r}") from None


PRESETS: dict[str, Rules] = {
    "standard": Rules(),
    "omnibus": Rules(jack_of_diamonds=True),
    "spot": Rules(spot_hearts=True),
}
