"""The exception classes of the core (ids, generate, lease, process) and their base.

A private shared leaf below every layer: a layer imports its exceptions from here (or
from its own module: the web, CLI, k8s and SQL-installer errors live beside the code that
raises them), never from ``snowid.errors``, the face users import every exception from.
Each class is a keyword-only dataclass (``error_data``) with a stable ``code`` and its
data as typed attributes; the message is built only when read (``message(lang)``).
"""

from __future__ import annotations

import contextlib
import dataclasses
from types import TracebackType
from typing import Any, ClassVar, Literal, TypeVar, dataclass_transform, get_args

__all__ = [
    "CLOCK_POLICY_REASONS",
    "LAYOUT_REASONS",
    "LEASE_URL_REASONS",
    "AlreadyConfiguredError",
    "BadRowError",
    "CeilingAheadError",
    "CeilingReachedError",
    "ClockMovedBackwards",
    "ClockPolicyError",
    "ClockPolicyReason",
    "ClockSkewError",
    "ContainsSpacesError",
    "DriverDetail",
    "EmptyValueError",
    "EncodingReason",
    "EndOfTimeError",
    "ExtraMissingError",
    "FloatIdError",
    "ForkedGeneratorError",
    "GeneratorError",
    "IdTooLargeError",
    "InvalidDateTimeError",
    "InvalidEncodingError",
    "InvalidIdError",
    "InvalidLayoutError",
    "InvalidLeaseUrlError",
    "InvalidValueError",
    "LayoutReason",
    "LeaseError",
    "LeaseLostError",
    "LeaseModifiedError",
    "LeaseRemovedError",
    "LeaseUrlReason",
    "MissingIdentityError",
    "NegativeIdError",
    "NoFreeIdentityError",
    "NotAnIntegerError",
    "NotConfiguredError",
    "NumberTooLongError",
    "OutOfRangeError",
    "PasswordFileEmptyError",
    "PasswordFileError",
    "ReversedWindowError",
    "SentinelServiceUnknownError",
    "SentinelUnreachableError",
    "SignBitSetError",
    "SlotEntryError",
    "SlotQuarantinedError",
    "SnowIdError",
    "StateDirUnusableError",
    "StaticIdentityInUseError",
    "StoreConfigHiddenError",
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
    "UnsupportedFileSystemError",
    "WrongTypeError",
    "detached",
]

_E = TypeVar("_E", bound=type)


@dataclass_transform(kw_only_default=True, eq_default=False)
def _data(cls: _E) -> _E:
    """Make an error a keyword-only dataclass: its attributes are its data, typed.

    eq=False keeps exceptions hashable and compared by identity, as builtins are.
    """
    return dataclasses.dataclass(kw_only=True, eq=False, repr=False)(cls)  # type: ignore[return-value]


@_data
class DriverDetail:
    """What an error raised in place of another library's exception keeps of it (see
    ``detached`` below): the class name and the message, scrubbed of every secret;
    both empty when there was none. The exception itself is never kept."""

    driver_class: str = ""
    driver_message: str = ""


class SnowIdError(Exception):
    """Base of every snowid error.

    ``code`` is stable and names the catalog message; the attributes fill its
    placeholders. ``str(error)`` is the English message; ``error.message(lang)``
    gives it in another catalog language.
    """

    code: ClassVar[str] = "snowid_error"
    # Attributes holding untrusted text or numbers, shown shortened and made visible.
    _shown: ClassVar[frozenset[str]] = frozenset({"value"})
    # Untrusted text that is a sentence to read (a service's own message): made visible,
    # shortened only past _WHOLE_LIMIT characters.
    _whole: ClassVar[frozenset[str]] = frozenset()

    def message(self, lang: str = "en") -> str:
        """The message in ``lang`` ("en" or "vi"), with this error's data filled in."""
        from snowid.i18n import (  # the catalogs load only here
            translate,
            translate_field,
            translate_layout,
        )

        params = {name: self._as_shown(name, value) for name, value in self._fields().items()}
        params.update(self._derived())
        if isinstance(params.get("field"), str):
            params["field"] = translate_field(str(params["field"]), lang)
        if isinstance(params.get("layout"), str):
            params["layout"] = translate_layout(str(params["layout"]), lang)
        return translate(self._catalog_key(), lang, **params)

    def _as_shown(self, name: str, value: object) -> object:
        if name in self._whole:
            return _display(value, _WHOLE_LIMIT)
        return _display(value) if name in self._shown else value

    def _catalog_key(self) -> str:
        return self.code

    def _derived(self) -> dict[str, object]:
        """Placeholders computed from the data (not attributes: pickling rebuilds from those)."""
        return {}

    def _fields(self) -> dict[str, Any]:
        if not dataclasses.is_dataclass(self):
            return {}
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}

    def __str__(self) -> str:
        return self.message("en")

    def __repr__(self) -> str:
        return f"{type(self).__name__}({str(self)!r})"

    def __reduce__(self) -> tuple[object, ...]:
        # Exceptions are pickled by args; ours are built from keyword attributes.
        return (_rebuild, (type(self), self._fields()))


