"""Which class serves which lease URL scheme.

Adding a backend is one module (a :class:`~snowid.lease.Lease` subclass with its
``from_url``) and one line below. Entries are ``"module:Class"`` strings imported on
first use, so a ``file:`` or ``static:`` lease never imports a database driver, and
``import snowid.lease`` stays stdlib-only.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from snowid.lease._urltext import conninfo, split_url

if TYPE_CHECKING:
    from snowid.lease._base import Lease
    from snowid.lease._url import LeaseUrl

__all__ = ["BACKENDS", "backend_for", "url_kind"]

BACKENDS: dict[str, str] = {
    "static": "snowid.lease.static:StaticLease",
    "file": "snowid.lease.file:FileLease",
    "postgresql": "snowid.lease.postgres:PostgresLease",
    "postgres": "snowid.lease.postgres:PostgresLease",
    "redis": "snowid.lease.redis:RedisLease",
    "rediss": "snowid.lease.redis:RedisLease",
    "redis+sentinel": "snowid.lease.redis:RedisLease",
    "mysql": "snowid.lease.mysql:MysqlLease",
    "mariadb": "snowid.lease.mysql:MysqlLease",
    "etcd": "snowid.lease.etcd:EtcdLease",
    "zookeeper": "snowid.lease.zookeeper:ZookeeperLease",
    "k8s": "snowid.lease.k8s:PodLease",
    "ordinal": "snowid.lease.k8s:PodLease",
}
"""Scheme (lower case, without the colon) -> ``"module:Class"`` of its backend. A backend's
first scheme is its kind (``snowid.lease.url_kind``: ``postgres:`` counts as postgresql)."""


def backend_for(url: LeaseUrl) -> type[Lease]:
    """The backend class for ``url``'s scheme; InvalidLeaseUrlError (``unknown_scheme``)
    if there is none, ``not_a_url`` if there is no scheme at all."""
    target = BACKENDS.get(url.scheme)
    if target is None:
        allowed = ", ".join(f"{scheme}:" for scheme in BACKENDS)
        if not url.scheme:  # "", or a libpq "host=… dbname=…" string: not a URL at all
            raise url.fail("not_a_url", allowed=allowed)
        raise url.fail("unknown_scheme", scheme=f"{url.scheme}:", allowed=allowed)
    module_name, _, class_name = target.partition(":")
    backend: type[Lease] = getattr(importlib.import_module(module_name), class_name)
    return backend


def url_kind(text: str | None) -> str:
    """``postgresql``, ``redis``, ``mysql``, ``etcd``, ``zookeeper``, ``k8s``, ``file`` or
    ``static`` (``postgres:`` counts as postgresql, ``rediss:`` and ``redis+sentinel:`` as
    redis, ``mariadb:`` as mysql, ``ordinal:`` as k8s); ``other`` for anything else. Says
    nothing about where the store is."""
    if not text:
        return "static"
    url = split_url(text.strip())
    if not url.scheme:
        return "postgresql" if conninfo(text) is not None else "other"
    # A backend's kind is the first scheme registered for it.
    target = BACKENDS.get(url.scheme.lower())
    if target is None:
        return "other"
    return next(scheme for scheme, where in BACKENDS.items() if where == target)
