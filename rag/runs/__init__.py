"""Runs kept beyond a process: the SQLite run history, export / import for replay, the demo pack."""
