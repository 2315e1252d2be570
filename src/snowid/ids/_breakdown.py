"""The decoded id, one model for every layout, and the views computed from it.

``Decoded`` is what reading a number in a layout gives: the layout, the number, its time
(Unix ms), its fields by name and its warnings. Everything else is a view of that model,
computed when asked and never stored beside it: the bit ``segments``, the worked formula
(``steps``: the delta, each field shifted into place, their sum; for any layout), and for
a Twitter-shaped layout the ``Breakdown`` the CLI and the HTTP API print for a Twitter id
(its parts, its worker, its JSON object). The shifts are ``Layout``'s; this module only
names what they give.
"""

from __future__ import annotations

import datetime as _dt
from dataclasses import dataclass, field

from snowid._isotime import LAST_DATETIME_MS, iso_ms, iso_utc, utc_datetime
from snowid.ids._encoding import encode
from snowid.ids._estimate import Estimate, estimate_for, estimate_words
from snowid.ids._layout import Layout, Parts, TwitterLayout
from snowid.ids._snowid import SnowId

__all__ = ["Breakdown", "Decoded", "Segment", "Step", "segments", "steps"]


@dataclass(frozen=True, slots=True)
class Segment:
    """One block of the 64 bits: ``bits`` is its slice of the binary string."""

    name: str
    high_bit: int
    low_bit: int
    width: int
    value: int
    bits: str

    def as_dict(self) -> dict[str, object]:
        """The JSON object of one segment (in ``segments`` of the decode answers)."""
        return {
            "name": self.name,
            "high_bit": self.high_bit,
            "low_bit": self.low_bit,
            "width": self.width,
            "value": self.value,
            "bits": self.bits,
        }


def segments(layout: Layout, value: int, raw: tuple[int, ...]) -> tuple[Segment, ...]:
    """``value``'s bits in ``layout`` as blocks, most significant first: the sign bit (when
    the layout has one; its value is 0), then each field with its raw value (``raw``, as
    ``Layout.split`` gives them: the time as ticks since the epoch) and its slice of the
    binary string."""
    binary = layout.bits(value)
    top = layout.total_bits - 1
    # By position, not by name: a custom field may itself be called "sign".
    values = ((0,) if layout.signed else ()) + raw
    return tuple(
        Segment(
            name=name,
            high_bit=high,
            low_bit=low,
            width=high - low + 1,
            value=field_value,
            bits=binary[top - high : top - low + 1],
        )
        for (name, high, low), field_value in zip(layout.spans(), values, strict=True)
    )


@dataclass(frozen=True, slots=True)
class Step:
    """One line of the formula: ``key`` names its label in the catalogs ("step.<key>")."""

    key: str
    expression: str
    result: int


def steps(layout: Layout, value: int, raw: tuple[int, ...]) -> tuple[Step, ...]:
    """The worked formula that builds ``value`` in ``layout`` from its fields' ``raw``
    values, as the seed works it: the delta (the time minus the epoch, in the layout's
    ticks), each field shifted into place (keyed by the field's name), then their sum (an
    OR: no two shifted fields overlap)."""
    timestamp = layout.epoch_ms + raw[0] * layout.unit_ms
    delta = f"{timestamp} − {layout.epoch_ms}"
    if layout.unit_ms != 1:
        delta = f"({delta}) / {layout.unit_ms}"
    shifted = tuple(
        Step(name, f"{raw_value} << {shift}" if shift else f"{raw_value}", result)
        for name, raw_value, shift, result in layout.shifted_fields(raw)
    )
    return (
        Step("delta", delta, raw[0]),
        *shifted,
        Step("combine", " + ".join(str(step.result) for step in shifted), value),
    )


