"""The MySQL / MariaDB column of ``bench_lease.py`` (run that script; ``--no-mysql`` skips it).

Everything runs on a mariadbd the benchmark starts itself: a data directory made by
``mariadb-install-db`` under the system's temporary directory (ext4 here, so the
commit ``fsync`` is real), a free loopback port, ``innodb_flush_log_at_trx_commit=1``
(what strict mode requires), no binary log, ``max_connections=2000``. Its own server,
not the shared one on 3306, so that the CPU figure is the lease's alone and the 64
claimers do not eat into a connection limit others need. Held identities are written
straight into the table; the load counts rows written (``Handler_update``) and commits
(``Com_commit``, each one flushes the redo log). The measurements are bench_lease_common's.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

from bench_lease_common import StorePart, cpu_s, free_port


class MariaServer:
    """A durable mariadbd of the benchmark's own on a free loopback port."""

    def __init__(self) -> None:
        import pymysql

        self.dir = Path(tempfile.mkdtemp(prefix="snowid-bench-maria-"))
        self.port = free_port()
        install = shutil.which("mariadb-install-db") or "/usr/bin/mariadb-install-db"
        server = shutil.which("mariadbd") or "/usr/sbin/mariadbd"
        data = self.dir / "data"
        subprocess.run(
            [install, "--no-defaults", f"--datadir={data}", "--user=root",
             "--auth-root-authentication-method=normal", "--skip-test-db"],
            check=True, capture_output=True,
        )  # fmt: skip
        self.proc = subprocess.Popen(
            [server, "--no-defaults", f"--datadir={data}", f"--port={self.port}",
             "--bind-address=127.0.0.1", f"--socket={self.dir / 'sock'}", "--user=root",
             f"--pid-file={self.dir / 'pid'}", f"--log-error={self.dir / 'err.log'}",
             "--skip-name-resolve", "--innodb-flush-log-at-trx-commit=1",
             "--innodb-buffer-pool-size=64M", "--innodb-log-file-size=32M",
             "--max-connections=2000"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        for _ in range(600):
            try:
                self.conn = pymysql.connect(
                    host="127.0.0.1", port=self.port, user="root", autocommit=True,
                    ssl_disabled=True,
                )  # fmt: skip
                break
            except pymysql.err.OperationalError:
                time.sleep(0.05)
        else:
            self.proc.kill()
            self.proc.wait(10)
            shutil.rmtree(self.dir, ignore_errors=True)
            raise RuntimeError("mariadbd did not start")
        self.sql("CREATE DATABASE IF NOT EXISTS bench")
        self.sql("USE bench")

    def sql(self, statement: str, params: Any = None) -> list[tuple[Any, ...]]:
        with self.conn.cursor() as cur:
            cur.execute(statement, params)
            return list(cur.fetchall())

    def status(self, *names: str) -> dict[str, int]:
        rows = self.sql("SHOW GLOBAL STATUS WHERE Variable_name IN %s", (names,))
        return {name: int(value) for name, value in rows}

    def cpu_s(self) -> float:
        return cpu_s(self.proc.pid)

    def stop(self) -> None:
        self.conn.close()
        self.proc.terminate()
        self.proc.wait(30)
        shutil.rmtree(self.dir, ignore_errors=True)


class MysqlPart(StorePart):
    name = "mysql"
    renew_what = "(CAS round trip)"
    process = "mariadbd"

    def start(self) -> MariaServer:
        return MariaServer()

    def url(self, name: str, query: str = "") -> str:
        return f"mysql://root@127.0.0.1:{self.server.port}/bench?table={name}" + (
            f"&{query}" if query else ""
        )

    def hold(self, lease: Any, name: str, held: int) -> None:
        del lease
        self.server.sql(
            f"UPDATE {name} SET owner = 'someone', epoch = 1, expires_ms = %s,"
            " ceiling_ms = %s WHERE worker < %s",
            (2**50, time.time_ns() // 1_000_000 + 10_000, held),
        )

    def connect(self, lease: Any) -> None:
        lease._connect()

    def counters(self) -> dict[str, int]:
        status = self.server.status("Handler_update", "Com_commit")
        return {
            "rows written": status.get("Handler_update", 0),
            "commits": status.get("Com_commit", 0),
        }
