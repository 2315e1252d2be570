"""Every exception snowid raises, in one place.

Each class carries a stable ``code`` (the key of its message in the en/vi catalogs,
and the ``error.code`` of the HTTP API) and the data its message is built from
(``params``). Each also subclasses the builtin a caller would expect, so
``except ValueError`` keeps working for bad input.

::

    SnowIdError
    ├── InvalidValueError (ValueError)         bad input, never an id
    │   ├── NotAnIntegerError (+ TypeError)    "12abc", 1.5, True, None
    │   ├── EmptyValueError                    "" where a number is required
    │   ├── NumberTooLongError                 digits beyond any field's range
    │   ├── OutOfRangeError                    field outside its range
    │   │   ├── TimestampBeforeEpochError
    │   │   └── TimestampAfterEndError
    │   ├── InvalidIdError                     not a Twitter-layout id
    │   │   ├── NegativeIdError
    │   │   ├── IdTooLargeError                64 bits or more
    │   │   └── SignBitSetError                bit 63 set
    │   ├── InvalidLeaseUrlError               a lease URL snowid cannot use
    │   │   └── LeaseUrlSyntaxError, UnknownLeaseSchemeError, UnknownLeaseOptionError,
    │   │       DuplicateLeaseOptionError, LeaseIntegerError, LeaseRangeError,
    │   │       LeaseSecondsError, LeaseBoolError, LeaseWorkerRangeError,
    │   │       StaticIdentityMissingError, LeaseFileHostError, LeasePortError,
    │   │       LeaseIdentifierError
    │   └── MissingIdentityError               a Generator with no identity and no lease
    ├── GeneratorError (RuntimeError)          the generator cannot safely issue
    │   ├── ClockMovedBackwards
    │   ├── EndOfTimeError
    │   ├── ForkedGeneratorError
    │   └── CeilingReachedError
    └── LeaseError (RuntimeError)              worker identity could not be had or kept
        ├── NoFreeIdentityError
        ├── LeaseLostError
        ├── StoreUnreachableError (+ ConnectionError)
        ├── ClockSkewError
        ├── UnsupportedFileSystemError
        ├── SlotQuarantinedError
        ├── StateDirUnusableError
        └── StoreRegressedError
    AddressUnavailableError (OSError)          snowid serve cannot listen there
"""

from __future__ import annotations

from typing import ClassVar

__all__ = [
    "AddressUnavailableError",
    "CeilingReachedError",
    "ClockMovedBackwards",
    "ClockSkewError",
    "DuplicateLeaseOptionError",
    "EmptyValueError",
    "EndOfTimeError",
    "ForkedGeneratorError",
    "GeneratorError",
    "IdTooLargeError",
    "InvalidIdError",
    "InvalidLeaseUrlError",
    "InvalidValueError",
    "LeaseBoolError",
    "LeaseError",
    "LeaseFileHostError",
    "LeaseIdentifierError",
    "LeaseIntegerError",
    "LeaseLostError",
    "LeasePortError",
    "LeaseRangeError",
    "LeaseSecondsError",
    "LeaseUrlSyntaxError",
    "LeaseWorkerRangeError",
    "MissingIdentityError",
    "NegativeIdError",
    "NoFreeIdentityError",
    "NotAnIntegerError",
    "NumberTooLongError",
    "OutOfRangeError",
    "SignBitSetError",
    "SlotQuarantinedError",
    "SnowIdError",
    "StateDirUnusableError",
    "StaticIdentityMissingError",
    "StoreRegressedError",
    "StoreUnreachableError",
    "TimestampAfterEndError",
    "TimestampBeforeEpochError",
    "UnknownLeaseOptionError",
    "UnknownLeaseSchemeError",
    "UnsupportedFileSystemError",
]


class SnowIdError(Exception):
    """Base of every snowid error.

    ``code`` is stable and names the catalog message; ``params`` fills its
    placeholders. ``str(error)`` is the English message; ``error.message(lang)``
    gives it in another catalog language.
    """

    code: ClassVar[str] = "snowid_error"

    def __init__(self, **params: object) -> None:
        self.params: dict[str, object] = params
        super().__init__(self.message("en"))

    def message(self, lang: str = "en") -> str:
        """The message in ``lang`` ("en" or "vi"), with this error's data filled in."""
        from snowid.i18n import translate, translate_field

        params = dict(self.params)
        if isinstance(params.get("field"), str):
            params["field"] = translate_field(str(params["field"]), lang)
        if "value" in params:
            params["value"] = _display(params["value"])
        return translate(self.code, lang, **params)

    def __reduce__(self) -> tuple[object, ...]:
        # Exceptions are pickled by args; ours are built from keyword params.
        return (_rebuild, (type(self), self.params))


