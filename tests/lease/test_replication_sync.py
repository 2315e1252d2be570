"""``replication=sync`` in a lease URL (issue 26 §2; docs/leases.md, "Synchronous
replication"): snowid skips the failover quarantine only where it verifies, in every claim
and renewal, that the store replicates synchronously, and refuses with
StoreNotSynchronousError, naming the setting, where it does not.

- PostgreSQL, on the shared server (no standby named): the claim is refused and claims
  nothing; a holder whose store stops naming a standby gets the refusal at its renewal,
  which writes nothing. On a primary and a streaming standby of the test's own, the
  standby named synchronous: claims and renewals are granted, and the standby has every
  ceiling the holder acknowledged; once replication is cut, commits wait for the standby,
  no renewal is acknowledged, and the holder fails closed.
- MariaDB, on the shared server (no semi-synchronous replication): the claim is refused.
  On a primary and replica of the test's own with semi-sync at AFTER_SYNC: claims and
  renewals are granted while the replica acknowledges; once replication is cut, the next
  commit waits out the semi-sync timeout and the server falls back to asynchronous
  silently, and the holder's renewal is refused (its ceiling not used), as is every claim.
- Redis refuses the option in the URL (tests/lease/test_errors.py: ``replication_sync``).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from snowid.errors import StoreNotDurableError, StoreNotSynchronousError
from snowid.lease import init_lease, open_lease
from snowid.lease._pgsql import Sql as PgSql
from snowid.lease._store import StoreLease
from snowid.lease.mysql import MysqlLease
from snowid.lease.postgres import PostgresLease
from tests.support.cleanup import Cleanup
from tests.support.failover import PgPair
from tests.support.failover_mariadb import MariaPair
from tests.support.holders import Issuer, wait_until, worker_ms
from tests.support.servers import new_name
from tests.support.stores import SqlStore, Store, store

__all__ = ["store"]  # the fixture, imported for pytest

pytestmark = [pytest.mark.slow, pytest.mark.timeout(120)]

TIMINGS = "range=0-1&ttl=2&renew=0.3&max_skew=0.5&timeout=1.5"


@contextmanager
def issuing(holder: StoreLease, replication: str) -> Iterator[Issuer]:
    """An Issuer on ``holder``, started and renewed 3 times under ``replication`` before
    the body; finished and the lease closed after it, pass or fail."""
    issuer = Issuer(holder)
    try:
        issuer.start()
        wait_until(lambda: holder.renewals >= 3, 30, f"renewals under {replication}")
        yield issuer
    finally:
        issuer.finish()
        holder.close()


@pytest.mark.parametrize("store", ["postgres", "mysql"], indirect=True)
def test_sync_asked_of_a_store_that_is_not_is_refused_at_the_claim(store: Store) -> None:
    """Nothing is claimed, and the error names the setting that is off."""
    assert isinstance(store, SqlStore)
    setting = {
        "postgres": "synchronous_standby_names",
        "mysql": "rpl_semi_sync_master_wait_point",  # the shared server's: AFTER_COMMIT
    }[store.name]
    with (
        store.open(f"{TIMINGS}&replication=sync") as lease,
        pytest.raises(StoreNotSynchronousError) as caught,
    ):
        lease.acquire(0)
    assert caught.value.setting == setting
    assert isinstance(caught.value, StoreNotDurableError)  # caught where that one is
    assert "replication=sync" in str(caught.value)
    assert store.held() == []
    assert [row[0] for row in store.sql(f"SELECT epoch FROM {store.table} WHERE worker < 2")] == [
        0,
        0,
    ]


@pytest.mark.parametrize("store", ["postgres"], indirect=True)
def test_postgres_renewal_refused_when_no_standby_is_named(store: Store) -> None:
    """A holder claimed without the check, then its statements built with it (as if
    ``synchronous_standby_names`` had been emptied since): the renewal writes nothing and
    says why, and the holder keeps only the ceiling it had."""
    assert isinstance(store, SqlStore)
    # No background renewal within the test: only the one acquire() below asks for.
    with store.open("range=0-1&ttl=30&renew=10&timeout=1.5") as holder:
        assert isinstance(holder, PostgresLease)
        holder.acquire(0)
        acked = holder.ceiling_ms
        before = store.row(0)[2]
        holder.sync_replication = True
        holder.sql = PgSql(holder.sql.schema, holder.sql.table_name, sync=True)
        with pytest.raises(StoreNotSynchronousError) as caught:
            holder.acquire(acked + 1)
        assert caught.value.setting == "synchronous_standby_names"
        assert store.row(0)[2] == before  # nothing written
        assert holder.ceiling_ms <= acked


def test_postgres_sync_standby_grants_and_has_every_acknowledged_ceiling(
    cleanup: Cleanup,
) -> None:
    """The positive path: a standby named in ``synchronous_standby_names`` and streaming.
    A claim and its renewals are granted, and the standby has a ceiling at or above every
    id the holder issued, so a failover to it would lose none. Replication cut: each commit
    waits for the standby until the statement's timeout, so no renewal is acknowledged (not
    even one that committed on the primary alone), and the holder fails closed."""
    pair = PgPair(cleanup)
    pair.primary.sql("ALTER SYSTEM SET synchronous_standby_names = '*'")
    pair.primary.sql("SELECT pg_reload_conf()")
    wait_until(
        lambda: (
            pair.primary.sql("SELECT count(*) FROM pg_stat_replication WHERE sync_state = 'sync'")[
                0
            ][0]
            == 1
        ),
        60,
        "the standby to be synchronous",
    )
    table = new_name()
    url = pair.url(f"table={table}&{TIMINGS}&replication=sync")
    init_lease(url, first_deployment=True)
    holder = open_lease(url)
    assert isinstance(holder, PostgresLease)
    with issuing(holder, "synchronous replication") as issuer:
        wait_until(lambda: len(issuer.ids) > 1000, 30, "ids under synchronous replication")
        pair.cut()
        wait_until(lambda: holder.ceiling_ms == -1, 30, "the holder to fail closed")
    assert issuer.crash is None
    assert len(issuer.ids) == len(set(issuer.ids))
    issuer.assert_within_acked_ceilings()
    on_standby = dict(pair.standby.sql(f"SELECT worker, ceiling_ms FROM {table}"))
    for worker, ms in worker_ms(issuer.ids):
        assert ms <= on_standby[worker], (worker, ms)


def test_mariadb_semi_sync_grants_while_acknowledged_and_refuses_once_it_falls_back(
    cleanup: Cleanup,
) -> None:
    """Semi-sync at AFTER_SYNC, the replica acknowledging: a claim and its renewals are
    granted. Replication cut: the next commit waits out the semi-sync timeout, the server
    falls back to asynchronous (no error to the client), and the holder's renewal is
    refused, its ceiling not used; a fresh claim is refused too, naming the status."""
    pair = MariaPair(cleanup, semi_sync=True, semi_sync_timeout_ms=500)
    pair.user("snowid_app")  # the status and the wait point need no privilege
    url = pair.url(f"{TIMINGS}&replication=sync", user="snowid_app")
    holder = open_lease(url)
    assert isinstance(holder, MysqlLease)
    with issuing(holder, "semi-sync") as issuer:
        assert (
            pair.primary.sql("SHOW GLOBAL STATUS LIKE 'Rpl_semi_sync_master_yes_tx'")[0][1] != "0"
        )
        pair.cut()
        wait_until(
            lambda: "store_not_synchronous" in {code for _, code in issuer.errors},
            30,
            "a renewal refused for want of semi-sync",
        )
        wait_until(lambda: holder.ceiling_ms == -1, 30, "the holder to fail closed")
    assert len(issuer.ids) == len(set(issuer.ids))
    issuer.assert_within_acked_ceilings()
    with open_lease(url) as fresh, pytest.raises(StoreNotSynchronousError) as caught:
        fresh.acquire(0)
    assert caught.value.setting == "Rpl_semi_sync_master_status"
