"""The CLI's own errors: ``snowid serve`` cannot listen where it was told to, one of its
server processes failed to start, or its identity failed to go back as it stopped; or
``snowid decode --column`` names a column its file does not have.

Raised by ``_serve`` and ``_stream``; users import it from ``snowid.errors``.
"""

from __future__ import annotations

from snowid._exceptions import SnowIdError, error_data, name_errors_module

__all__ = [
    "AddressUnavailableError",
    "ColumnMissingError",
    "FileUnusableError",
    "ReleaseFailedError",
    "ServerStartError",
]


@error_data
class AddressUnavailableError(SnowIdError, OSError):
    """``snowid serve`` cannot listen on ``host`` port ``port`` (``reason``)."""

    code = "address_unavailable"
    host: str
    port: int
    reason: str


@error_data
class ServerStartError(SnowIdError, RuntimeError):
    """A process of ``snowid serve`` (one of ``workers``) failed to start; its own error is
    in the log before this one. The server stopped rather than run short of a process."""

    code = "server_start_failed"
    workers: int


@error_data
class ReleaseFailedError(SnowIdError, RuntimeError):
    """``snowid serve`` (process ``pid``) stopped, but its identity did not go back to the
    lease store in time; the reason is in the log before this one. The identity stays
    held until its grant runs out, and a successor claiming it waits until then."""

    code = "serve_release_failed"
    pid: int


@error_data
class ColumnMissingError(SnowIdError, ValueError):
    """``snowid decode --column`` names ``column``, which the header of ``file`` (a CSV
    file, or a Parquet file's schema) does not have; its columns are ``columns``."""

    code = "column_missing"
    _shown = frozenset({"column", "columns"})
    file: str
    column: str
    columns: str


@error_data
class FileUnusableError(SnowIdError, OSError):
    """``snowid decode --file`` or ``--output`` names ``file``, which cannot be opened or
    read as what it should be (``reason``: the system's or the Parquet reader's words)."""

    code = "file_unusable"
    _shown = frozenset({"file"})
    _whole = frozenset({"reason"})
    file: str
    reason: str


name_errors_module(globals())  # reprs and pickles say snowid.errors.X
