"""The public API: one sorted, complete __all__, and a core that needs no third party."""

from __future__ import annotations

import importlib
import pickle
import subprocess
import sys
import textwrap
import typing

import pytest

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
    # dir(), not vars(): the layers' errors are loaded on first use (errors._LAZY)
    classes = {
        name
        for name in dir(errors)
        if isinstance(value := getattr(errors, name), type)
        and issubclass(value, errors.SnowIdError)
    }
    assert classes <= set(errors.__all__)
    assert set(errors.__all__) - classes == {
        "LEASE_URL_REASONS",
        "LeaseUrlReason",
        "LAYOUT_REASONS",
        "LayoutReason",
        "EncodingReason",
    }
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


PUBLIC_CLASSES = [
    value for name in snowid.__all__ if isinstance(value := getattr(snowid, name), type)
]


def test_public_classes_name_the_public_path() -> None:
    """Reprs, docs and pickles say snowid.SnowId, not snowid.ids._snowid.SnowId."""
    assert len(PUBLIC_CLASSES) >= 12
    for cls in PUBLIC_CLASSES:
        assert cls.__module__ == "snowid", cls
        assert getattr(snowid, cls.__qualname__) is cls
    assert repr(snowid.SnowId) == "<class 'snowid.SnowId'>"


def test_public_classes_pickle_under_the_public_path() -> None:
    values = [
        snowid.SnowId(4194439168),
        snowid.breakdown(snowid.SnowId(4194439168)),
        snowid.TWITTER,
        snowid.Parts(1288834975657, 1, 1, 0),
        snowid.Grant(datacenter=1, machine=1, start_ms=0, ceiling_ms=5),
        snowid.SystemClock(),
    ]
    for value in values:
        data = pickle.dumps(value)
        assert b"snowid._" not in data  # no private module named in the pickle
        copy = pickle.loads(data)
        assert type(copy) is type(value)
        if not isinstance(value, snowid.SystemClock):
            assert copy == value


def test_type_hints_of_public_classes_resolve_in_the_public_module() -> None:
    """With __module__ = "snowid", class annotations are looked up in snowid's namespace."""
    for cls in PUBLIC_CLASSES:
        typing.get_type_hints(cls)


def test_fixed_ceiling_is_a_test_helper_not_public_api() -> None:
    from snowid.testing import FixedCeiling

    assert not hasattr(snowid, "FixedCeiling")
    assert FixedCeiling.__module__ == "snowid.testing"


def test_dead_members_are_gone() -> None:
    from snowid.cli import _common

    assert not hasattr(snowid.Layout, "id_at")
    assert not hasattr(snowid.SnowId, "__index__")
    assert not hasattr(_common, "SubParsers")


DOCUMENTED_PATHS = [
    "snowid",
    "snowid.client",
    "snowid.errors",
    "snowid.lease",
    "snowid.sqlalchemy",
    "snowid.django",
    "snowid.rest_framework",
    "snowid.dbapi",
    "snowid.testing",
    "snowid.web",
]


@pytest.mark.parametrize("path", DOCUMENTED_PATHS)
def test_every_documented_import_path_works(path: str) -> None:
    """Issue 17: the re-housing kept each documented path, each with a sorted __all__
    whose names all exist."""
    module = importlib.import_module(path)
    assert module.__all__ == sorted(module.__all__, key=lambda n: (not n.isupper(), n))
    for name in module.__all__:
        assert hasattr(module, name), f"{path}.{name}"


@pytest.mark.parametrize("path", ["snowid.fields", "snowid.layouts", "snowid.sql"])
def test_the_undocumented_faces_are_gone(path: str) -> None:
    """Issue 17 (CHANGELOG): these existed only so that cli/ and web/ passed the
    private-import rule; they import the layers' public names now."""
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module(path)


def test_every_error_class_names_snowid_errors_as_its_module() -> None:
    """The classes live with their layers; reprs, tracebacks and pickles still say
    snowid.errors.X, the one module users import them from."""
    for name in errors.__all__:
        value = getattr(errors, name)
        if isinstance(value, type):
            assert value.__module__ == "snowid.errors", name
            copy = pickle.loads(pickle.dumps(value))
            assert copy is value
