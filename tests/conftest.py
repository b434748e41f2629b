"""Fixtures every test folder may use: a real PostgreSQL server, started once per test session."""
from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def postgres_server():
    """A throw-away PostgreSQL cluster (tests/support/postgres.py), started on first use. A server that
    cannot start fails the tests that need it, with the reason: never a silent skip."""
    from tests.support.postgres import postgres_cluster

    try:
        with postgres_cluster() as cluster:
            yield cluster
    except RuntimeError as exc:
        pytest.fail(f"the PostgreSQL test server could not start: {exc}", pytrace=False)
