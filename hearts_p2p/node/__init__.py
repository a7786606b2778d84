"""The peer node: the trio shell that runs the game core (``hearts_p2p.game``) on a network.

It owns what the core must not touch: sockets (lobby, mesh, discovery), files (the log, the
secrets, the data directory), the clock (timeouts) and the tasks that tie them together.
"""

from .lobby import LobbyError
from .runner import GameRunner, Links, RunnerConfig
from .session import BotSpec, Outcome, PeerOptions, SessionError, host_game, join_game
from .store import DataDir, DataDirBusy, ResumeState, default_data_dir

__all__ = [
    "BotSpec",
    "DataDir",
    "DataDirBusy",
    "GameRunner",
    "Links",
    "LobbyError",
    "Outcome",
    "PeerOptions",
    "ResumeState",
    "RunnerConfig",
    "SessionError",
    "default_data_dir",
    "host_game",
    "join_game",
]
