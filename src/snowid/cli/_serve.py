"""``snowid serve``: the web page and the JSON API on uvicorn.

Each flag is a field of ``snowid.web.Settings`` and has its SNOWID_* variable there;
the settings travel to the worker processes as those variables: uvicorn starts each
worker afresh and builds the app there with ``snowid.web:app_factory``, so with
``--workers N`` every process claims its own identity from the lease layer.
"""

from __future__ import annotations

import argparse
import contextlib
import copy
import os
import shutil
import socket
import tempfile
from collections.abc import Iterator
from dataclasses import MISSING, fields, replace
from typing import TYPE_CHECKING

from snowid._exceptions import detached
from snowid.cli._commands import Arguments
from snowid.cli._common import add_lang_option
from snowid.cli._exceptions import AddressUnavailableError, ReleaseFailedError, ServerStartError
from snowid.i18n import translate
from snowid.web import Settings, preflight

if TYPE_CHECKING:
    from types import FrameType

    import uvicorn
    from uvicorn.supervisors import Multiprocess

__all__ = ["ARGUMENTS", "FLAGS", "settings_from"]

# How long uvicorn's supervisor waits for a worker's health ping before it kills it.
WORKER_HEALTHCHECK_S = 30

# field -> (flag, metavar (None: a yes/no flag), help); the defaults are Settings'.
FLAGS: dict[str, tuple[str, str | None, str]] = {
    "host": ("--host", "HOST", "address to listen on"),
    "port": ("--port", "PORT", "port to listen on; 0 picks a free one (logged at start)"),
    "workers": ("--workers", "N", "worker processes, each with its own identity"),
    "lease_url": (
        "--lease",
        "URL",
        "where identities are leased: file://…, postgresql://…, static:…",
    ),
    "max_count": ("--max-count", "N", "most ids one POST /api/ids may ask for"),
    "access_log": ("--access-log", None, "log every request (it costs)"),
    "auth_token_file": (
        "--auth-token-file",
        "PATH",
        "file of bearer tokens, one per line: POST /api/ids then requires one",
    ),
    "auth_metrics": ("--auth-metrics", None, "require a bearer token on /metrics too"),
    "metrics_dir": (
        "--metrics-dir",
        "DIR",
        "directory where the worker processes share their metrics, so /metrics shows them all",
    ),
    "forwarded_allow_ips": (
        "--forwarded-allow-ips",
        "IPS",
        "proxies whose X-Forwarded-For/-Proto headers are believed: IP addresses and networks"
        " separated by commas, or *",
    ),
    "clock_back": (
        "--clock-back",
        "POLICY",
        "when the clock steps back: raise; ride:N (issue on the last ms, up to N ms); wait:N"
        " (wait up to N ms, then raise); logical:N (issue up to N ms ahead of the clock; needs"
        " a lease keeping a high-water mark, N at most its max_skew)",
    ),
    "drain_seconds": (
        "--drain-seconds",
        "S",
        "on SIGTERM/SIGINT, seconds (such as 5 or 2.5, at most 600) the socket stays open"
        " with /readyz answering 503 and every answer saying Connection: close, before the"
        " server stops",
    ),
}
_NO_DEFAULT = {
    "lease_url": "file slots on this host",
    "auth_token_file": "no authentication",
    "metrics_dir": "a private temporary one with --workers N",
    "forwarded_allow_ips": "no proxy: those headers are ignored",
}


def _serve_arguments(serve: argparse.ArgumentParser) -> None:
    for item in fields(Settings):
        flag, metavar, text = FLAGS[item.name]
        default = item.default if item.default is not MISSING else None
        shown = _NO_DEFAULT.get(item.name, "none") if default is None else default
        if isinstance(shown, bool):
            shown = "on" if shown else "off"
        variable = Settings.ENVIRONMENT[item.name]
        help_text = f"{text} (default: {variable}, else {shown})"
        if metavar is None:
            serve.add_argument(
                flag,
                dest=item.name,
                action=argparse.BooleanOptionalAction,
                default=None,
                help=help_text,
            )
        else:
            serve.add_argument(flag, dest=item.name, metavar=metavar, default=None, help=help_text)
    add_lang_option(serve)
    serve.set_defaults(func=_serve)


ARGUMENTS: dict[str, Arguments] = {"serve": _serve_arguments}


def settings_from(args: argparse.Namespace) -> Settings:
    """The flags given, else the SNOWID_* variables, else the defaults."""
    return Settings.load({name: getattr(args, name) for name in FLAGS})


@detached()
def _reserve(host: str, port: int, lang: str) -> socket.socket:
    """Bind the address now, so that a bad host or a busy port is a clear error (exit 1)
    and port 0 becomes a real port that the start log can name.

    The socket stays bound (not listening) while uvicorn runs: with SO_REUSEADDR on
    both, uvicorn can bind the same port, and nobody else can take it in between.
    """
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
        family, kind, proto, _, address = infos[0]
        sock = socket.socket(family, kind, proto)
    except UnicodeError:  # the IDNA codec: a label over 63 characters, or an empty one
        reason = translate("web.serve.bad_host", lang)
        raise AddressUnavailableError(host=host, port=port, reason=reason) from None
    except OSError as error:  # socket.gaierror included
        reason = error.strerror or str(error)
        raise AddressUnavailableError(host=host, port=port, reason=reason) from None
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
    except OSError as error:
        sock.close()
        reason = error.strerror or str(error)
        raise AddressUnavailableError(host=host, port=port, reason=reason) from None
    return sock


