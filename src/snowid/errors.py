"""Every exception snowid raises: the one module to import them from.

Each class carries a stable ``code`` (the key of its message in the en/vi catalogs,
and the ``error.code`` of the HTTP API) and its data as typed attributes
(``error.field``, ``error.value``, ``error.min`` …). The message is built only when
it is read (``str(error)`` in English, ``error.message(lang)`` in another catalog
language), so raising never loads a catalog. Each class also subclasses the builtin
a caller would expect, so ``except ValueError`` keeps working for bad input.

::

    SnowIdError
    ├── InvalidValueError (ValueError)         bad input, never an id
    │   ├── NotAnIntegerError (+ TypeError)    "12abc", 1.5, True, None
    │   │   └── ContainsSpacesError            " 123" where only the digits are taken
    │   ├── WrongTypeError (+ TypeError)       SnowId("12"): a strict constructor, wrong type
    │   ├── EmptyValueError                    "" where a number is required
    │   ├── NumberTooLongError                 digits beyond any field's range
    │   ├── OutOfRangeError                    field outside its range
    │   │   ├── TimestampBeforeEpochError
    │   │   └── TimestampAfterEndError
    │   ├── InvalidIdError                     not an id of the layout (``layout``, ``max``)
    │   │   ├── NegativeIdError
    │   │   ├── IdTooLargeError                64 bits or more
    │   │   ├── SignBitSetError                bit 63 set where it is a sign bit
    │   │   └── FloatIdError                   a float: it may already be another id
    │   ├── InvalidLayoutError                 a layout snowid cannot use (``reason`` says why)
    │   ├── UnknownFieldError                  a field the layout does not have
    │   ├── InvalidEncodingError               text that is not a number in its base
    │   ├── InvalidDateTimeError               neither Unix ms nor ISO 8601
    │   │   └── NumberNotADateError            the range page: 2022 or Unix seconds as a date
    │   ├── DigitGroupError                    digit groups irregular or ambiguous (1.000)
    │   ├── NotAnIdOrLinkError                 pasted text holding no id (``reason``: how far read)
    │   │   └── InstagramShareLinkError        instagram.com/share/…: a token, not the post's code
    │   ├── LayoutConflictError                a layout named that contradicts the pasted link
    │   ├── DuplicateParameterError            an HTTP query parameter given twice
    │   ├── UnknownParameterError              an HTTP parameter the route does not read
    │   ├── InvalidTimeZoneError               the range page: a zone this host does not know
    │   ├── InvalidLeaseUrlError               a lease URL snowid cannot use (``reason`` says why)
    │   ├── MissingIdentityError               a Generator with no identity and no lease
    │   ├── AlreadyConfiguredError             snowid.configure() with another lease
    │   ├── ClockPolicyError                   a clock-back policy snowid cannot use (``reason``)
    │   ├── InvalidDatabaseUrlError            snowid sql ENGINE --apply: a URL of another kind
    │   ├── UnknownSqlEngineError              snowid sql: none of postgres, mysql, sqlite, duckdb
    │   ├── SqlTableRequiredError              snowid sql sqlite without --table or --column
    │   ├── SqlNameError                       a name the SQL cannot use (``reason`` says why)
    │   ├── IndexCheckError                    --check-index: a table whose primary key cannot be read
    │   ├── ColumnMissingError                 snowid decode --column: a column the file does not have
    ├── FileUnusableError (OSError)            snowid decode --file/--output: cannot open or read it
    │   ├── BadRowError                        snowid.bulk: the first bad row of a column (``row``, ``error``)
    │   └── SqlNoServerError                   --apply for SQLite or DuckDB: no server
    ├── GeneratorError (RuntimeError)          the generator cannot safely issue
    │   ├── ClockMovedBackwards
    │   ├── EndOfTimeError
    │   ├── ForkedGeneratorError
    │   ├── CeilingReachedError
    │   ├── GeneratorSealedError               its lease was closed: sealed for good
    │   └── NotConfiguredError                 snowid.next_id() with no lease configured
    └── LeaseError (RuntimeError)              worker identity could not be had or kept
        ├── NoFreeIdentityError
        ├── LeaseLostError
        │   ├── LeaseRemovedError              its record was deleted from the store
        │   ├── LeaseModifiedError             its record was edited under it (owner, epoch)
        │   └── StoreFailedOverError           the store failed over or was restored
        ├── StoreUnreachableError (+ ConnectionError)
        │   └── SentinelUnreachableError       redis+sentinel: no sentinel answered
        ├── SentinelServiceUnknownError        redis+sentinel: no sentinel knows the service
        ├── ClockSkewError
        ├── CeilingAheadError
        ├── UnsupportedFileSystemError
        ├── SlotQuarantinedError
        ├── SlotEntryError                    not a slot file where one should be (``kind``)
        ├── StateDirUnusableError
        ├── StoreRegressedError
        ├── StoreNotDurableError             strict mode: the store can lose writes
        │   └── StoreNotSynchronousError     replication=sync, but the store is not now
        ├── StoreConfigHiddenError           strict mode: its settings cannot be read
        ├── StoreReplicationError            a replica did not confirm a write in time
        ├── StoreRefusedError                the store refused a command
        ├── StoreVersionError                the store's server is too old
        ├── OrdinalMissingError              k8s: no pod ordinal in the host name
        ├── OrdinalOutOfRangeError           k8s: the pod ordinal does not fit its bits
        └── StaticIdentityInUseError           a static identity held by another process
    AddressUnavailableError (OSError)          snowid serve cannot listen there
    (InvalidValueError) NotABooleanError       a yes/no setting that is neither
    (InvalidValueError) NotSecondsError        a setting in seconds that is not a number
    (InvalidValueError) AuthTokenFileError     the bearer-token file cannot be used
        └── AuthTokenFileEmptyError, AuthTokenFileMissingError
    (InvalidValueError) PasswordFileError      a lease URL's password_file cannot be used
        └── PasswordFileEmptyError
    DatabaseUnreachableError (ConnectionError) snowid sql … --apply cannot connect
    ServiceError (RuntimeError)                snowid.client: no usable batch from the service
    ├── ServiceUnreachableError (+ ConnectionError)  no connection after the retries
    ├── ServiceTimeoutError (+ TimeoutError)   no connection or answer in time (not retried)
    ├── ServiceRefusedError                    an HTTP error answer (the service's code)
    │   ├── ServiceAuthError                   401: token missing or wrong
    │   └── ServiceUnavailableError            502/503/504 on every try
    ├── ServiceAnswerError                     an answer that is not a batch of ids
    └── ClientClosedError                      next_id() after close()
    (InvalidValueError) InvalidServiceUrlError, InvalidTokenError   a client's settings
    DatabaseRefusedError (RuntimeError)        … connected, but the SQL was refused
    PgstattupleError (RuntimeError)            --check-index: pgstatindex missing or not allowed
    ExtraMissingError (ImportError)            a feature's optional package is not installed

Each class lives with the layer that raises it (the core's in a shared module below
every layer; the web service's, the CLI's, the k8s lease's and the SQL installer's beside
their code); this module only gathers them (those of a layer on first use, see
``_LAZY``), and each reports ``snowid.errors`` as its module wherever it was reached
(reprs, tracebacks, pickles): ``name_errors_module`` sets it where the class is defined.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from snowid._exceptions import (
    LAYOUT_REASONS,
    LEASE_URL_REASONS,
    AlreadyConfiguredError,
    BadRowError,
    CeilingAheadError,
    CeilingReachedError,
    ClockMovedBackwards,
    ClockPolicyError,
    ClockSkewError,
    ContainsSpacesError,
    EmptyValueError,
    EncodingReason,
    EndOfTimeError,
    ExtraMissingError,
    FloatIdError,
    ForkedGeneratorError,
    GeneratorError,
    GeneratorSealedError,
    IdTooLargeError,
    InvalidDateTimeError,
    InvalidEncodingError,
    InvalidIdError,
    InvalidLayoutError,
    InvalidLeaseUrlError,
    InvalidValueError,
    LayoutReason,
    LeaseError,
    LeaseLostError,
    LeaseModifiedError,
    LeaseRemovedError,
    LeaseUrlReason,
    MissingIdentityError,
    NegativeIdError,
    NoFreeIdentityError,
    NotAnIntegerError,
    NotConfiguredError,
    NumberTooLongError,
    OutOfRangeError,
    PasswordFileEmptyError,
    PasswordFileError,
    ReversedWindowError,
    SentinelServiceUnknownError,
    SentinelUnreachableError,
    SignBitSetError,
    SlotEntryError,
    SlotQuarantinedError,
    SnowIdError,
    StateDirUnusableError,
    StaticIdentityInUseError,
    StoreConfigHiddenError,
    StoreFailedOverError,
    StoreNotDurableError,
    StoreNotSynchronousError,
    StoreRefusedError,
    StoreRegressedError,
    StoreReplicationError,
    StoreUnreachableError,
    StoreVersionError,
    TimestampAfterEndError,
    TimestampBeforeEpochError,
    UnknownFieldError,
    UnsupportedFileSystemError,
    WrongTypeError,
)
from snowid._lazy import lazy_names as _lazy_names
from snowid.ids._choice import LayoutConflictError
from snowid.ids._groups import DigitGroupError
from snowid.ids._pasted import InstagramShareLinkError, NotAnIdOrLinkError

if TYPE_CHECKING:  # what mypy and IDEs see; at run time _LAZY loads these on first use
    from snowid.cli._exceptions import (
        AddressUnavailableError,
        ColumnMissingError,
        FileUnusableError,
        ReleaseFailedError,
        ServerStartError,
    )
    from snowid.client._exceptions import (
        ClientClosedError,
        InvalidServiceUrlError,
        InvalidTokenError,
        ServiceAnswerError,
        ServiceAuthError,
        ServiceError,
        ServiceRefusedError,
        ServiceTimeoutError,
        ServiceUnavailableError,
        ServiceUnreachableError,
    )
    from snowid.integrations.sql import (
        DatabaseRefusedError,
        DatabaseUnreachableError,
        IndexCheckError,
        InvalidDatabaseUrlError,
        PgstattupleError,
        SqlNameError,
        SqlNoServerError,
        SqlTableRequiredError,
        UnknownSqlEngineError,
    )
    from snowid.lease.k8s import (
        OrdinalMissingError,
        OrdinalNotANumberError,
        OrdinalOutOfRangeError,
    )
    from snowid.web._exceptions import (
        AuthTokenFileEmptyError,
        AuthTokenFileError,
        AuthTokenFileMissingError,
        DuplicateParameterError,
        ForwardedIpsError,
        InvalidTimeZoneError,
        MetricsDirError,
        NotABooleanError,
        NotSecondsError,
        NumberNotADateError,
        UnknownParameterError,
    )

# The errors that live with a layer: name -> its module, imported when the name is first
# read, so that importing this module does not import the web service, the lease stores
# (and asyncio) or the CLI. Whoever raises one has imported its module already.
_LAZY = {
    "AddressUnavailableError": "snowid.cli._exceptions",
    "AuthTokenFileEmptyError": "snowid.web._exceptions",
    "AuthTokenFileError": "snowid.web._exceptions",
    "AuthTokenFileMissingError": "snowid.web._exceptions",
    "ClientClosedError": "snowid.client._exceptions",
    "ColumnMissingError": "snowid.cli._exceptions",
    "FileUnusableError": "snowid.cli._exceptions",
    "DatabaseRefusedError": "snowid.integrations.sql",
    "DatabaseUnreachableError": "snowid.integrations.sql",
    "DuplicateParameterError": "snowid.web._exceptions",
    "ForwardedIpsError": "snowid.web._exceptions",
    "InvalidTimeZoneError": "snowid.web._exceptions",
    "IndexCheckError": "snowid.integrations.sql",
    "InvalidDatabaseUrlError": "snowid.integrations.sql",
    "PgstattupleError": "snowid.integrations.sql",
    "InvalidServiceUrlError": "snowid.client._exceptions",
    "InvalidTokenError": "snowid.client._exceptions",
    "MetricsDirError": "snowid.web._exceptions",
    "NotABooleanError": "snowid.web._exceptions",
    "NotSecondsError": "snowid.web._exceptions",
    "NumberNotADateError": "snowid.web._exceptions",
    "OrdinalMissingError": "snowid.lease.k8s",
    "OrdinalNotANumberError": "snowid.lease.k8s",
    "OrdinalOutOfRangeError": "snowid.lease.k8s",
    "ReleaseFailedError": "snowid.cli._exceptions",
    "ServerStartError": "snowid.cli._exceptions",
    "ServiceAnswerError": "snowid.client._exceptions",
    "ServiceAuthError": "snowid.client._exceptions",
    "ServiceError": "snowid.client._exceptions",
    "ServiceRefusedError": "snowid.client._exceptions",
    "ServiceTimeoutError": "snowid.client._exceptions",
    "ServiceUnavailableError": "snowid.client._exceptions",
    "ServiceUnreachableError": "snowid.client._exceptions",
    "SqlNameError": "snowid.integrations.sql",
    "SqlNoServerError": "snowid.integrations.sql",
    "SqlTableRequiredError": "snowid.integrations.sql",
    "UnknownParameterError": "snowid.web._exceptions",
    "UnknownSqlEngineError": "snowid.integrations.sql",
}

__all__ = [
    "LAYOUT_REASONS",
    "LEASE_URL_REASONS",
    "AddressUnavailableError",
    "AlreadyConfiguredError",
    "AuthTokenFileEmptyError",
    "AuthTokenFileError",
    "AuthTokenFileMissingError",
    "BadRowError",
    "CeilingAheadError",
    "CeilingReachedError",
    "ClientClosedError",
    "ClockMovedBackwards",
    "ClockPolicyError",
    "ClockSkewError",
    "ColumnMissingError",
    "ContainsSpacesError",
    "DatabaseRefusedError",
    "DatabaseUnreachableError",
    "DigitGroupError",
    "DuplicateParameterError",
    "EmptyValueError",
    "EncodingReason",
    "EndOfTimeError",
    "ExtraMissingError",
    "FileUnusableError",
    "FloatIdError",
    "ForkedGeneratorError",
    "ForwardedIpsError",
    "GeneratorError",
    "GeneratorSealedError",
    "IdTooLargeError",
    "IndexCheckError",
    "InstagramShareLinkError",
    "InvalidDatabaseUrlError",
    "InvalidDateTimeError",
    "InvalidEncodingError",
    "InvalidIdError",
    "InvalidLayoutError",
    "InvalidLeaseUrlError",
    "InvalidServiceUrlError",
    "InvalidTimeZoneError",
    "InvalidTokenError",
    "InvalidValueError",
    "LayoutConflictError",
    "LayoutReason",
    "LeaseError",
    "LeaseLostError",
    "LeaseModifiedError",
    "LeaseRemovedError",
    "LeaseUrlReason",
    "MetricsDirError",
    "MissingIdentityError",
    "NegativeIdError",
    "NoFreeIdentityError",
    "NotABooleanError",
    "NotAnIdOrLinkError",
    "NotAnIntegerError",
    "NotConfiguredError",
    "NotSecondsError",
    "NumberNotADateError",
    "NumberTooLongError",
    "OrdinalMissingError",
    "OrdinalNotANumberError",
    "OrdinalOutOfRangeError",
    "OutOfRangeError",
    "PasswordFileEmptyError",
    "PasswordFileError",
    "PgstattupleError",
    "ReleaseFailedError",
    "ReversedWindowError",
    "SentinelServiceUnknownError",
    "SentinelUnreachableError",
    "ServerStartError",
    "ServiceAnswerError",
    "ServiceAuthError",
    "ServiceError",
    "ServiceRefusedError",
    "ServiceTimeoutError",
    "ServiceUnavailableError",
    "ServiceUnreachableError",
    "SignBitSetError",
    "SlotEntryError",
    "SlotQuarantinedError",
    "SnowIdError",
    "SqlNameError",
    "SqlNoServerError",
    "SqlTableRequiredError",
    "StateDirUnusableError",
    "StaticIdentityInUseError",
    "StoreConfigHiddenError",
    "StoreFailedOverError",
    "StoreNotDurableError",
    "StoreNotSynchronousError",
    "StoreRefusedError",
    "StoreRegressedError",
    "StoreReplicationError",
    "StoreUnreachableError",
    "StoreVersionError",
    "TimestampAfterEndError",
    "TimestampBeforeEpochError",
    "UnknownFieldError",
    "UnknownParameterError",
    "UnknownSqlEngineError",
    "UnsupportedFileSystemError",
    "WrongTypeError",
]


# PEP 562 hooks; hidden from mypy, for which an unknown name stays an error.
if not TYPE_CHECKING:
    __getattr__, __dir__ = _lazy_names(globals(), _LAZY)