def _rebuild(cls: type[SnowIdError], fields: dict[str, Any]) -> SnowIdError:
    return cls(**fields)


_DISPLAY_LIMIT = 40
_WHOLE_LIMIT = 1000  # a message of a few sentences whole; a page sent by mistake, not
_STR_SAFE_BITS = 13_000  # str(int) is refused past 4300 digits (about 14,000 bits)


def _display(value: object, limit: int = _DISPLAY_LIMIT) -> str:
    """A value as a message shows it: short (``limit`` characters), and with nothing
    invisible in it.

    A 300-digit number becomes ``1234567890…67890 (300 digits)``; a string holding
    control characters is shown as its repr so that a NUL or an escape is visible.
    """
    if isinstance(value, int) and not isinstance(value, bool):
        return _display_int(value)
    text = str(value)
    if isinstance(value, str) and not text.isprintable():
        text = repr(value)
    if len(text) <= limit:
        return text
    return f"{text[: limit - 1]}…"


def _display_int(value: int) -> str:
    """Any int, even one too long for ``str()`` (CPython refuses over 4300 digits)."""
    sign, magnitude = ("-" if value < 0 else ""), abs(value)
    if magnitude.bit_length() <= _STR_SAFE_BITS:
        text = str(magnitude)
        if len(text) + len(sign) <= _DISPLAY_LIMIT:
            return sign + text
        head, tail, digits = text[:12], text[-5:], len(text)
    else:  # the same figures by arithmetic: digit count, leading 12 and trailing 5 digits
        digits = int((magnitude.bit_length() - 1) * 0.30102999566398120)
        while 10**digits <= magnitude:
            digits += 1
        head = str(magnitude // 10 ** (digits - 12))
        tail = f"{magnitude % 100_000:05d}"
    return f"{sign}{head}…{tail} ({digits} digits)"


# --- bad input ---------------------------------------------------------------


@_data
class InvalidValueError(SnowIdError, ValueError):
    """Input that can never become an id: ``field`` names the input, ``value`` is what was given."""

    code = "invalid_value"
    field: str
    value: object


class NotAnIntegerError(InvalidValueError, TypeError):
    """A value that is not a whole number: a bool, a float with a fraction, "12abc"."""

    code = "not_an_integer"


class ContainsSpacesError(NotAnIntegerError):
    """Digits with white space around them where only the digits are taken (the strict
    readers, and pydantic's and Django's); the message quotes ``value`` so the space shows."""

    code = "contains_spaces"

    def _derived(self) -> dict[str, object]:
        return {"value": _display(repr(self.value))}


@_data
class WrongTypeError(InvalidValueError, TypeError):
    """A strict constructor got the wrong type: ``function`` takes ``expected`` ("int" or
    "str") for ``field``, not a ``given_type``. ``SnowId.parse`` is the lenient entry."""

    code = "wrong_type"
    function: str
    expected: str
    given_type: str


class EmptyValueError(InvalidValueError):
    """An empty string where a number is required."""

    code = "empty_value"


@_data
class NumberTooLongError(InvalidValueError):
    """A whole number of thousands of digits: out of every range, too long to even convert.

    ``value`` is the text; ``digits`` its number of digits.
    """

    code = "number_too_long"
    digits: int


@_data
class OutOfRangeError(InvalidValueError):
    """A whole number outside its field's range ``min..max`` (``max`` may be "∞")."""

    code = "out_of_range"
    min: int
    max: int | str


@_data
class TimestampBeforeEpochError(OutOfRangeError):
    """A timestamp earlier than the epoch of ``layout`` (Twitter's: 1288834974657);
    ``min``..``max`` is the layout's range in Unix ms.

    A value that looks like Unix seconds (10 digits, or valid once multiplied by 1000)
    is the commonest slip; its message adds the same instant in milliseconds
    (``as_milliseconds``), from the catalog entry ``timestamp_before_epoch.seconds``.
    """

    code = "timestamp_before_epoch"
    layout: str = "twitter"

    @property
    def as_milliseconds(self) -> int | None:
        """``value`` × 1000 when ``value`` looks like Unix seconds; else None."""
        value = self.value
        if type(value) is not int or value <= 0:
            return None
        in_range = isinstance(self.max, int) and self.min <= value * 1000 <= self.max
        return value * 1000 if in_range or 10**9 <= value < 10**10 else None

    def _catalog_key(self) -> str:
        return f"{self.code}.seconds" if self.as_milliseconds is not None else self.code

    def _derived(self) -> dict[str, object]:
        milliseconds = self.as_milliseconds
        hint = {} if milliseconds is None else {"milliseconds": milliseconds}
        return {**_range_dates(self.min, self.max), **hint}


@_data
class TimestampAfterEndError(OutOfRangeError):
    """A timestamp past the last time ``layout`` holds (Twitter's: 2080-07-10T17:30:30.208Z)."""

    code = "timestamp_after_end"
    layout: str = "twitter"

    def _derived(self) -> dict[str, object]:
        return _range_dates(self.min, self.max)


def _range_dates(first: int, last: int | str) -> dict[str, object]:
    """``min_utc`` and ``max_utc``: a time range's ends as ISO 8601 UTC, for its messages."""
    return {"min_utc": _utc_text(first), "max_utc": _utc_text(last)}


def _utc_text(ms: object) -> str:
    """Unix ms as ``2010-11-04T01:42:54.657Z``; past year 9999 (or not a number) as given."""
    if not isinstance(ms, int):
        return str(ms)
    from snowid._isotime import iso_ms  # read with the message, never on a raise

    return iso_ms(ms) or f"{ms} ms"


@_data
class InvalidIdError(InvalidValueError):
    """A number that is not an id of ``layout``, whose ids are ``0..max``."""

    code = "invalid_id"
    layout: str = "twitter"
    max: int = 2**63 - 1


class NegativeIdError(InvalidIdError):
    code = "id_negative"


@_data
class IdTooLargeError(InvalidIdError):
    """An id that needs more than ``bits`` (64) bits."""

    code = "id_too_large"
    bits: int


@_data
class SignBitSetError(InvalidIdError):
    """A 64-bit number with the sign bit ``bit`` (63) set: a Snowflake id is always positive."""

    code = "id_sign_bit_set"
    bit: int


LayoutReason = Literal[
    "unknown",  # a name that is no built-in layout (``allowed`` lists them)
    "unknown_builtin",  # the same where only a built-in's exact name is taken (the web)
    "syntax",  # a layout spec that cannot be read (epoch=…,unit=…,fields=…)
    "field_name",  # a field ``name`` that is not lower-case ASCII letters, digits and _
    "duplicate_field",  # a field ``name`` given twice
    "reserved_field",  # a field ``name`` taken by compose's own arguments
    "width",  # a field ``name`` ``width`` bits wide, outside 1..``max``
    "total_width",  # the widths add up to ``total``, not ``expected``
    "epoch",  # an ``epoch`` outside 0..``max`` Unix ms
    "unit",  # a time ``unit`` outside 1..``max`` ms
    "time_range",  # a ``last`` time past ``max`` ms (JSON numbers stay exact below it)
    "no_fields",  # no fields at all: a layout needs its time field
]
LAYOUT_REASONS: tuple[str, ...] = get_args(LayoutReason)
"""Every ``InvalidLayoutError.reason``; each has its message ``invalid_layout.<reason>``."""


@_data
class InvalidLayoutError(InvalidValueError):
    """A layout snowid cannot use; ``reason`` (one of LAYOUT_REASONS) says why.

    ``value`` is the layout's name or the spec as given; the other attributes are the
    data the reason's message names.
    """

    code = "invalid_layout"
    _shown = frozenset({"value", "name"})
    field: str = "layout"
    reason: LayoutReason
    name: str = ""
    width: int = 0
    total: int = 0
    expected: int = 0
    epoch: int = 0
    unit: int = 0
    last: int = 0
    max: int = 0
    allowed: str = ""

    def _catalog_key(self) -> str:
        return f"{self.code}.{self.reason}"


@_data
class UnknownFieldError(InvalidValueError):
    """``field`` (given ``value``) is not a field of ``layout``, whose fields are ``allowed``."""

    code = "unknown_field"
    _shown = frozenset({"value", "field"})
    layout: str
    allowed: str


EncodingReason = Literal[
    "unknown_base",  # a base snowid does not know (``allowed`` lists them)
    "digit",  # ``character`` at ``position`` is not a digit of ``base`` (``allowed``)
]


@_data
class InvalidEncodingError(InvalidValueError):
    """Text that is not a number in ``base``; ``reason`` (unknown_base or digit) says why."""

    code = "invalid_encoding"
    _shown = frozenset({"value", "character"})
    reason: EncodingReason
    base: str = ""
    character: str = ""
    position: int = 0
    allowed: str = ""

    def _catalog_key(self) -> str:
        return f"{self.code}.{self.reason}"


class InvalidDateTimeError(InvalidValueError):
    """A time that is neither Unix milliseconds nor an ISO 8601 date and time."""

    code = "invalid_datetime"


@_data
class ReversedWindowError(InvalidValueError):
    """A time window whose end ``value`` (``field``) is before its start ``start``, both as
    given: the bounds are swapped. ``snowid.id_range`` itself answers such a window with
    the empty ``(1, 0)``; the command line and the page refuse it."""

    code = "window_reversed"
    _shown = frozenset({"value", "start"})
    start: str


LeaseUrlReason = Literal[
    "syntax",  # not a well-formed URL (for example an unclosed IPv6 bracket)
    "unknown_scheme",  # a ``scheme`` no backend is registered for (``allowed``)
    "unknown_option",  # options the backend does not know (``options``, ``allowed``;
    # ``suggestion``: the known option a lone unknown one is close to, if any; ``passes_to``:
    # the library that takes the options not in ``allowed``, if any: "libpq")
    "duplicate_option",  # an option given ``count`` times in the query (``option``)
    "integer",  # ``option``=``text`` is not a whole number (``min``, ``max``)
    "range",  # ``option``=``text`` is outside ``min``..``max``
    "seconds",  # ``option``=``text`` is not a decimal number of seconds >= ``min``
    "bool",  # ``option``=``text`` is not a yes/no value
    "worker_range",  # range=``text`` is not A-B within 0..``max``
    "static_identity_missing",  # a static: URL that names no identity
    "file_host",  # a file: URL naming another ``host``
    "port",  # a ``port`` that is not a whole number in 1..65535
    "host_list",  # ``count`` hosts for a ``scheme`` whose store is one host
    "identifier",  # ``option``=``text`` is not a plain SQL name
    "static_workers",  # a static identity given to ``workers`` server processes
    "choice",  # ``option``=``text`` is not one of ``allowed``
    "control_character",  # a control character (``text``, as U+XXXX) in the URL or its path
    "database_missing",  # a mysql: URL without a database in its path
    "env_name",  # ``option``=``text`` is not an environment variable name
    "password_twice",  # a password in the URL and ``password_file=`` too
    "not_a_url",  # no scheme at all: empty, or a libpq ``key=value`` string
    "no_location",  # a ``scheme`` (k8s:) that takes no host or path was given ``text``
    "key_prefix",  # an etcd: or zookeeper: URL whose path ``text`` is not a key prefix
    "password_inline",  # a ``scheme`` (etcd:, zookeeper:) taking its password from a file or env
    "sentinel_service",  # a redis+sentinel: URL whose path ``text`` is not /SERVICE[/DB]
    "replication_sync",  # replication=sync for a ``scheme`` (redis:) that cannot verify it
]
LEASE_URL_REASONS: tuple[str, ...] = get_args(LeaseUrlReason)
"""Every ``InvalidLeaseUrlError.reason``; each has its message ``invalid_lease_url.<reason>``."""


@_data
class InvalidLeaseUrlError(InvalidValueError, DriverDetail):
    """A lease URL snowid cannot use; ``reason`` (one of LEASE_URL_REASONS) says why.

    ``value`` is the URL without its password. The other attributes are the data the
    reason's message names; those a reason does not use stay empty.
    """

    code = "invalid_lease_url"
    _shown = frozenset({"value", "option", "text", "scheme", "options", "host", "port"})
    field: str = "lease"
    reason: LeaseUrlReason
    option: str = ""
    text: str = ""
    min: int | str = ""
    max: int | str = ""
    scheme: str = ""
    options: str = ""
    allowed: str = ""
    count: int = 0
    host: str = ""
    port: str = ""
    workers: int = 0
    suggestion: str = ""
    passes_to: str = ""

    def _catalog_key(self) -> str:
        # an unknown option close to a known one: the message suggests that one
        variant = ".close" if self.suggestion else f".{self.passes_to}" if self.passes_to else ""
        return f"{self.code}.{self.reason}{variant}"


@_data
class MissingIdentityError(InvalidValueError):
    """A Generator got neither a (datacenter, machine) nor a fence to take one from."""

    code = "generator_no_identity"
    field: str = "datacenter"
    value: object = ""


# --- the generator -----------------------------------------------------------


class GeneratorError(SnowIdError, RuntimeError):
    """The generator cannot issue an id right now without risking a duplicate."""

    code = "generator_error"


@_data
class ClockMovedBackwards(GeneratorError):  # noqa: N818 - the name the issue asks for
    """The clock stepped back ``step_ms``, further than the tolerance ``tolerance_ms``."""

    code = "clock_moved_backwards"
    step_ms: int
    tolerance_ms: int


ClockPolicyReason = Literal["syntax", "needs_ms", "no_ms", "lead", "no_mark", "both"]
CLOCK_POLICY_REASONS: tuple[str, ...] = get_args(ClockPolicyReason)


@_data
class ClockPolicyError(InvalidValueError):
    """A clock-back policy (``value``, as given for ``field``) snowid cannot use;
    ``reason`` (one of CLOCK_POLICY_REASONS) says why. ``policy`` is the policy's name,
    ``max`` the most a logical clock may run ahead under ``fence`` (reason ``lead``)."""

    code = "clock_policy"
    _shown = frozenset({"value", "fence"})
    field: str = "clock_back"
    reason: ClockPolicyReason
    policy: str = ""
    max: int = 0
    fence: str = ""

    def _catalog_key(self) -> str:
        return f"{self.code}.{self.reason}"


@_data
class EndOfTimeError(GeneratorError):
    """The clock (``timestamp``) is past ``max``, the last millisecond the 41-bit field holds."""

    code = "end_of_time"
    timestamp: int
    max: int


@_data
class ForkedGeneratorError(GeneratorError):
    """A forked child tried to use its parent's fixed identity (``datacenter``, ``machine``)."""

    code = "forked_generator"
    datacenter: int
    machine: int


@_data
class CeilingReachedError(GeneratorError):
    """The clock (``timestamp``) is past the confirmed ``ceiling`` and it did not rise
    within ``waited_ms``."""

    code = "ceiling_reached"
    timestamp: int
    ceiling: int
    waited_ms: int


@_data
class GeneratorSealedError(GeneratorError):
    """The generator was sealed when the lease on worker ``worker`` was closed: it
    issues nothing more, for good (the last timestamp it may have issued, ``mark_ms``,
    went to the store so that the next holder starts right after it)."""

    code = "generator_sealed"
    worker: str
    mark_ms: int


# --- worker-identity leases --------------------------------------------------


class LeaseError(SnowIdError, RuntimeError):
    """A worker identity could not be claimed or kept."""

    code = "lease_error"


@_data
class NoFreeIdentityError(LeaseError):
    """Every identity in ``first..last`` of ``store`` is held."""

    code = "no_free_identity"
    first: int
    last: int
    store: str


@_data
class LeaseLostError(LeaseError):
    """Another holder took this identity, or renewal failed for too long."""

    code = "lease_lost"
    worker: int | str
    reason: str


@_data
class LeaseRemovedError(LeaseLostError):
    """The record of worker ``worker``'s lease was deleted from the lease ``store`` under
    its live holder (a deleted row or key, a truncated table), so the holder stopped
    issuing. Not a takeover: nobody claimed it in the normal way. ``where`` names the
    table or keys; the next claim rewrites the record, quarantined."""

    code = "lease_removed"
    reason: str = "its lease record was removed from the store"
    store: str
    where: str


@_data
class LeaseModifiedError(LeaseLostError):
    """The record of worker ``worker``'s lease was edited in the lease ``store`` under its
    live holder (its owner or epoch changed by something other than a claim), so the
    holder stopped issuing. Neither a takeover nor a deletion: the record is still there,
    its ceiling kept, and the next claim starts above it. ``where`` names the table or
    keys."""

    code = "lease_modified"
    reason: str = "its lease record was modified in the store"
    store: str
    where: str


@_data
class StoreFailedOverError(LeaseLostError):
    """The lease ``store`` is no longer the history that granted worker ``worker``'s lease:
    it failed over to a replica, or was restored (``seen`` was its history identity at the
    claim, ``found`` is the one now: a PostgreSQL system identifier and timeline, a Redis
    replication id). The store may have lost ceilings it had acknowledged, so the holder
    stopped issuing; the next claim waits out a quarantine above every grant the old
    store could have made, then proceeds."""

    code = "store_failed_over"
    reason: str = "the lease store failed over or went back in time"
    store: str
    seen: str
    found: str


@_data
class StoreUnreachableError(LeaseError, ConnectionError, DriverDetail):
    """The lease ``store`` did not answer (``reason``)."""

    code = "store_unreachable"
    store: str
    reason: str


@_data
class SentinelUnreachableError(StoreUnreachableError):
    """None of the Redis Sentinels ``sentinels`` (``host:port, …``) of the lease ``store``
    answered (``reason``: what each said, without secrets)."""

    code = "sentinel_unreachable"
    sentinels: str


@_data
class SentinelServiceUnknownError(LeaseError):
    """The Redis Sentinels of the lease ``store`` answered, but none monitors a primary
    named ``service``; ``known`` lists the names they do monitor ("" if none)."""

    code = "sentinel_service_unknown"
    _shown = frozenset({"service", "known"})
    store: str
    service: str
    known: str


@_data
class ClockSkewError(LeaseError):
    """This host's clock is ``skew_ms`` from the store's, more than ``max_skew_ms``."""

    code = "clock_skew"
    skew_ms: int
    max_skew_ms: int


@_data
class CeilingAheadError(LeaseError):
    """A previous holder's ``ceiling`` (worker ``worker``) is ``ahead_ms`` ahead of this
    host's clock, more than ``max_ms``, the most a claim may wait or tolerate.

    Not a skew between two clocks: either this host's clock is behind, or the stored
    ceiling is wrong (a store written by a host whose clock was far ahead, a tampered
    slot file).
    """

    code = "ceiling_ahead"
    worker: int
    ceiling: int
    ahead_ms: int
    max_ms: int


@_data
class UnsupportedFileSystemError(LeaseError):
    """The state directory ``path`` is on a network or cluster file system (``fstype``)."""

    code = "unsupported_filesystem"
    path: str
    fstype: str


@_data
class SlotQuarantinedError(LeaseError):
    """Both high-water-mark records of the slot file ``path`` are corrupt; the slot is
    never reused silently."""

    code = "slot_quarantined"
    path: str


SlotEntryKind = Literal[
    "symlink",  # a symbolic link: never followed (it could point anywhere)
    "directory",  # a directory
    "special",  # a FIFO, socket or device node
    "foreign",  # a regular file holding no high-water-mark record: never written over
]


@_data
class SlotEntryError(LeaseError):
    """Something other than a slot file sits at the slot path ``path``; ``kind`` says what
    (one of SlotEntryKind). The slot is skipped, never used or written through."""

    code = "slot_entry"
    path: str
    kind: SlotEntryKind

    def _catalog_key(self) -> str:
        return f"{self.code}.{self.kind}"


@_data
class StateDirUnusableError(LeaseError, DriverDetail):
    """The state directory ``path`` cannot be created, listed or written (it is a file,
    under /proc, not writable, the disk is full, ...): ``reason``.

    A LeaseError: the service answers 503 and says not ready until it is fixed.
    """

    code = "lease_state_dir"
    field: str = "lease"
    value: str
    path: str
    reason: str


@_data
class StoreRegressedError(LeaseError):
    """The store answered with a ceiling or incarnation older than one already acknowledged."""

    code = "store_regressed"
    worker: int | str
    reason: str


@_data
class StoreNotDurableError(LeaseError):
    """Strict mode: ``store`` is set up so that it can lose acknowledged writes (a Redis
    without an append-only file, with an evicting memory policy, ...): its ``setting`` is
    ``found`` where ``required`` is needed. A lost ceiling could let two processes issue
    the same id, so this is checked before anything is written."""

    code = "store_not_durable"
    store: str
    setting: str
    found: str
    required: str


@_data
class StoreNotSynchronousError(StoreNotDurableError):
    """The lease URL says ``replication=sync``, but ``store`` does not replicate
    synchronously now: its ``setting`` is ``found`` where ``required`` is needed
    (PostgreSQL: ``synchronous_standby_names`` empty; MariaDB: semi-synchronous replication
    off, fallen back to asynchronous, or waiting at another point than ``AFTER_SYNC``).
    Nothing was granted on that answer: a claim is refused, a renewal's ceiling is not
    used (the holder keeps issuing below the last verified one, then fails closed)."""

    code = "store_not_synchronous"


@_data
class StoreConfigHiddenError(LeaseError, DriverDetail):
    """Strict mode: ``store`` refused to show its persistence settings (``reason``; managed
    Redis often blocks CONFIG GET), so it cannot be vouched for."""

    code = "store_config_hidden"
    store: str
    reason: str


@_data
class StoreReplicationError(LeaseError):
    """A write to ``store`` was confirmed by ``acked`` of its ``replicas`` replicas within
    ``timeout_ms`` (Redis WAIT); its ceiling is not used."""

    code = "store_replication_unconfirmed"
    store: str
    acked: int
    replicas: int
    timeout_ms: int


@_data
class StoreRefusedError(LeaseError, DriverDetail):
    """``store`` answered but refused a command (``reason``: out of memory, a read-only
    replica, a missing permission, a server too old)."""

    code = "store_refused"
    store: str
    reason: str


@_data
class StoreVersionError(LeaseError):
    """``store`` runs ``product`` ``version``; the lease needs ``required`` or later (for
    MySQL and MariaDB: ``SELECT … FOR UPDATE SKIP LOCKED``)."""

    code = "store_version"
    _shown = frozenset({"version"})
    store: str
    product: str
    version: str
    required: str


@_data
class PasswordFileError(InvalidValueError, DriverDetail):
    """The file ``value`` named by ``password_file=`` in the lease URL ``url`` (shown
    without secrets) cannot be read: ``reason`` (the OS's words). Never its content."""

    code = "password_file_unreadable"
    # The operator's own path: shown whole, not shortened.
    _shown: ClassVar[frozenset[str]] = frozenset()
    field: str = "password_file"
    url: str = ""
    reason: str = ""


class PasswordFileEmptyError(PasswordFileError):
    """The file ``value`` named by ``password_file=`` holds nothing but line breaks."""

    code = "password_file_empty"


# --- the process-wide generator (snowid.next_id) and the integrations -------------


@_data
class NotConfiguredError(GeneratorError):
    """``snowid.next_id()`` was called with no lease configured: neither
    ``snowid.configure(lease=...)`` nor the environment variable ``env``."""

    code = "default_not_configured"
    env: str = "SNOWID_LEASE"


@_data
class AlreadyConfiguredError(InvalidValueError):
    """``snowid.configure`` was given another lease URL (``value``) than the one in force
    (``current``); both without passwords."""

    code = "default_already_configured"
    _shown = frozenset({"value", "current"})
    field: str = "lease"
    current: str


@_data
class StaticIdentityInUseError(LeaseError):
    """A fixed identity (``static:``, or ``snowid generate --datacenter/--machine``) that
    another process of this host's network namespace holds: ``datacenter``, ``machine``,
    and the holder's ``pid`` when the kernel names it (else None)."""

    code = "static_identity_in_use"
    datacenter: int
    machine: int
    pid: int | None = None

    def _catalog_key(self) -> str:
        return self.code if self.pid is None else f"{self.code}.pid"


class FloatIdError(InvalidIdError):
    """An id given as a float (a JSON or JavaScript number): a float cannot hold every
    64-bit id, so the value may already be another id."""

    code = "id_float"


@_data
class BadRowError(InvalidValueError):
    """Row ``row`` (counted from 0) of a column holds ``value``, which ``error`` (the
    error that value alone gets from ``snowid.decode``, ``compose`` or ``first_id_at``)
    refuses: ``snowid.bulk`` names the first bad row of a column this way."""

    code = "bad_row"
    row: int
    error: SnowIdError

    def message(self, lang: str = "en") -> str:
        from snowid.i18n import translate

        return translate(self.code, lang, row=self.row, reason=self.error.message(lang))


@_data
class ExtraMissingError(SnowIdError, ImportError):
    """``feature`` needs ``package``, installed by ``pip install 'snowid[extra]'``."""

    code = "extra_missing"
    feature: str
    package: str
    extra: str


@dataclass_transform(kw_only_default=True, eq_default=False)
def error_data(cls: _E) -> _E:
    """What ``_data`` does, for the error classes that live with their layer."""
    return _data(cls)


def name_errors_module(namespace: dict[str, Any]) -> None:
    """Make every error class defined in a module (its ``globals()``) report
    ``snowid.errors``, the one module users import them from, as its module: reprs,
    tracebacks and pickles name that path however the class was reached. Called at the
    end of each module defining errors (after the dataclass decorator has read the
    class's annotations in its own module)."""
    for value in namespace.values():
        if (
            isinstance(value, type)
            and issubclass(value, SnowIdError)
            and value.__module__ == namespace["__name__"]
        ):
            value.__module__ = "snowid.errors"


display_value = _display
"""A value as snowid's messages show it (shortened, with nothing invisible in it)."""


class detached(contextlib.ContextDecorator):  # noqa: N801 - used like a function
    """A snowid exception leaving this block (or decorated function) has no chain.

    Another library's exception may hold a secret where tooling looks: psycopg's error
    keeps its connection object (whose repr shows ``password=``), a parse error keeps
    the text it could not read (``u:SECRET@1``). Python links every exception raised
    while another is handled to it (``__context__``; ``raise ... from None`` only hides
    it from the traceback print), so error reporters, debuggers and
    ``logging.exception`` would find the secret there. Wrap each function that
    translates a foreign exception, and the chain ends at snowid's error; what is kept
    instead is ``driver_class``/``driver_message`` (``snowid.lease.driver_detail``).
    Only snowid's own exceptions are cut; anything else is left untouched.
    """

    def __enter__(self) -> detached:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> Literal[False]:
        del kind, traceback
        if error is not None and type(error).__module__.partition(".")[0] == "snowid":
            error.__cause__ = None
            error.__context__ = None
            error.__suppress_context__ = False  # nothing is left to suppress
        return False  # never swallows: the exception goes on as it is


name_errors_module(globals())  # reprs and pickles say snowid.errors.X
