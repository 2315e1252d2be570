"""The process-wide generator behind ``snowid.next_id()``: what the integrations use for defaults.

One lease URL per program, from ``snowid.configure(lease=...)`` or else the ``SNOWID_LEASE``
environment variable; its clock-back policy likewise from ``configure(clock_back=...)`` or
``SNOWID_CLOCK_BACK`` (default ``ride:5``, see ``snowid.ClockBack``). There is no silent default
for the lease, because application ids usually meet in
one database written from several hosts and ``file:`` slots are unique on one host only.

Each process builds its own ``Generator(fence=open_lease(url))`` on first use. A forked
child (a pre-forked web worker, a multiprocessing or Celery child) forgets what it
inherited and builds its own on its first call, so it claims its own identity; the lock
is replaced in the child too, as a parent thread may have held it at the fork.

A fixed identity (``static:``) cannot be claimed, only promised, so two processes using
the same one would issue the same ids. The lease layer keeps it to one process at a time
in this network namespace (``StaticIdentityInUseError``, see ``snowid.lease.static``);
on top of that, a process forked from one that claimed it is refused
(``ForkedGeneratorError``), even once that one has let go.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

from snowid._exceptions import (
    AlreadyConfiguredError,
    ForkedGeneratorError,
    NotConfiguredError,
)
from snowid.generate import ClockBack, Generator, count_of, install_stop_handlers
from snowid.ids import SnowId, wrong_type

if TYPE_CHECKING:
    from snowid.lease import Lease, LeaseEvent
    from snowid.lease.static import StaticLease

__all__ = [
    "CLOCK_BACK_VAR",
    "ENV_VAR",
    "anext_id",
    "close",
    "configure",
    "next_id",
    "next_ids",
    "started",
    "warm_up",
]

ENV_VAR = "SNOWID_LEASE"
"""The same variable as ``snowid.lease.ENV_VAR``, named here so that importing snowid does
not load the lease layer (it loads on the first id)."""
CLOCK_BACK_VAR = "SNOWID_CLOCK_BACK"
"""The clock-back policy's variable (``raise``, ``ride:N``, ``wait:N``, ``logical:N``)."""


class _State:
    """Everything the process-wide generator keeps; one instance, module-level."""

    __slots__ = (
        "ancestor_fixed",
        "clock_back",
        "configured",
        "fixed",
        "generator",
        "lease",
        "lock",
        "next_snowid",
    )

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.configured: str | None = None
        """The URL given to configure(), or read from the environment at first use."""
        self.clock_back: str | None = None
        """The policy given to configure(), as spelt by ``ClockBack``; None: the variable."""
        self.generator: Generator | None = None
        """This process's generator; None until first use, and again in a forked child."""
        self.next_snowid: Callable[[], SnowId] = _first_snowid
        """The generator's SnowId front (``Generator._next_snowid``), or ``_first_snowid``
        while there is no generator."""
        self.lease: Lease | None = None
        self.fixed: tuple[int, int] | None = None
        """The static (datacenter, machine) this process claimed, if any."""
        self.ancestor_fixed: set[tuple[int, int]] = set()
        """Static identities that a process this one was forked from had taken."""


def _first_snowid() -> SnowId:
    return _start()._next_snowid()


_state = _State()
_from_int = SnowId._from_int
_from_ints = SnowId._from_ints


def next_id() -> SnowId:
    """A new id from this process's generator (built, and its identity claimed, on first use)."""
    # The hot path: the generator's core hands out SnowIds it made in runs, with no lock
    # per id (Generator._next_snowid); _state.next_snowid is swapped on first use, by
    # close() and in a forked child.
    return _state.next_snowid()


def configure(*, lease: str, clock_back: str | None = None) -> None:
    """Choose where the process-wide generator gets its worker identity: a lease URL.

    ``file:`` (host slots: the processes of one host), ``postgresql://host/db`` (a fleet),
    ``static://DATACENTER/MACHINE`` (your own promise) and every other URL that
    ``snowid.lease.open_lease`` takes. Checked now (an ``InvalidLeaseUrlError`` names what
    is wrong); nothing is claimed until the first id, in each process.
    Takes precedence over ``SNOWID_LEASE``. ``clock_back`` (``raise``, ``ride:N``,
    ``wait:N``, ``logical:N``; see ``snowid.ClockBack``) takes precedence over
    ``SNOWID_CLOCK_BACK``; a logical clock is checked against the lease now.
    The same URL again is a no-op; another one raises ``AlreadyConfiguredError``, as
    does another clock-back policy than one configured before.
    """
    url = _check_url(lease)
    install_stop_handlers()  # again, in case a server replaced it since snowid's import
    from snowid.lease import open_lease

    policy = None if clock_back is None else ClockBack.parse(clock_back)
    with open_lease(url) as checked:  # every option is checked now, not at the first id
        if policy is not None:
            policy.check_lead(fixed=False, fence=checked)
    with _state.lock:
        current = _state.configured
        if current is not None and current != url:
            from snowid.lease import redact

            raise AlreadyConfiguredError(field="lease", value=redact(url), current=redact(current))
        if policy is not None:
            known = _state.clock_back
            if known is not None and known != str(policy):
                raise AlreadyConfiguredError(field="clock_back", value=str(policy), current=known)
            _state.clock_back = str(policy)
        _state.configured = url


