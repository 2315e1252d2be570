"""The CLI and the web service are clients of the library: they import its public names.

A module or name whose dotted path has a part starting with one ``_`` (``snowid.ids._parse``,
``snowid.lease._url``, ``snowid.web._forms`` from the CLI, ``from snowid.lease import _x``)
is private to the package that holds it. ``snowid.cli`` and ``snowid.web`` may use their
own privates and nobody else's: every import is read from the source (also those inside
functions and ``if TYPE_CHECKING:``), so a late or type-only import cannot slip through.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import snowid

SOURCE = Path(snowid.__file__).parent
CLIENTS = ("cli", "web")


def _imports(path: Path, package: str) -> list[tuple[int, str]]:
    """(line, dotted path) of everything ``path`` imports, relative imports resolved."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                parts = parts[: len(parts) - node.level + 1]
                base = ".".join([*parts, base] if base else parts)
            found += [(node.lineno, f"{base}.{alias.name}") for alias in node.names]
    return found


def _private_outside(dotted: str, own: str) -> bool:
    """Whether ``dotted`` is a snowid private that is not under the package ``own``."""
    if dotted.split(".", maxsplit=1)[0] != "snowid" or dotted.startswith(f"{own}."):
        return False
    parts = dotted.split(".")
    return any(p.startswith("_") and not (p.startswith("__") and p.endswith("__")) for p in parts)


def test_the_scan_sees_private_imports_in_every_form() -> None:
    """The rule itself: what it must flag and what it must let through."""
    own = "snowid.cli"
    assert _private_outside("snowid.ids._parse.to_int", own)
    assert _private_outside("snowid.lease._url.LeaseUrl", own)
    assert _private_outside("snowid.lease._protocol", own)
    assert _private_outside("snowid.web._settings.Settings", own)
    assert _private_outside("snowid.lease._x", own)  # from snowid.lease import _x
    assert not _private_outside("snowid.cli._common.add_lang_option", own)
    assert not _private_outside("snowid.lease.open_lease", own)
    assert not _private_outside("snowid.__version__", own)
    assert not _private_outside("argparse._SubParsersAction", own)


def test_relative_imports_are_resolved(tmp_path: Path) -> None:
    module = tmp_path / "m.py"
    module.write_text("from .._parse import to_int\nfrom . import _common\n", encoding="utf-8")
    assert _imports(module, "snowid.cli") == [
        (1, "snowid._parse.to_int"),
        (2, "snowid.cli._common"),
    ]


@pytest.mark.parametrize("client", CLIENTS)
def test_cli_and_web_import_no_other_package_s_privates(client: str) -> None:
    """Issue 9 item 5: ``snowid.cli`` and ``snowid.web`` import only public names of the
    core, of ``snowid.lease`` and of each other."""
    own = f"snowid.{client}"
    found = []
    for path in sorted((SOURCE / client).rglob("*.py")):
        relative = path.relative_to(SOURCE.parent).with_suffix("")
        package = ".".join(relative.parts[:-1])
        for line, dotted in _imports(path, package):
            if _private_outside(dotted, own):
                found.append(f"{path.relative_to(SOURCE)}:{line} {dotted}")
    assert found == []
