"""The public API: one sorted, complete __all__, and a core that needs no third party."""

from __future__ import annotations

import pickle
import subprocess
import sys
import textwrap

import snowid
from snowid import errors


def test_all_is_sorted_and_unique() -> None:
    assert list(snowid.__all__) == sorted(snowid.__all__, key=lambda n: (not n.isupper(), n))
    assert len(set(snowid.__all__)) == len(snowid.__all__)


def test_all_is_complete() -> None:
    """Every public name defined in snowid/__init__ is listed, and every listed name exists."""
    public = {
        name
        for name, value in vars(snowid).items()
        if not name.startswith("_") and getattr(value, "__module__", "").startswith("snowid")
    }
    assert public - {"errors", "i18n", "lease", "testing", "cli", "web"} <= set(snowid.__all__)
    for name in snowid.__all__:
        assert hasattr(snowid, name), name


def test_errors_all_lists_every_error_class() -> None:
    classes = {
        name
        for name, value in vars(errors).items()
        if isinstance(value, type) and issubclass(value, errors.SnowIdError)
    }
    assert classes <= set(errors.__all__)
    assert set(errors.__all__) - classes == {"LEASE_URL_REASONS", "LeaseUrlReason"}
    assert errors.__all__ == sorted(errors.__all__, key=lambda n: (not n.isupper(), n))


def test_import_snowid_loads_no_third_party_module() -> None:
    code = textwrap.dedent(
        """
        import sys
        before = set(sys.modules)
        import snowid, snowid.cli, snowid.errors, snowid.i18n
        snowid.SnowId(4194439168).parts
        str(snowid.errors.OutOfRangeError(field="machine", value=32, min=0, max=31))
        stdlib = sys.stdlib_module_names
        extra = sorted(
            name for name in set(sys.modules) - before
            if name.split(".")[0] not in stdlib and name.split(".")[0] != "snowid"
        )
        print(",".join(extra))
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    assert done.stdout.strip() == ""


def test_errors_pickle_with_their_data() -> None:
    error = errors.OutOfRangeError(field="machine", value=32, min=0, max=31)
    copy = pickle.loads(pickle.dumps(error))
    assert type(copy) is errors.OutOfRangeError
    assert (copy.field, copy.value, copy.min, copy.max) == ("machine", 32, 0, 31)
    assert str(copy) == str(error)


def test_errors_subclass_the_matching_builtins() -> None:
    assert issubclass(errors.OutOfRangeError, ValueError)
    assert issubclass(errors.NotAnIntegerError, TypeError)
    assert issubclass(errors.ClockMovedBackwards, RuntimeError)
    assert issubclass(errors.StoreUnreachableError, ConnectionError)
