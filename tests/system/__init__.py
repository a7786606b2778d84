"""Tests of hearts_p2p.system: each OS's implementations, the others' with their OS calls faked."""