@contextlib.contextmanager
def _metrics_dir(settings: Settings) -> Iterator[Settings]:
    """With several workers and no --metrics-dir, a private directory for this run."""
    if settings.workers == 1 or settings.metrics_dir:
        yield settings
        return
    directory = tempfile.mkdtemp(prefix="snowid-metrics-")
    try:
        yield replace(settings, metrics_dir=directory)
    finally:
        shutil.rmtree(directory, ignore_errors=True)


def _serve(args: argparse.Namespace, lang: str) -> int:
    import uvicorn
    from uvicorn.config import LOGGING_CONFIG

    from snowid.web import STOP_GRACE_S, failed_workers, release_failed

    settings = settings_from(args)
    preflight(settings)
    with _reserve(settings.host, settings.port, lang) as reserved, _metrics_dir(settings) as ready:
        run = replace(ready, port=reserved.getsockname()[1])
        os.environ.update({**run.environment(), "SNOWID_LANG": lang})
        log_config = copy.deepcopy(LOGGING_CONFIG)
        log_config["loggers"]["snowid"] = {
            "handlers": ["default"],
            "level": "INFO",
            "propagate": False,
        }
        config = uvicorn.Config(
            "snowid.web:app_factory",
            factory=True,
            host=run.host,
            port=run.port,
            workers=run.workers,
            log_config=log_config,
            access_log=run.access_log,
            server_header=False,
            lifespan="on",
            # X-Forwarded-For/-Proto only from the proxies named, none by default
            # (uvicorn's own default trusts 127.0.0.1, i.e. any local process).
            proxy_headers=bool(run.forwarded_allow_ips),
            forwarded_allow_ips=run.forwarded_allow_ips or None,
            # After the drain, requests in flight get this long; the stop stays bounded.
            timeout_graceful_shutdown=STOP_GRACE_S,
            # uvicorn kills a worker that misses one 5 s health ping; on a busy machine a
            # worker still importing or claiming its identity missed it and was killed and
            # restarted in a loop (issue 24). A hung worker is now replaced after 30 s.
            timeout_worker_healthcheck=WORKER_HEALTHCHECK_S,
        )
        failed_workers(run.metrics_dir)  # the reports of an earlier run are not this one's
        started = _run(config)
        # A worker reports a failed release in the metrics directory (it exits by the
        # signal either way); this process, with one worker, in memory.
        failed = [os.getpid()] if release_failed() else failed_workers(run.metrics_dir)
    if not started:
        raise ServerStartError(workers=run.workers)
    if failed:
        raise ReleaseFailedError(pid=failed[0])
    return 0


def _run(config: uvicorn.Config) -> bool:
    """Serve until stopped, as ``uvicorn.run`` does; False when a process failed to start.

    One process stops as uvicorn makes it (the signal raised again), unless its identity
    failed to go back: then it returns, and ``_serve`` exits 1.

    ``uvicorn.run`` exits 3 when its single process fails to start, but with several
    workers it stops the others and returns as after a clean shutdown (exit 0).
    """
    from uvicorn.config import STARTUP_FAILURE

    if config.workers == 1:
        server = _server_class()(config)
        with contextlib.suppress(KeyboardInterrupt):
            server.run()
        return server.started
    supervisor = _supervisor_class()(config, sockets=[config.bind_socket()])
    with contextlib.suppress(KeyboardInterrupt):
        supervisor.run()
    return all(process.exitcode != STARTUP_FAILURE for process in supervisor.processes)


def _server_class() -> type[uvicorn.Server]:
    """uvicorn's server, except that a failed release is an exit code, not the signal."""
    import uvicorn

    from snowid.web import release_failed

    class Server(uvicorn.Server):
        @contextlib.contextmanager
        def capture_signals(self) -> Iterator[None]:
            with super().capture_signals():
                yield
                if release_failed():
                    # uvicorn raises the signals it caught again as its context ends,
                    # and the process would die by SIGTERM as after a clean stop.
                    self._captured_signals.clear()

    return Server


def _supervisor_class() -> type[Multiprocess]:
    """uvicorn's supervisor of ``--workers N``, passing SIGTERM/SIGINT on to the workers at
    once: its own loop looks at the signals it got every 0.5 s, and each worker's drain
    (``/readyz`` 503) is to start when the signal comes, not up to 0.5 s later."""
    import signal

    from uvicorn.supervisors import Multiprocess

    class Supervisor(Multiprocess):
        def __init__(self, config: uvicorn.Config, sockets: list[socket.socket]) -> None:
            super().__init__(config, sockets)
            for signum in (signal.SIGTERM, signal.SIGINT):
                signal.signal(signum, self._stop_workers)

        def _stop_workers(self, signum: int, frame: FrameType | None) -> None:
            self.signal_queue.append(signum)  # the supervisor's own stop, as before
            for process in list(self.processes):
                # The SIGTERM uvicorn sends each worker later is one more: the drain
                # ignores it. A worker that has exited is not signalled.
                if process.pid is not None and process.exitcode is None:
                    with contextlib.suppress(OSError):
                        os.kill(process.pid, signal.SIGTERM)

    return Supervisor
