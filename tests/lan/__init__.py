"""Tests on a private LAN of network namespaces."""
