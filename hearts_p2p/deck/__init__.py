"""The mental-poker deck: a dealer-less shuffle, private deal, passing and verified plays.

SRA on P-256 x-coordinates (Lee 2014) with per-card key commitments, transcript echoes, sealed
pass keys and an end-of-hand audit; see ``protocol/SPEC.md``. Pure: messages in, messages out.
"""

from .curve import CARD_POINTS, ORDER
from .errors import DeckCheatError, DeckEchoMismatch, DeckError, DeckMessageError, DeckUsageError
from .group import encrypt
from .loopback import Loopback
from .messages import (
    DealKeys,
    Echo,
    Kind,
    Lock,
    Message,
    Open,
    PassCommit,
    PassReveal,
    Remix,
    RemixAnswer,
    RemixShare,
    Reveal,
    Shuffle,
    Stage,
    message_from_wire,
)
from .params import PASS_COUNT, PROOF_ROUNDS, HandParams, position_owner
from .public import AuditResult, PassRecord, Phase, Play, PublicHand, audit_hand
from .randomness import Randomness, SeededRandomness, SystemRandomness
from .seat import SeatDeck, new_pass_key

__all__ = [
    "CARD_POINTS",
    "ORDER",
    "PASS_COUNT",
    "PROOF_ROUNDS",
    "AuditResult",
    "DealKeys",
    "DeckCheatError",
    "DeckEchoMismatch",
    "DeckError",
    "DeckMessageError",
    "DeckUsageError",
    "Echo",
    "HandParams",
    "Kind",
    "Lock",
    "Loopback",
    "Message",
    "Open",
    "PassCommit",
    "PassRecord",
    "PassReveal",
    "Phase",
    "Play",
    "PublicHand",
    "Randomness",
    "Remix",
    "RemixAnswer",
    "RemixShare",
    "Reveal",
    "SeatDeck",
    "SeededRandomness",
    "Shuffle",
    "Stage",
    "SystemRandomness",
    "audit_hand",
    "encrypt",
    "message_from_wire",
    "new_pass_key",
    "position_owner",
]
