"""Runs kept beyond a process: the run history (recording and queries over one storage interface, with an
SQLite and a PostgreSQL engine), export / import for replay, the demo pack."""
