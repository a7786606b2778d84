"""The game core: one peer's protocol for one game, pure (no trio, sockets, files or clock).

``GameProtocol`` takes signed messages and this seat's decisions and gives back what to send,
what to log and what happened; the node's shell (``hearts_p2p.node``) moves the bytes and the
offline audit replays a log through the same code.
"""

from .events import (
    Aborted,
    CardPlayed,
    CardsExposed,
    GameEvent,
    GameOver,
    HandClaimed,
    HandRecord,
    HandScored,
    HandStarted,
    HandVoided,
    PassReceived,
    ReclaimRefused,
    RosterEntry,
    SeatedRoster,
    SeatReclaimed,
    SeatTaken,
    SeatTakenOver,
    SitAsked,
    TrickTaken,
)
from .genesis import Genesis, GenesisError, Player
from .handflow import HandFlow
from .keys import pass_public_key
from .localtable import Chooser, LocalTable
from .outcome import Abort, CheatError, Termination
from .protocol import RULES, GameProtocol, ProtocolError
from .replay import HandAction, HandTruth, ReplayFault, replay_hand
from .state import Status, StepRule
from .steps import DECISIONS, Step, StepId, StepKind

__all__ = [
    "DECISIONS",
    "RULES",
    "Abort",
    "Aborted",
    "CardPlayed",
    "CardsExposed",
    "CheatError",
    "Chooser",
    "GameEvent",
    "GameOver",
    "GameProtocol",
    "Genesis",
    "GenesisError",
    "HandAction",
    "HandClaimed",
    "HandFlow",
    "HandRecord",
    "HandScored",
    "HandStarted",
    "HandTruth",
    "HandVoided",
    "LocalTable",
    "PassReceived",
    "Player",
    "ProtocolError",
    "ReclaimRefused",
    "ReplayFault",
    "RosterEntry",
    "SeatReclaimed",
    "SeatTaken",
    "SeatTakenOver",
    "SeatedRoster",
    "SitAsked",
    "Status",
    "Step",
    "StepId",
    "StepKind",
    "StepRule",
    "Termination",
    "TrickTaken",
    "pass_public_key",
    "replay_hand",
]
