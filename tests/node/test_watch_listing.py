"""What a host's announcement says of the bots seated at its table, for ``hearts list``."""

from __future__ import annotations

from hearts_p2p.identity import PublicIdentity
from hearts_p2p.node.lobby import Seat
from hearts_p2p.node.session import bot_labels


def seat(name: str, bot: bool) -> Seat:
    return Seat(PublicIdentity(name, bytes(32)), bytes(32), bot, ("127.0.0.1", 1))


def test_each_bot_is_labelled_by_the_level_its_name_carries() -> None:
    seats = [
        seat("Bot 1 [hard]", True),
        seat("Bea [easy]", False),  # a person may write anything in a name: not a bot
        seat("Robo", True),  # a bot of a strategy, not a level
        seat("Odd [\x1b[2J]", True),  # no level: a word of letters and digits
    ]
    assert bot_labels(seats) == ["hard", "bot", "bot"]
