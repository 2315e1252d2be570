"""Web page texts (en): the page and the service."""

from __future__ import annotations

MESSAGES: dict[str, str] = {
    # --- page frame ------------------------------------------------------------------
    "web.title": "Snowflake ID generator and decoder",
    "web.description": (
        "Build a Twitter Snowflake id from a timestamp, a datacenter id, a machine id and a"
        " sequence, or decode one, and see how its 64 bits are filled."
    ),
    "web.skip": "Skip to the tool",
    "web.nav_label": "Tools",
    "web.nav.compose": "Generate",
    "web.nav.decode": "Decode",
    "web.lang_label": "Language",
    "web.lang.en": "English",
    "web.lang.vi": "Tiếng Việt",
    "web.footer": "The JSON API of this service is described by its OpenAPI 3.1 document:",
    "web.not_found": "There is no page at this address.",
    "web.back_home": "Back to the generator",
    # --- compose form ----------------------------------------------------------------
    "web.compose.heading": "Generate a Snowflake ID",
    "web.compose.intro": (
        "Enter the four fields. The id and its 64 bits update as you type;"
        " without JavaScript, press Generate."
    ),
    "web.label.timestamp": "Timestamp (Unix ms)",
    "web.hint.timestamp": "From 1288834974657 to 3487858230208. Leave blank for now.",
    "web.label.datacenter": "Datacenter id",
    "web.hint.datacenter": "0 to 31 (5 bits)",
    "web.label.machine": "Machine id",
    "web.hint.machine": "0 to 31 (5 bits)",
    "web.label.sequence": "Sequence",
    "web.hint.sequence": "0 to 4095 (12 bits)",
    "web.button.now": "Now",
    "web.button.now_label": "Set the timestamp to the current time",
    "web.button.compose": "Generate",
    "web.button.decode": "Decode",
    "web.button.copy": "Copy",
    "web.button.copy_label": "Copy the id in decimal",
    "web.copied": "Copied",
    "web.errors_summary": "Correct the highlighted fields: {count} invalid.",
    "web.used_now": "The timestamp was blank, so the current time was used: {timestamp}.",
    # --- decode form -----------------------------------------------------------------
    "web.decode.heading": "Decode a Snowflake ID",
    "web.decode.intro": (
        "Paste an id in decimal to see its timestamp, datacenter id, machine id and sequence."
    ),
    "web.label.id": "Snowflake ID",
    "web.hint.id": "A whole number from 0 to 9223372036854775807",
    # --- the result ------------------------------------------------------------------
    "web.result.heading": "Result",
    "web.result.decimal": "ID (decimal)",
    "web.result.hex": "Hexadecimal",
    "web.result.utc": "Time (UTC)",
    "web.result.local": "Time (local)",
    "web.result.local_zone": "server time zone {zone}",
    "web.result.fields": "Fields",
    "web.result.worker": "Worker (datacenter × 32 + machine)",
    "web.result.bits": "The 64 bits",
    "web.result.bits_intro": "Most significant bit first; each block is one field.",
    "web.block.width": "{width} bits",
    "web.block.width_one": "1 bit",
    "web.block.span": "bits {high}–{low}",
    "web.block.span_one": "bit {high}",
    "web.block.value": "value {value}",
    "web.block.value_delta": "value {value} (ms since the epoch)",
    "web.result.formula": "The formula, worked through",
    "web.result.open_decoder": "Open in the decoder",
    "web.result.open_generator": "Open in the generator",
    # --- explanation -----------------------------------------------------------------
    "web.explain.heading": "How a Snowflake ID is built",
    "web.explain.structure_h": "Structure",
    "web.explain.structure": (
        "A Snowflake ID is a 64-bit whole number. Read from the most significant bit down, it"
        " holds a sign bit that is always 0, so the id is always positive; 41 bits of time,"
        " counted in milliseconds since the Twitter epoch; 5 bits of datacenter id; 5 bits of"
        " machine id; and a 12-bit sequence that tells apart the ids one machine makes within"
        " the same millisecond. Because time sits in the highest bits, a later id is a larger"
        " number."
    ),
    "web.explain.formula_h": "Formula",
    "web.explain.formula": (
        "With t the timestamp in milliseconds, c the datacenter id, m the machine id and s the"
        " sequence: first d = t − 1288834974657, then I = (d << 22) | (c << 17) | (m << 12) | s."
        " Shifting left by 22 bits multiplies by 2²² = 4,194,304. The shifts follow from the"
        " widths: the sequence takes 12 bits, the machine id 5 more (17), the datacenter id 5"
        " more (22). No two shifted fields overlap, so the OR gives the same result as a sum."
    ),
    "web.explain.limits_h": "Limits",
    "web.explain.limit_epoch": (
        "Fixed epoch: time is counted from 2010-11-04 01:42:54.657 UTC (1288834974657 ms)."
        " Earlier dates cannot be encoded, and this tool does not let you change the epoch."
    ),
    "web.explain.limit_end": (
        "Year 2080: 41 bits of milliseconds last about 69.7 years. The last timestamp that"
        " fits is 3487858230208, on 2080-07-10 17:30:30.208 UTC."
    ),
    "web.explain.limit_sequence": (
        "4,096 per millisecond: one machine can make at most 4,096 different ids (sequence 0"
        " to 4095) in a millisecond; a real generator waits for the next millisecond after"
        " that."
    ),
    "web.explain.limit_identities": (
        "1,024 identities: 32 datacenter ids × 32 machine ids. Two machines running with the"
        " same pair at the same time can produce the same id."
    ),
    "web.explain.limit_order": (
        "Ordering across machines: ids sort by time only as well as the machines' clocks"
        " agree. Ids from one machine are in order; ids from two machines whose clocks differ"
        " may not be."
    ),
    "web.explain.stateless": (
        "This page keeps no state: it computes one id from whatever you enter. The service"
        " behind it also issues fresh ids (POST /api/ids), each process under its own"
        " leased identity."
    ),
    # --- the service -----------------------------------------------------------------
    "web.error.not_found": "No route {method} {path}",
    "web.error.method_not_allowed": "Method {method} is not allowed on {path}",
    "web.error.internal": "Internal server error",
    "web.error.unavailable": (
        "Ids cannot be issued right now; try again shortly (the server log says why)"
    ),
    "web.error.not_ready": "No worker identity is held yet: {reason}",
    "web.error.auth_required": (
        "This endpoint needs a bearer token: send the header Authorization: Bearer <token>"
    ),
    "web.error.auth_invalid": "The bearer token is not accepted",
    "web.serve.started": (
        "snowid serve: process {pid} on http://{host}:{port} holds datacenter {datacenter},"
        " machine {machine} (lease {lease}, ceiling {ceiling})"
    ),
    "web.serve.no_identity": (
        "snowid serve: process {pid} on http://{host}:{port} holds no identity yet (lease"
        " {lease}): {reason}"
    ),
    "web.serve.bad_host": (
        "not a valid host name: it is made of labels of 1 to 63 characters separated by dots"
    ),
    "web.auth.reread": "snowid serve: process {pid} re-read {path}: {count} token(s)",
    "web.auth.unusable": (
        "snowid serve: process {pid}: {message}; every token is refused until it is fixed"
    ),
}
