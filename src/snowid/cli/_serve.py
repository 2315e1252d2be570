"""``snowid serve``: the web page and the JSON API on uvicorn.

Settings travel to the worker processes through the environment (SNOWID_HOST,
SNOWID_PORT, SNOWID_LEASE, SNOWID_MAX_COUNT, SNOWID_LANG): uvicorn starts each
worker afresh and builds the app there with ``snowid.web:app_factory``, so with
``--workers N`` every process claims its own identity from the lease layer.
"""

from __future__ import annotations

import argparse
import copy
import os
import socket
from urllib.parse import urlsplit

from snowid._parse import to_int
from snowid.cli._common import add_lang_option
from snowid.errors import AddressUnavailableError, InvalidLeaseUrlError, OutOfRangeError

__all__ = ["register"]

_MAX_WORKERS = 1024  # one identity each at most: 32 datacenters x 32 machines


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    serve = subparsers.add_parser(
        "serve", help="serve the web page and the JSON API (Starlette on uvicorn)"
    )
    serve.add_argument(
        "--host", default=None, help="address to listen on (default: SNOWID_HOST, else 127.0.0.1)"
    )
    serve.add_argument(
        "--port", default=None, help="port to listen on (default: SNOWID_PORT, else 8000)"
    )
    serve.add_argument(
        "--workers", default="1", help="worker processes, each with its own identity (default 1)"
    )
    serve.add_argument(
        "--lease",
        default=None,
        metavar="URL",
        help="where identities are leased: file://…, postgresql://…, static:… (default:"
        " SNOWID_LEASE, else file slots on this host)",
    )
    serve.add_argument(
        "--max-count",
        default=None,
        help="most ids one POST /api/ids may ask for (default: SNOWID_MAX_COUNT, else 4096)",
    )
    serve.add_argument(
        "--access-log", action="store_true", help="log every request (off by default: it costs)"
    )
    add_lang_option(serve)
    serve.set_defaults(func=_serve)


def worker_environment(args: argparse.Namespace, lang: str) -> dict[str, str]:
    """The SNOWID_* variables the worker processes read, flags winning over the environment."""
    env = os.environ
    values = {
        "SNOWID_HOST": args.host or env.get("SNOWID_HOST") or "127.0.0.1",
        "SNOWID_PORT": str(args.port or env.get("SNOWID_PORT") or "8000"),
        "SNOWID_MAX_COUNT": str(args.max_count or env.get("SNOWID_MAX_COUNT") or "4096"),
        "SNOWID_LANG": lang,
    }
    lease = args.lease or env.get("SNOWID_LEASE")
    if lease:
        values["SNOWID_LEASE"] = lease
    return values


def _check_lease(url: str | None) -> None:
    """A bad URL or an unusable state directory fails here, once, not in every worker."""
    from snowid.lease import FileLease, open_lease

    lease = open_lease(url)
    try:
        if isinstance(lease, FileLease):
            lease.prepare()  # creates the state dir (as a worker would) and checks it
    finally:
        lease.close()


def _check_address(host: str, port: int) -> None:
    """Bind once, as uvicorn will, so a bad host or a busy port is a clear error (exit 1)."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
        family, kind, proto, _, address = infos[0]
        with socket.socket(family, kind, proto) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            probe.bind(address)
    except OSError as error:  # socket.gaierror included
        reason = error.strerror or str(error)
        raise AddressUnavailableError(host=host, port=port, reason=reason) from None


def _serve(args: argparse.Namespace, lang: str) -> int:
    import uvicorn
    from uvicorn.config import LOGGING_CONFIG

    from snowid.web._settings import Settings

    workers = to_int("workers", args.workers)
    if not 1 <= workers <= _MAX_WORKERS:
        raise OutOfRangeError(field="workers", value=workers, min=1, max=_MAX_WORKERS)
    environment = worker_environment(args, lang)
    settings = Settings.from_env(environment)  # checks port and max count before starting
    lease = settings.lease_url or ""
    if workers > 1 and urlsplit(lease).scheme == "static":
        from snowid.lease._url import redact

        raise InvalidLeaseUrlError(value=redact(lease), reason="static_workers", workers=workers)
    _check_lease(settings.lease_url)
    _check_address(settings.host, settings.port)
    os.environ.update(environment)

    log_config = copy.deepcopy(LOGGING_CONFIG)
    log_config["loggers"]["snowid"] = {"handlers": ["default"], "level": "INFO", "propagate": False}
    uvicorn.run(
        "snowid.web:app_factory",
        factory=True,
        host=settings.host,
        port=settings.port,
        workers=workers,
        log_config=log_config,
        access_log=bool(args.access_log),
        lifespan="on",
    )
    return 0
