"""The peer node: the game protocol (pure) and the trio machinery that runs it on a network."""
