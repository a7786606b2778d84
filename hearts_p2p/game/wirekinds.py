"""Every wire kind in one table: who signs it, whether it waits for the genesis, whether it is
numbered, whether a seat the table plays may still send it, and which machine takes it.

``GameProtocol`` routes every frame the same way, in this order (SPEC 6.10): the envelope (its
game and its outer bytes), the signature, then this table. A *numbered* kind (a step's part)
is checked for a second message under its number or for its step, dropped from a seat the
table plays, kept only as evidence while this peer's vote mutes it, and queued by number, to be
judged against the step its ``prev`` names (``StepRule``). Every other kind is a word about a
seat's life or the game's end, taken as it comes by its own machine. A kind this table does
not name is numbered: judged against the step, it is its signer's cheat.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from .reclaim import RECLAIM
from .rekey import REJOIN
from .rollcall import NOLEAD
from .sitdown import SIT
from .takeover import RECOVER, VOTE

__all__ = ["ABORT", "KINDS", "Machine", "Signer", "WireKind", "wire_kind"]

ABORT = "abort"


class Signer(Enum):
    """Whose key a frame of the kind must verify under."""

    HOLDER = "the seat's holder as the key schedule stands (sitdown.signer_key)"
    NEWCOMER = "the key the message itself carries: a newcomer asking for a seat"


class Machine(Enum):
    """What takes a frame once it has passed the routing checks."""

    STEPS = "the step machine: numbered parts, judged in order (handsteps, StepRule)"
    VERDICT = "the end of the game: a leave or a claim (abort.py)"
    ROUND = "a takeover round: votes and recovery shares (takeover.py, void.py)"
    RECLAIM = "a taken seat's player asking for it back (reclaim.py)"
    REJOIN = "a returning player's fresh escrow (rekey.py)"
    ROLL_CALL = "a seat's word that the first lead's card is not its (rollcall.py)"
    SEATING = "a newcomer's ask for an open seat (sitdown.py)"


@dataclass(frozen=True, slots=True)
class WireKind:
    kind: str
    machine: Machine
    signer: Signer = Signer.HOLDER
    after_genesis: bool = False  # judged against the roster: even the host's waits for it
    numbered: bool = False  # sequenced and checked as a second message (SPEC 6.10, 5)
    from_table_seat: bool = False  # taken from a player whose seat the table plays


_NUMBERED = WireKind("(a step's part)", Machine.STEPS, numbered=True)

KINDS: dict[str, WireKind] = {
    k.kind: k
    for k in (
        WireKind(SIT, Machine.SEATING, Signer.NEWCOMER),
        WireKind(RECLAIM, Machine.RECLAIM, after_genesis=True, from_table_seat=True),
        WireKind(REJOIN, Machine.REJOIN, after_genesis=True, from_table_seat=True),
        WireKind(NOLEAD, Machine.ROLL_CALL, after_genesis=True, from_table_seat=True),
        WireKind(ABORT, Machine.VERDICT),
        WireKind(VOTE, Machine.ROUND, after_genesis=True),
        WireKind(RECOVER, Machine.ROUND, after_genesis=True),
    )
}
"""Every kind that is not a step's part; every other kind is ``_NUMBERED``."""


def wire_kind(kind: str) -> WireKind:
    """The row of ``kind``: its own, or a step's part's."""
    return KINDS.get(kind, _NUMBERED)