def warm_up() -> None:
    """Build this process's generator and claim its identity now, not at the first id.

    Call it at start-up (a FastAPI lifespan, Django's ``AppConfig.ready``, a worker's
    start hook: after any fork, as each process claims its own) so no request waits
    for a claim; a claim that must wait longer than a second says why in the
    ``snowid.lease`` log. In asyncio code: ``await asyncio.to_thread(snowid.warm_up)``.
    """
    generator = _state.generator
    if generator is None:
        generator = _start()
    lease = _state.lease
    if lease is not None:
        lease.warm_up()


def close() -> None:
    """Give the process-wide generator's identity back now; idempotent.

    For applications that want to release before the process ends (a lifespan's
    shutdown, a worker's exit hook); without it the identity is given back at the first
    SIGTERM/SIGINT or at exit. A later ``next_id()`` starts again: it builds a new
    generator and claims an identity, with the same configuration.
    """
    with _state.lock:
        lease = _state.lease
        _state.generator = None
        _state.next_snowid = _first_snowid
        _state.lease = None
        _state.fixed = None
    if lease is not None:
        lease.close()


def started() -> bool:
    """Whether this process has its generator (it may still lose it: a fork)."""
    return _state.generator is not None


def next_ids(n: int) -> list[SnowId]:
    """``n`` new ids in increasing order (see ``Generator.next_ids``)."""
    count_of(n, "snowid.next_ids()")  # before a lease is claimed for nothing
    generator = _state.generator
    if generator is None:
        generator = _start()
    return _from_ints(generator.next_ids(n))  # made in C loops: ~half the CPU per id


async def anext_id() -> SnowId:
    """``next_id`` for asyncio: a wait (for a lease, or the next millisecond) is awaited."""
    generator = _state.generator
    if generator is None:
        generator = _start()  # builds objects only: the claim itself is awaited below
    return _from_int(await generator.anext_id())


# --- building this process's generator ------------------------------------------------


def _check_url(lease: object) -> str:
    from snowid.lease import backend_for, parse_lease_url

    if not isinstance(lease, str):
        raise wrong_type("lease", lease, "snowid.configure()", "str")
    url = lease.strip()
    backend_for(parse_lease_url(url))  # "" and unknown schemes are refused here, never defaulted
    return url


def _start() -> Generator:
    with _state.lock:
        if _state.generator is not None:  # another thread got here first
            return _state.generator
        url = _state.configured or os.environ.get(ENV_VAR, "").strip()
        if not url:
            raise NotConfiguredError(env=ENV_VAR)
        # Not empty, so open_lease reads this URL, not its default; it refuses a bad one
        # with the errors configure() gives.
        from snowid.lease import open_lease
        from snowid.lease.static import StaticLease

        lease = open_lease(url)
        try:
            if isinstance(lease, StaticLease):
                _check_not_inherited(lease)
            policy = _state.clock_back
            field = "clock_back"
            if policy is None:
                policy = os.environ.get(CLOCK_BACK_VAR, "").strip() or None
                field = CLOCK_BACK_VAR  # an error names the variable the operator set
            generator = Generator(fence=lease, clock_back=_policy(policy, field))
        except BaseException:
            lease.close()
            raise
        _state.configured = url
        _state.lease = lease
        _state.generator = generator
        _state.next_snowid = generator._next_snowid
    install_stop_handlers()  # a pre-forked worker's own handlers (a no-op off the main thread)
    return generator


def _policy(text: str | None, field: str) -> ClockBack | None:
    return None if text is None else ClockBack.parse(text, field)


def _check_not_inherited(lease: StaticLease) -> None:
    """Refuse a static identity that a process this one was forked from claimed; else
    remember it once claimed, for this process's own forked children."""
    identity = (lease.datacenter, lease.machine)
    if identity in _state.ancestor_fixed:
        raise ForkedGeneratorError(datacenter=lease.datacenter, machine=lease.machine)

    def on_event(event: LeaseEvent) -> None:
        if event.kind == "claim":
            _state.fixed = identity

    lease.listeners.append(on_event)


def _after_fork_in_child() -> None:
    state = _state
    state.lock = threading.Lock()
    state.generator = None
    state.next_snowid = _first_snowid
    state.lease = None  # the inherited lease drops its grant itself (Lease)
    if state.fixed is not None:
        # The guard itself is dropped by the lease layer (the parent keeps it); if the
        # parent lets go first, this child still refuses the identity (ancestor_fixed).
        state.ancestor_fixed.add(state.fixed)
        state.fixed = None


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)

# The identity goes back to the store on the first SIGTERM/SIGINT under any server
# (snowid.generate._stop): installed on import, which application servers do on the
# main thread, as the first id may be drawn in a worker thread where it cannot be.
install_stop_handlers()


def _reset() -> None:
    """Forget the configuration and close this process's lease (for tests)."""
    with _state.lock:
        lease = _state.lease
        _state.configured = None
        _state.clock_back = None
        _state.generator = None
        _state.next_snowid = _first_snowid
        _state.lease = None
        _state.fixed = None
        _state.ancestor_fixed.clear()
    if lease is not None:
        lease.close()
