"""The ``hearts`` terminal front end: argument parsing, rendering and input over hearts_p2p."""
