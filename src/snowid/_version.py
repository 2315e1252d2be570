"""The package version: written only here (pyproject.toml reads it, via hatch)."""

__version__ = "0.1.0"
