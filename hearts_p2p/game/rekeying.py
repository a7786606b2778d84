"""What a hand boundary keeps while a seat comes back: the returner's reclaim, every seated
player's fresh pass key and escrow, and what this peer's own boxes gave.

Plain data; ``rekey.py`` holds the rules that change it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .escrow import EscrowEntry
from .genesis import Player

__all__ = ["Offer", "Rekeying"]


@dataclass(frozen=True, slots=True)
class Offer:
    """A checked reclaim: the player, its number, the pass key of its fresh secret; or a
    checked sit (sitdown.py), which also names the ``newcomer`` taking that player's seat."""

    player: int
    seq: int
    dh: bytes
    raw: bytes
    newcomer: Player | None = None


@dataclass(eq=False, repr=False)  # no repr: it holds opened shares
class Rekeying:
    """One seat coming back at one boundary, and the fresh keys every seated player takes
    with it. ``table`` is who the table played when the boundary began: a seat taken over in
    between leaves boxes sealed to a fresh key nobody recovers, so the return waits."""

    offer: Offer
    keys: dict[int, bytes]  # fresh pass keys of the players present at ``seats``, by player
    table: frozenset[int]
    escrows: dict[int, dict[int, EscrowEntry]] = field(default_factory=dict)  # ``rekey``'s
    rejoin: bytes | None = None  # the returner's rejoin frame, once held
    rejoin_escrow: dict[int, EscrowEntry] = field(default_factory=dict)
    given_up: bool = False  # this peer waited the timeout for the rejoin: it sends without
    mine: dict[int, bytes | None] = field(default_factory=dict)  # my box from each: its share
