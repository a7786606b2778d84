"""Finding tables on the LAN: signed UDP announcements by multicast (or broadcast), probes.

A host runs :func:`announce` in its nursery; a joiner uses :func:`open_browser` or
:func:`list_tables`. Everything is confined to the interfaces the caller names.
"""

from .announcer import Announcer, announce
from .browser import Browser, list_tables, open_browser
from .directory import TableDirectory, TableInfo
from .packet import Announcement, PacketError, TableState
from .sockets import DEFAULT_GROUP, DEFAULT_PORT, DiscoveryConfig

__all__ = [
    "DEFAULT_GROUP",
    "DEFAULT_PORT",
    "Announcement",
    "Announcer",
    "Browser",
    "DiscoveryConfig",
    "PacketError",
    "TableDirectory",
    "TableInfo",
    "TableState",
    "announce",
    "list_tables",
    "open_browser",
]
