"""One process at a time per static identity, within one network namespace (Linux).

A static identity is promised, not claimed from a store: two processes issuing under it
issue the same ids. So the first one to use it binds an abstract Unix stream socket named
after it (``\\0snowid/static/D/M``) and listens on it. An abstract name creates no file and
is freed by the kernel as soon as its socket is closed, so also when the process exits,
however it exits (SIGKILL included). Another process's bind then fails with EADDRINUSE:
it connects without blocking and reads the listener's pid (``SO_PEERCRED``) to name it in
``StaticIdentityInUseError``. Nothing is ever accepted: a refused process's connection
stays in the listen queue until the holder lets go; past ``SOMAXCONN`` refusals the queue
is full, the connect fails and the error names the identity without a pid.

The kernel keeps abstract names per network namespace: the guard covers the processes of
one host, or of one container with its own network. Other hosts and namespaces cannot be
seen from here (the slot-file lock of ``state_dir=`` covers containers sharing that
directory). Outside Linux there is no abstract namespace and the guard holds nothing.

A forked child inherits the descriptor, and with it would keep the name bound after its
parent exits: the fork hook below closes the child's copy, which leaves the parent's
binding in place. (Until the child has run it, both hold the name: a process trying then
is refused, never let in.) The child takes the guard again on its own first claim,
refused while the parent holds it.
"""

from __future__ import annotations

import contextlib
import errno
import os
import socket
import struct
import sys
import weakref

from snowid._exceptions import StaticIdentityInUseError
from snowid.ids import Clock

__all__ = ["AVAILABLE", "StaticGuard"]

AVAILABLE = sys.platform.startswith("linux")
"""Whether this platform has the abstract namespace the guard needs."""
_PEERCRED = struct.Struct("3i")  # struct ucred: pid, uid, gid

_HELD: weakref.WeakSet[StaticGuard] = weakref.WeakSet()


class StaticGuard:
    """The mark that this process issues under (``datacenter``, ``machine``)."""

    __slots__ = ("__weakref__", "_close", "datacenter", "machine")

    def __init__(self, datacenter: int, machine: int) -> None:
        self.datacenter = datacenter
        self.machine = machine
        self._close: weakref.finalize[[int], StaticGuard] | None = None

    @property
    def held(self) -> bool:
        return self._close is not None and self._close.alive

    def take(self, clock: Clock) -> None:
        """Hold the identity, or raise ``StaticIdentityInUseError`` before anything is issued.

        Returns only once ``clock`` has left the millisecond in which the guard was taken:
        a previous holder let go before then, so an id read from the clock afterwards is
        later than any it issued (on this host's clock). That costs at most a millisecond.
        """
        if not self.held and AVAILABLE:
            fd = _bind(self.datacenter, self.machine)
            # Closed by release(), or when this object is collected (no ResourceWarning).
            self._close = weakref.finalize(self, os.close, fd)
            _HELD.add(self)
        taken = clock.time_ms()
        while clock.time_ms() <= taken:
            clock.sleep(0.0002)

    def release(self) -> None:
        """Let go (idempotent); in a forked child, close only the child's copy."""
        close, self._close = self._close, None
        if close is not None:
            close()
        _HELD.discard(self)


def _bind(datacenter: int, machine: int) -> int:
    """The descriptor of the socket now listening on the identity's name, or refused."""
    name = f"\0snowid/static/{datacenter}/{machine}".encode()
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.bind(name)
        sock.listen(socket.SOMAXCONN)
    except OSError as error:
        sock.close()
        if error.errno != errno.EADDRINUSE:
            raise
    else:
        return sock.detach()
    # Raised outside the handler: the error carries no context from the failed bind.
    pid = _holder_pid(name)
    raise StaticIdentityInUseError(datacenter=datacenter, machine=machine, pid=pid or None)


def _holder_pid(name: bytes) -> int:
    """The pid of the process listening on ``name``, or 0 when the kernel does not say
    (a full queue, a socket that does not listen, a holder in another pid namespace)."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
        probe.setblocking(False)
        try:
            probe.connect(name)
            raw = probe.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, _PEERCRED.size)
        except OSError:
            return 0
        pid: int = _PEERCRED.unpack(raw)[0]
        return max(pid, 0)


def _after_fork_in_child() -> None:
    for guard in list(_HELD):
        with contextlib.suppress(OSError):
            guard.release()


os.register_at_fork(after_in_child=_after_fork_in_child)
