"""What the browser tests share about the devices they open: a phone's screen, and one page
of a context that is closed after the test, pass or fail."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

# A 390×844 phone at twice the density, touch and mobile layout (an iPhone 12 to 15's CSS size).
PHONE: dict[str, Any] = {
    "viewport": {"width": 390, "height": 844},
    "device_scale_factor": 2,
    "is_mobile": True,
    "has_touch": True,
}


def one_page(context: Any) -> Iterator[Any]:
    """A new page of ``context`` for one test (a fixture's body: ``yield from``)."""
    page = context.new_page()
    try:
        yield page
    finally:
        page.close()
