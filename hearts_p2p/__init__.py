"""hearts-p2p: Hearts peer-to-peer on a LAN, with a mental-poker deck and no trusted dealer.

The layers, each depending only on those below it: the node (``node``) drives the rules engine
(``engine``), the mental-poker deck (``deck``) and the signed log (``wire``, ``log``); all of them
build on ``cards`` and ``rules``. The engine and the deck do no I/O.
"""

__version__ = "0.1.0"
