"""Tests of the terminal front end, hearts_p2p.cli (a package, so its helpers import relatively)."""
