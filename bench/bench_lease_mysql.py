"""The MySQL / MariaDB column of ``bench_lease.py`` (run that script; ``--no-mysql`` skips it).

Everything runs on a mariadbd the benchmark starts itself
(tests/support/servers.MariaServer): a data directory made by
``mariadb-install-db`` under the system's temporary directory (ext4 here, so the
commit ``fsync`` is real), a free loopback port, ``innodb_flush_log_at_trx_commit=1``
(what strict mode requires), no binary log, ``max_connections=2000``. Its own server,
not the shared one on 3306, so that the CPU figure is the lease's alone and the 64
claimers do not eat into a connection limit others need. Held identities are written
straight into the table; the load counts rows written (``Handler_update``) and commits
(``Com_commit``, each one flushes the redo log). The measurements are bench_lease_common's.
"""

from __future__ import annotations

import time
from typing import Any

from bench_lease_common import StorePart


class MysqlPart(StorePart):
    name = "mysql"
    renew_what = "(CAS round trip)"
    process = "mariadbd"

    def start(self) -> Any:
        # Imported here: bench_lease_common has put the repository root on the path by now.
        from tests.support.servers import MariaServer, binary

        server, install = binary("mariadbd"), binary("mariadb-install-db")
        if server is None or install is None:
            raise RuntimeError("mariadbd or mariadb-install-db not found: --no-mysql")
        options = {
            "innodb-buffer-pool-size": "64M", "innodb-log-file-size": "32M",
            "max-connections": "2000",
        }  # fmt: skip
        maria = MariaServer(server, install, options, database="bench")
        try:
            maria.start()
            self.conn: Any = maria.connect()
        except BaseException:
            maria.close()
            raise
        return maria

    def sql(self, statement: str, params: Any = None) -> list[tuple[Any, ...]]:
        with self.conn.cursor() as cur:
            cur.execute(statement, params)
            return list(cur.fetchall())

    def stop(self) -> None:
        if self.server is not None:
            self.conn.close()
        super().stop()

    def url(self, name: str, query: str = "") -> str:
        return self.server.url(f"table={name}" + (f"&{query}" if query else ""))

    def hold(self, lease: Any, name: str, held: int) -> None:
        del lease
        self.sql(
            f"UPDATE {name} SET owner = 'someone', epoch = 1, expires_ms = %s,"
            " ceiling_ms = %s WHERE worker < %s",
            (2**50, time.time_ns() // 1_000_000 + 10_000, held),
        )

    def connect(self, lease: Any) -> None:
        lease._connect()

    def counters(self) -> dict[str, int]:
        names = ("Handler_update", "Com_commit")
        rows = self.sql("SHOW GLOBAL STATUS WHERE Variable_name IN %s", (names,))
        status = {name: int(value) for name, value in rows}
        return {
            "rows written": status.get("Handler_update", 0),
            "commits": status.get("Com_commit", 0),
        }
