"""The breakdown as data: the seed's worked example, step by step, and the JSON object."""

from __future__ import annotations

import ast
import dataclasses
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

import snowid
from snowid import DISCORD, LAYOUTS, SONYFLAKE, Breakdown, Layout, SnowId, breakdown, decode


def test_the_seed_worked_example_steps() -> None:
    steps = breakdown(SnowId(4194439168)).steps
    assert [(s.key, s.expression, s.result) for s in steps] == [
        ("delta", "1288834975657 − 1288834974657", 1000),
        ("timestamp", "1000 << 22", 4194304000),
        ("datacenter", "1 << 17", 131072),
        ("machine", "1 << 12", 4096),
        ("sequence", "0", 0),
        ("combine", "4194304000 + 131072 + 4096 + 0", 4194439168),
    ]


def test_segments_of_the_seed_example() -> None:
    segments = breakdown(SnowId(4194439168)).segments
    assert [(s.name, s.high_bit, s.low_bit, s.width, s.value) for s in segments] == [
        ("sign", 63, 63, 1, 0),
        ("timestamp", 62, 22, 41, 1000),
        ("datacenter", 21, 17, 5, 1),
        ("machine", 16, 12, 5, 1),
        ("sequence", 11, 0, 12, 0),
    ]
    assert segments[1].bits == format(1000, "041b")


@given(st.integers(0, 2**63 - 1))
def test_segments_cover_all_64_bits_in_order(value: int) -> None:
    snow = SnowId(value)
    segments = breakdown(snow).segments
    assert "".join(s.bits for s in segments) == snow.binary
    assert sum(s.width for s in segments) == 64
    for s in segments:
        assert int(s.bits, 2) == s.value
        assert len(s.bits) == s.width


@given(st.integers(0, 2**63 - 1))
def test_the_combine_step_sums_to_the_id(value: int) -> None:
    steps = breakdown(SnowId(value)).steps
    assert sum(s.result for s in steps[1:-1]) == steps[-1].result == value


def test_json_object_of_the_seed_example() -> None:
    data = breakdown(SnowId(4194439168)).as_dict()
    assert data["id"] == "4194439168"
    assert (data["timestamp"], data["datacenter"], data["machine"], data["sequence"]) == (
        1288834975657,
        1,
        1,
        0,
    )
    assert data["datetime"] == "2010-11-04T01:42:55.657Z"
    assert isinstance(data["binary"], str)
    assert len(data["binary"]) == 64
    assert isinstance(data["segments"], list)
    assert [s["name"] for s in data["segments"]] == [
        "sign",
        "timestamp",
        "datacenter",
        "machine",
        "sequence",
    ]


def test_json_datetime_of_the_last_millisecond() -> None:
    assert breakdown(SnowId(2**63 - 1)).as_dict()["datetime"] == "2080-07-10T17:30:30.208Z"


def test_the_breakdown_holds_the_decoded_fields() -> None:
    view = breakdown(SnowId(4194439168))
    assert view.parts == (1288834975657, 1, 1, 0)
    assert view.worker == 33
    assert view.iso_utc == "2010-11-04T01:42:55.657Z"
    assert view.datetime == SnowId(4194439168).datetime


def test_to_json_is_gone_breakdown_as_dict_replaces_it() -> None:
    import snowid

    assert not hasattr(snowid, "to_json")
    assert list(breakdown(SnowId(1)).as_dict()) == [
        "id",
        "timestamp",
        "datacenter",
        "machine",
        "sequence",
        "worker",
        "datetime",
        "hex",
        "binary",
        "segments",
        "steps",
    ]


LAYOUT_IDS = st.sampled_from(LAYOUTS).flatmap(
    lambda layout: st.tuples(st.just(layout), st.integers(0, layout.max_id))
)


@given(LAYOUT_IDS)
def test_the_worked_formula_is_a_view_of_the_decoded_id_in_every_layout(
    case: tuple[Layout, int],
) -> None:
    """One model: the steps are computed from the Decoded of any layout, the delta in the
    layout's ticks, one shift per field by its name, and their sum is the id."""
    layout, value = case
    decoded = decode(value, layout)
    steps = decoded.steps
    assert [s.key for s in steps] == ["delta", layout.time_field, *layout.field_names, "combine"]
    ticks = (decoded.timestamp - layout.epoch_ms) // layout.unit_ms
    assert steps[0].result == ticks == steps[1].result >> layout.shifts[0]
    assert sum(s.result for s in steps[1:-1]) == steps[-1].result == value


def test_a_layout_in_ticks_divides_the_delta_by_its_unit() -> None:
    number = snowid.compose(SONYFLAKE.epoch_ms + 10_000, SONYFLAKE)
    delta = decode(number, SONYFLAKE).steps[0]
    assert (delta.expression, delta.result) == ("(1409529610000 − 1409529600000) / 10", 1000)


def test_the_breakdown_is_the_twitter_view_of_the_decoded_id_not_a_second_model() -> None:
    """breakdown(sid) and decode(sid).breakdown are the same view, holding only the model;
    a layout that is not Twitter-shaped has no such view."""
    assert [f.name for f in dataclasses.fields(Breakdown)] == ["decoded"]
    view = decode(4194439168).breakdown
    assert view == breakdown(SnowId(4194439168))
    assert view is not None
    assert view.decoded == decode(4194439168)
    assert view.id == SnowId(4194439168)
    assert view.steps == decode(4194439168).steps
    assert decode(4194439168, DISCORD).breakdown is None


def test_web_and_cli_never_branch_on_the_twitter_layout() -> None:
    """What a decoded id offers (its ``breakdown``) decides what is shown: no adapter
    compares a layout with TWITTER or asks for a TwitterLayout."""
    root = Path(snowid.__file__).parent
    found = []
    for path in [*(root / "web").rglob("*.py"), *(root / "cli").rglob("*.py")]:
        for node in ast.walk(ast.parse(path.read_text())):
            names = set()
            if isinstance(node, ast.Compare):
                names = {n.id for n in (node.left, *node.comparators) if isinstance(n, ast.Name)}
            elif isinstance(node, ast.Call) and getattr(node.func, "id", "") == "isinstance":
                names = {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
            if names & {"TWITTER", "TwitterLayout"}:
                found.append(f"{path.relative_to(root)}:{getattr(node, 'lineno', 0)}")
    assert found == []