@dataclass(frozen=True, slots=True)
class Decoded:
    """One number read in one layout: its time (Unix ms), its fields and any warnings.

    ``fields`` holds every field but the time, most significant first. ``warnings`` are
    codes (``"before_first_snowflake"``, ``"in_the_future"``); ``messages(lang)`` words them.
    A tweet id from before Snowflake also has an ``estimate`` of when it was posted.
    """

    layout: str
    id: int
    timestamp: int
    fields: dict[str, int] = field(hash=False)
    warnings: tuple[str, ...]
    spec: Layout = field(repr=False)
    """The Layout itself (``layout`` is its name)."""
    stored: int | None = None
    """The negative ``bigint`` it was read from (Instagram's stored form), else None."""

    @property
    def datetime(self) -> _dt.datetime | None:
        """The time as an aware UTC datetime; None past year 9999 (a Mastodon id can be)."""
        if self.timestamp > LAST_DATETIME_MS:
            return None
        return utc_datetime(self.timestamp)

    @property
    def iso_utc(self) -> str | None:
        """ISO 8601 in UTC with milliseconds and ``Z``; None past year 9999."""
        return iso_ms(self.timestamp)

    @property
    def unix_seconds(self) -> int:
        """The time in whole Unix seconds (rounded down): what many tools and sites take."""
        return self.timestamp // 1000

    @property
    def discord_markup(self) -> str:
        """Discord's timestamp markup of the time, ``<t:SECONDS:F>``: a Discord message
        containing it shows the date and time in each reader's own zone and language."""
        return f"<t:{self.unix_seconds}:F>"

    @property
    def raw(self) -> tuple[int, ...]:
        """Every field's raw value, the time first as ticks since the epoch: what
        ``Layout.split`` gave when the id was decoded (the views start from these, so an id
        is split once)."""
        return (self.spec.ticks(self.timestamp), *self.fields.values())

    @property
    def segments(self) -> tuple[Segment, ...]:
        """The id's bits in blocks, most significant first (sign, then each field)."""
        return segments(self.spec, self.id, self.raw)

    @property
    def steps(self) -> tuple[Step, ...]:
        """The worked formula that builds the id from its fields (``steps``)."""
        return steps(self.spec, self.id, self.raw)

    @property
    def estimate(self) -> Estimate | None:
        """When the tweet with this id was posted, estimated from tweets whose id and time are
        published, when the id may be a tweet's from before Snowflake (the
        ``before_first_snowflake`` warning); None for every other number."""
        return estimate_for(self.spec, self.id)

    @property
    def breakdown(self) -> Breakdown | None:
        """The Twitter view of this id (parts, worker, the compose answer's JSON) when its
        layout is Twitter-shaped (``TWITTER``); None for every other layout."""
        return Breakdown(self) if isinstance(self.spec, TwitterLayout) else None

    def messages(self, lang: str = "en") -> list[dict[str, str]]:
        """Each warning as ``{"code", "message"}`` in ``lang``."""
        from snowid.i18n import translate

        shown = self.iso_utc or f"{self.timestamp} ms"
        params = {"datetime": shown, "id": self.id, "stored": self.stored}
        return [
            {"code": code, "message": translate(f"warning.{code}", lang, **params)}
            for code in self.warnings
        ]

    def as_dict(self, lang: str = "en") -> dict[str, object]:
        """The JSON object of the HTTP API and ``snowid decode --json``: 64-bit values as
        decimal strings; the time as Unix ms (``timestamp``), ISO 8601 (``datetime``), Unix
        seconds and Discord's markup; for a Twitter id, also every key of its
        ``Breakdown.as_dict()``. An id from before Snowflake leads with its ``estimate``
        (with its headline and words)."""
        lead: dict[str, object] = {}
        estimate = self.estimate
        if estimate is not None:
            headline, message = estimate_words(estimate, lang)
            lead["estimate"] = {"headline": headline, "message": message, **estimate.as_dict()}
        data: dict[str, object] = {
            "id": str(self.id),
            "layout": self.layout,
            "timestamp": self.timestamp,
            "datetime": self.iso_utc,
            "unix_seconds": self.unix_seconds,
            "discord_markup": self.discord_markup,
            "fields": dict(self.fields),
            "warnings": self.messages(lang),
        }
        if self.stored is not None:
            data["stored"] = str(self.stored)
        view = self.breakdown
        if view is not None:
            return {**lead, **view.as_dict(), **data}
        data["hex"] = encode(self.id, "hex")
        data["binary"] = self.spec.bits(self.id)
        data["segments"] = [segment.as_dict() for segment in self.segments]
        return {**lead, **data}


@dataclass(frozen=True, slots=True)
class Breakdown:
    """A Twitter id taken apart, as a view of its ``Decoded``: the four parts, the worker,
    the 64 bits as segments and the formula step by step. It holds nothing but the model;
    ``snowid.breakdown(sid)`` makes one, ``decoded.breakdown`` gives one."""

    decoded: Decoded

    @property
    def id(self) -> SnowId:
        return SnowId(self.decoded.id)

    @property
    def parts(self) -> Parts:
        """timestamp (Unix ms), datacenter, machine, sequence."""
        return Parts(self.decoded.timestamp, *self.decoded.fields.values())

    @property
    def worker(self) -> int:
        """datacenter << 5 | machine, 0..1023."""
        spec = self.decoded.spec
        assert isinstance(spec, TwitterLayout)  # only Decoded.breakdown makes one
        return spec.worker_of(self.decoded.id)

    @property
    def segments(self) -> tuple[Segment, ...]:
        return self.decoded.segments

    @property
    def steps(self) -> tuple[Step, ...]:
        return self.decoded.steps

    @property
    def datetime(self) -> _dt.datetime:
        """The timestamp as an aware UTC datetime."""
        return utc_datetime(self.decoded.timestamp)

    @property
    def iso_utc(self) -> str:
        """ISO 8601 in UTC with milliseconds and ``Z``: ``2010-11-04T01:42:55.657Z``."""
        return iso_utc(self.datetime)

    def as_dict(self) -> dict[str, object]:
        """The JSON object the CLI's ``compose --json`` prints and ``GET /api/id`` returns.

        Every value that can pass 2**53 (the id, each step's result) is a decimal string:
        JavaScript's ``JSON.parse`` rounds larger numbers. The fields stay numbers (the
        41-bit delta and the Unix milliseconds are far below 2**53)."""
        parts = self.parts
        number = self.decoded.id
        return {
            "id": str(number),
            "timestamp": parts.timestamp,
            "datacenter": parts.datacenter,
            "machine": parts.machine,
            "sequence": parts.sequence,
            "worker": self.worker,
            "datetime": self.iso_utc,
            "hex": encode(number, "hex"),
            "binary": self.decoded.spec.bits(number),
            "segments": [segment.as_dict() for segment in self.segments],
            "steps": [
                {"key": s.key, "expression": s.expression, "result": str(s.result)}
                for s in self.steps
            ],
        }