def _rebuild(cls: type[SnowIdError], params: dict[str, object]) -> SnowIdError:
    return cls(**params)


_DISPLAY_LIMIT = 40


def _display(value: object) -> str:
    """A value as a message shows it: short, and with nothing invisible in it.

    A 300-digit number becomes ``1234567890…67890 (300 digits)``; a string holding
    control characters is shown as its repr so that a NUL or an escape is visible.
    """
    text = str(value)
    if isinstance(value, str) and not text.isprintable():
        text = repr(value)
    if len(text) <= _DISPLAY_LIMIT:
        return text
    digits = text.lstrip("-")
    if isinstance(value, int) and not isinstance(value, bool):
        return f"{text[:12]}…{text[-5:]} ({len(digits)} digits)"
    return f"{text[: _DISPLAY_LIMIT - 1]}…"


# --- bad input ---------------------------------------------------------------


class InvalidValueError(SnowIdError, ValueError):
    """Input that can never become an id. Params: ``field``, ``value``."""

    code = "invalid_value"

    @property
    def field(self) -> str:
        return str(self.params.get("field", ""))


class NotAnIntegerError(InvalidValueError, TypeError):
    """A value that is not a whole number: a bool, a float with a fraction, "12abc"."""

    code = "not_an_integer"


class EmptyValueError(InvalidValueError):
    """An empty string where a number is required."""

    code = "empty_value"


class NumberTooLongError(InvalidValueError):
    """A whole number of thousands of digits: out of every range, too long to even convert.

    Params: ``field``, ``value`` (the text), ``digits``.
    """

    code = "number_too_long"


class OutOfRangeError(InvalidValueError):
    """A whole number outside its field's range. Params: ``field``, ``value``, ``min``, ``max``."""

    code = "out_of_range"


class TimestampBeforeEpochError(OutOfRangeError):
    """A timestamp earlier than the Twitter epoch 1288834974657."""

    code = "timestamp_before_epoch"


class TimestampAfterEndError(OutOfRangeError):
    """A timestamp past 2080-07-10T17:30:30.208Z, the last the 41-bit field holds."""

    code = "timestamp_after_end"


class InvalidIdError(InvalidValueError):
    """A number that is not a Twitter-layout Snowflake id. Params: ``field``, ``value``."""

    code = "invalid_id"


class NegativeIdError(InvalidIdError):
    code = "id_negative"


class IdTooLargeError(InvalidIdError):
    """An id of 64 bits or more."""

    code = "id_too_large"


class SignBitSetError(InvalidIdError):
    """A 64-bit number with bit 63 set: a Snowflake id is always positive."""

    code = "id_sign_bit_set"


class InvalidLeaseUrlError(InvalidValueError):
    """A lease URL with an unknown scheme or bad parameters. Params: ``field``, ``value``, ``reason``."""

    code = "invalid_lease_url"


class MissingIdentityError(InvalidValueError):
    """A Generator got neither a (datacenter, machine) nor a fence to take one from."""

    code = "generator_no_identity"


# InvalidLeaseUrlError, one class per reason (each has its own message in en and vi).


class LeaseUrlSyntaxError(InvalidLeaseUrlError):
    """Not a well-formed URL (for example an unclosed IPv6 bracket). Params: ``field``, ``value``."""

    code = "lease_url_syntax"


class UnknownLeaseSchemeError(InvalidLeaseUrlError):
    """A scheme other than static:, file:, postgresql:. Params: ``field``, ``value``, ``scheme``."""

    code = "lease_url_scheme"


class UnknownLeaseOptionError(InvalidLeaseUrlError):
    """An option the backend does not know. Params: ``field``, ``value``, ``options``, ``allowed``."""

    code = "lease_url_unknown_option"


class DuplicateLeaseOptionError(InvalidLeaseUrlError):
    """An option given more than once in the query. Params: ``field``, ``value``, ``option``, ``count``."""

    code = "lease_url_duplicate_option"


class LeaseIntegerError(InvalidLeaseUrlError):
    """An option that must be a whole number is not one.

    Params: ``field``, ``value``, ``option``, ``text``, ``min``, ``max``.
    """

    code = "lease_url_integer"


class LeaseRangeError(InvalidLeaseUrlError):
    """A whole-number option outside its range. Params: ``field``, ``value``, ``option``, ``text``, ``min``, ``max``."""

    code = "lease_url_range"


