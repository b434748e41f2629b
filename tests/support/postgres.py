"""A throw-away PostgreSQL cluster for the tests: `initdb` + `pg_ctl` from Debian's `postgresql` package,
in a temp dir, on a free loopback port, stopped and removed at the end.

Why a real server and not a mock: the history's PostgreSQL engine is psycopg, a pool, LangGraph's
PostgresSaver and our migrations; only a server tells whether they agree. `initdb` refuses to run as
root, so as root the cluster belongs to a system user made for it (`rag-pgtest`). Every failure to
start raises with the reason (the tests then fail, never skip).
"""
from __future__ import annotations

import contextlib
import os
import pwd
import shutil
import subprocess
import tempfile
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

from tests.support.browser import free_port

PG_USER = "rag-pgtest"


@dataclass
class PgCluster:
    port: int
    data_dir: Path
    stop_command: list[str] | None = None
    start_command: list[str] | None = None

    def stop(self) -> None:
        """Stop the server now (a database that goes down under a running app)."""
        if self.stop_command:
            subprocess.run(self.stop_command, capture_output=True, timeout=120)

    def start(self) -> None:
        """Start a stopped server again, on the same port and data (the database comes back)."""
        if self.start_command:
            _run(self.start_command)

    def url(self, database: str = "postgres", *, schema: str | None = None) -> str:
        url = f"postgresql://postgres@127.0.0.1:{self.port}/{database}"
        return url + (f"?options=-csearch_path%3D{schema}" if schema else "")

    def new_schema(self) -> str:
        """A fresh, empty schema: each test's history gets one (fast, unlike CREATE DATABASE)."""
        import psycopg

        name = f"t_{uuid.uuid4().hex[:12]}"
        with psycopg.connect(self.url(), autocommit=True) as conn:
            conn.execute(f"CREATE SCHEMA {name}")
        return self.url(schema=name)

    def new_database(self) -> str:
        import psycopg

        name = f"db_{uuid.uuid4().hex[:12]}"
        with psycopg.connect(self.url(), autocommit=True) as conn:
            conn.execute(f"CREATE DATABASE {name}")
        return self.url(name)

    def sql(self, statement: str, url: str | None = None) -> list:
        import psycopg

        with psycopg.connect(url or self.url(), autocommit=True) as conn:
            cur = conn.execute(statement)
            return cur.fetchall() if cur.description else []


def _as_pg_user() -> list[str]:
    """Command prefix that runs a program as the cluster's owner (nothing when not root)."""
    if os.geteuid() != 0:
        return []
    try:
        pwd.getpwnam(PG_USER)
    except KeyError:
        subprocess.run(["useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", PG_USER],
                       check=True, capture_output=True, text=True)
    return ["runuser", "-u", PG_USER, "--"]


def _program(name: str) -> str:
    """`name` on PATH, else in Debian's versioned folder (the package keeps the server programs off PATH)."""
    found = shutil.which(name) or next((str(p) for p in sorted(Path("/usr/lib/postgresql").glob(f"*/bin/{name}"),
                                                                reverse=True)), None)
    if found is None:
        raise RuntimeError(f"{name} was not found: install Debian's postgresql package "
                           "(scripts/test.sh does) to run the PostgreSQL history tests")
    return found


def _run(cmd: list[str]) -> None:
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=180)
    if out.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed ({out.returncode}): {(out.stderr or out.stdout)[-1500:]}")


@contextlib.contextmanager
def postgres_cluster() -> Iterator[PgCluster]:
    """Start a cluster; yield it; stop it and remove its files. Raises RuntimeError with the reason when
    the binaries are missing or the server does not start."""
    initdb, pg_ctl = _program("initdb"), _program("pg_ctl")
    prefix = _as_pg_user()
    base = Path(tempfile.mkdtemp(prefix="rag-pg-"))
    data = base / "data"
    if prefix:
        shutil.chown(base, user=PG_USER)
    port = free_port()
    started = False
    try:
        _run([*prefix, initdb, "-D", str(data), "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync"])
        start = [*prefix, pg_ctl, "-D", str(data), "-l", str(base / "server.log"), "-w", "-t", "120", "-o",
                 f"-p {port} -k {base} -c listen_addresses=127.0.0.1 -c fsync=off", "start"]
        _run(start)
        started = True
        yield PgCluster(port=port, data_dir=data, start_command=start,
                        stop_command=[*prefix, pg_ctl, "-D", str(data), "-m", "immediate", "-w", "stop"])
    except RuntimeError as exc:
        log = base / "server.log"
        if log.exists():
            raise RuntimeError(f"{exc}\nserver log: {log.read_text(errors='replace')[-1500:]}") from None
        raise
    finally:
        if started:
            subprocess.run([*prefix, pg_ctl, "-D", str(data), "-m", "immediate", "-w", "stop"],
                           capture_output=True, timeout=120)
        shutil.rmtree(base, ignore_errors=True)
