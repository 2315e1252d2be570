"""The system check of ``settings.SNOWID_LEASE``: a bad lease is found by ``manage.py
check`` (and so by ``runserver`` and ``migrate``), not by the first save of a row."""

from __future__ import annotations

from typing import Any

from django.core import checks

from snowid._exceptions import SnowIdError
from snowid.ids import wrong_type

__all__ = ["BAD_LEASE", "SETTING", "check_lease_setting"]

SETTING = "SNOWID_LEASE"
"""The Django setting naming the process-wide generator's lease (as the environment variable)."""

BAD_LEASE = "snowid.E001"


@checks.register()  # type: ignore[untyped-decorator]  # Django has no types
def check_lease_setting(app_configs: Any = None, **kwargs: Any) -> list[checks.CheckMessage]:
    """Read ``SNOWID_LEASE`` as ``snowid.configure`` would (every option, no I/O)."""
    del app_configs, kwargs
    from django.conf import settings

    from snowid.integrations.django._forms import django_lang
    from snowid.lease import open_lease

    lease = getattr(settings, SETTING, None)
    if lease is None or lease == "":
        return []
    try:
        if not isinstance(lease, str):
            raise wrong_type(SETTING, lease, f"settings.{SETTING}", "str")
        open_lease(lease.strip()).close()
    except SnowIdError as error:
        text = error.message(django_lang())
        return [checks.Error(text, obj=f"settings.{SETTING}", id=BAD_LEASE)]
    return []
