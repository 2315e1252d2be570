"""Errors hold data: typed attributes, a message built only when read, any int shown."""

from __future__ import annotations

import pickle
import subprocess
import sys
import textwrap
from collections.abc import Callable

import pytest

from snowid import Generator, SnowId, errors

HUGE = 10**5000  # over CPython's 4300-digit limit for str(int)


@pytest.mark.parametrize(
    ("call", "expected"),
    [
        (lambda: SnowId(HUGE), errors.IdTooLargeError),
        (lambda: SnowId(-HUGE), errors.NegativeIdError),
        (
            lambda: SnowId.from_parts(timestamp=None, datacenter=HUGE, machine=1),
            errors.OutOfRangeError,
        ),
        (
            lambda: SnowId.from_parts(timestamp=HUGE, datacenter=1, machine=1),
            errors.OutOfRangeError,
        ),
        (lambda: Generator(datacenter=HUGE, machine=1), errors.OutOfRangeError),
        (lambda: Generator(datacenter=1, machine=1, max_wait_ms=HUGE), errors.OutOfRangeError),
    ],
    ids=["id", "negative-id", "from_parts-datacenter", "from_parts-timestamp", "generator", "wait"],
)
def test_integers_over_4300_digits_get_the_specific_error(
    call: Callable[[], object], expected: type[errors.InvalidValueError]
) -> None:
    """Issue 8 item 5: not CPython's ValueError from str(int) inside the message."""
    with pytest.raises(expected) as caught:
        call()
    error = caught.value
    assert error.value in (HUGE, -HUGE)
    for text in (str(error), error.message("vi"), repr(error)):
        assert "100000000000…00000 (5001 digits)" in text
        assert len(text) < 300


def test_an_int_shown_by_arithmetic_matches_the_one_shown_by_str() -> None:
    value = 123456789012345 * 10**4990 + 98765
    shown = str(errors.OutOfRangeError(field="machine", value=value, min=0, max=31))
    assert "123456789012…98765 (5005 digits)" in shown


def test_raising_loads_no_catalog_reading_the_message_does() -> None:
    code = textwrap.dedent(
        """
        import sys
        import snowid
        from snowid.lease import open_lease
        for bad in (lambda: snowid.SnowId(-1), lambda: open_lease("ftp://x")):
            try:
                bad()
            except ValueError as error:
                caught = error
        print(sorted(name for name in sys.modules if name.startswith("snowid.i18n")))
        str(caught)
        print("snowid.i18n.en" in sys.modules)
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    assert done.stdout.split("\n")[:2] == ["[]", "True"]


def test_errors_hold_their_data_as_typed_attributes() -> None:
    error = errors.OutOfRangeError(field="machine", value=32, min=0, max=31)
    assert (error.field, error.value, error.min, error.max) == ("machine", 32, 0, 31)
    assert not hasattr(error, "params")
    with pytest.raises(TypeError):
        errors.OutOfRangeError(field="machine", value=32, min=0, max=31, colour="red")  # type: ignore[call-arg]


SAMPLES: list[errors.SnowIdError] = [
    errors.NotAnIntegerError(field="id", value="12abc"),
    errors.NumberTooLongError(field="id", value="9" * 50, digits=5000),
    errors.SignBitSetError(field="id", value=2**63, bit=63),
    errors.InvalidLeaseUrlError(value="file:///x?range=9", reason="worker_range", text="9", max=3),
    errors.MissingIdentityError(),
    errors.ClockMovedBackwards(step_ms=9, tolerance_ms=5),
    errors.CeilingReachedError(timestamp=3, ceiling=2, waited_ms=20),
    errors.NoFreeIdentityError(first=0, last=1, store="/tmp/x"),
    errors.StoreUnreachableError(store="postgresql://h/db", reason="timeout"),
    errors.StateDirUnusableError(value="file:///x", path="/x", reason="EACCES"),
    errors.AddressUnavailableError(host="::1", port=80, reason="in use"),
]


@pytest.mark.parametrize("error", SAMPLES, ids=lambda error: type(error).__name__)
def test_errors_pickle_with_their_data_and_message(error: errors.SnowIdError) -> None:
    copy = pickle.loads(pickle.dumps(error))
    assert type(copy) is type(error)
    assert vars(copy) == vars(error)
    assert str(copy) == str(error)
    assert "{" not in str(error)  # every placeholder filled
    assert error.message("vi") != str(error)


def test_a_lease_url_refusal_is_one_class_told_apart_by_reason() -> None:
    error = errors.InvalidLeaseUrlError(value="ftp://h", reason="unknown_scheme", scheme="ftp:")
    assert error.code == "invalid_lease_url"
    assert isinstance(error, ValueError)
    assert "the scheme ftp: is unknown" in str(error)
    assert all(reason.isidentifier() for reason in errors.LEASE_URL_REASONS)


@pytest.mark.parametrize(
    ("value", "milliseconds"),
    [
        (1288834975, 1288834975000),  # the seed's example, typed in seconds
        (1700000000, 1700000000000),
        (3487858230, 3487858230000),  # the last second that fits
        (1000000000, 1000000000000),  # 10 digits: looks like seconds though before the epoch
    ],
)
def test_a_timestamp_that_looks_like_seconds_gets_the_milliseconds_in_its_message(
    value: int, milliseconds: int
) -> None:
    """Issue 10 item 3: the hint is part of the error's message, in both languages."""
    with pytest.raises(errors.TimestampBeforeEpochError) as caught:
        SnowId.from_parts(timestamp=value, datacenter=1, machine=1)
    error = caught.value
    assert error.code == "timestamp_before_epoch"  # the API's code does not change
    assert error.as_milliseconds == milliseconds
    assert str(error).endswith(f"this looks like seconds; in milliseconds it is {milliseconds}")
    assert error.message("vi").endswith(
        f"giá trị này có vẻ tính bằng giây; đổi ra mili giây là {milliseconds}"
    )
    assert pickle.loads(pickle.dumps(error)).message("en") == str(error)


@pytest.mark.parametrize("value", [0, 5, 999999999, 12888349746, 1288834974656])
def test_a_timestamp_that_cannot_be_seconds_gets_no_seconds_hint(value: int) -> None:
    with pytest.raises(errors.TimestampBeforeEpochError) as caught:
        SnowId.from_parts(timestamp=value, datacenter=1, machine=1)
    assert caught.value.as_milliseconds is None
    assert "seconds" not in str(caught.value)
    assert "giây" not in caught.value.message("vi")