class LeaseSecondsError(InvalidLeaseUrlError):
    """A duration that is not a decimal number of seconds, or below its minimum.

    Params: ``field``, ``value``, ``option``, ``text``, ``min``.
    """

    code = "lease_url_seconds"


class LeaseBoolError(InvalidLeaseUrlError):
    """A yes/no option with another value. Params: ``field``, ``value``, ``option``, ``text``."""

    code = "lease_url_bool"


class LeaseWorkerRangeError(InvalidLeaseUrlError):
    """``range=`` that is not A-B (or N) within the worker numbers. Params: ``field``, ``value``, ``text``, ``max``."""

    code = "lease_url_worker_range"


class StaticIdentityMissingError(InvalidLeaseUrlError):
    """A static: URL that names no identity. Params: ``field``, ``value``."""

    code = "lease_url_static_identity"


class LeaseFileHostError(InvalidLeaseUrlError):
    """A file: URL naming another host. Params: ``field``, ``value``, ``host``."""

    code = "lease_url_file_host"


class LeasePortError(InvalidLeaseUrlError):
    """A port that is not a whole number in 1..65535. Params: ``field``, ``value``, ``port``."""

    code = "lease_url_port"


class LeaseIdentifierError(InvalidLeaseUrlError):
    """A schema or table name outside ``[a-z_][a-z0-9_]*``. Params: ``field``, ``value``, ``option``, ``text``."""

    code = "lease_url_identifier"


# --- the generator -----------------------------------------------------------


class GeneratorError(SnowIdError, RuntimeError):
    """The generator cannot issue an id right now without risking a duplicate."""

    code = "generator_error"


class ClockMovedBackwards(GeneratorError):  # noqa: N818 - the name the issue asks for
    """The clock stepped back further than the tolerance. Params: ``step_ms``, ``tolerance_ms``."""

    code = "clock_moved_backwards"

    @property
    def step_ms(self) -> int:
        value = self.params["step_ms"]
        assert isinstance(value, int)
        return value


class EndOfTimeError(GeneratorError):
    """The clock is past the last millisecond the 41-bit field holds. Params: ``timestamp``, ``max``."""

    code = "end_of_time"


class ForkedGeneratorError(GeneratorError):
    """A forked child tried to use its parent's fixed identity. Params: ``datacenter``, ``machine``."""

    code = "forked_generator"


class CeilingReachedError(GeneratorError):
    """The clock is past the confirmed ceiling and it did not rise in time.

    Params: ``timestamp``, ``ceiling``, ``waited_ms``.
    """

    code = "ceiling_reached"


# --- worker-identity leases --------------------------------------------------


class LeaseError(SnowIdError, RuntimeError):
    """A worker identity could not be claimed or kept."""

    code = "lease_error"


class NoFreeIdentityError(LeaseError):
    """Every identity in the configured range is held. Params: ``first``, ``last``, ``store``."""

    code = "no_free_identity"


class LeaseLostError(LeaseError):
    """Another holder took this identity, or renewal failed for too long. Params: ``worker``, ``reason``."""

    code = "lease_lost"


class StoreUnreachableError(LeaseError, ConnectionError):
    """The lease store did not answer. Params: ``store``, ``reason``."""

    code = "store_unreachable"


class ClockSkewError(LeaseError):
    """This host's clock is too far from the store's. Params: ``skew_ms``, ``max_skew_ms``."""

    code = "clock_skew"


class UnsupportedFileSystemError(LeaseError):
    """The state directory is on a network or cluster file system. Params: ``path``, ``fstype``."""

    code = "unsupported_filesystem"


class SlotQuarantinedError(LeaseError):
    """Both high-water-mark records of a slot are corrupt; the slot is never reused silently.

    Params: ``path``.
    """

    code = "slot_quarantined"


class StateDirUnusableError(LeaseError):
    """The state directory cannot be created, listed or written (it is a file, under /proc,
    not writable, the disk is full, ...). Params: ``field``, ``value``, ``path``, ``reason``.

    A LeaseError: the service answers 503 and says not ready until it is fixed.
    """

    code = "lease_state_dir"


class StoreRegressedError(LeaseError):
    """The store answered with a ceiling or incarnation older than one already acknowledged.

    Params: ``worker``, ``reason``.
    """

    code = "store_regressed"


# --- the server --------------------------------------------------------------


class AddressUnavailableError(SnowIdError, OSError):
    """``snowid serve`` cannot listen on the address. Params: ``host``, ``port``, ``reason``."""

    code = "address_unavailable"
