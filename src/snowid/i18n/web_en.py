"""Web page texts (en): the page and the service."""

from __future__ import annotations

MESSAGES: dict[str, str] = {
    # --- page frame ------------------------------------------------------------------
    "web.title": "Snowflake ID generator: unique IDs from many machines, explained bit by bit",
    "web.description": (
        "Generate a Twitter Snowflake ID from a timestamp, a datacenter ID, a machine ID and a"
        " sequence, see how its 64 bits are filled and the formula worked through, or decode"
        " an existing ID."
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
        "Enter the four fields. The ID and its 64 bits update as you type;"
        " without JavaScript, press Generate."
    ),
    "web.label.timestamp": "Timestamp (Unix ms)",
    "web.hint.timestamp": "From 1288834974657 to 3487858230208. Leave blank for now.",
    "web.label.datacenter": "Datacenter ID",
    "web.hint.datacenter": "0 to 31 (5 bits)",
    "web.label.machine": "Machine ID",
    "web.hint.machine": "0 to 31 (5 bits)",
    "web.label.sequence": "Sequence",
    "web.hint.sequence": "0 to 4095 (12 bits). Leave blank for 0.",
    "web.button.now": "Now",
    "web.button.compose": "Generate",
    "web.button.decode": "Decode",
    "web.button.copy": "Copy",
    "web.copied": "Copied",
    "web.errors_summary": "Correct the highlighted fields: {count} invalid.",
    "web.used_now": "The timestamp was blank, so the current time was used: {timestamp}.",
    # --- decode form -----------------------------------------------------------------
    "web.decode.heading": "Decode a Snowflake ID",
    "web.decode.intro": (
        "Paste an ID in decimal or hexadecimal (0x…), or a link or mention holding one: a"
        " tweet, a Discord message, mention or emoji, a Mastodon or Instagram post. You see"
        " its time and its fields: for a Twitter ID the datacenter ID, machine ID and"
        " sequence. A link is read in its own layout; for a bare number pick the layout of"
        " Discord, Instagram, Sonyflake or Mastodon. Several IDs, one per line (up to 100),"
        " are shown as a table."
    ),
    "web.label.id": "Snowflake ID",
    "web.hint.id": (
        "A whole number, hexadecimal after 0x, or a link or mention (x.com/…/status/…,"
        " discord.com/channels/…, <@…>, instagram.com/p/…); one per line. Twitter and Sonyflake"
        " IDs go up to 9223372036854775807, Discord, Instagram and Mastodon IDs up to"
        " 18446744073709551615."
    ),
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
        " holds a sign bit that is always 0, so the ID is always positive; 41 bits of time,"
        " counted in milliseconds since the Twitter epoch; 5 bits of datacenter ID; 5 bits of"
        " machine ID; and a 12-bit sequence that tells apart the IDs one machine makes within"
        " the same millisecond. Because time sits in the highest bits, a later ID is a larger"
        " number."
    ),
    "web.explain.formula_h": "Formula",
    "web.explain.formula": (
        "With t the timestamp in milliseconds, c the datacenter ID, m the machine ID and s the"
        " sequence: first d = t − 1288834974657, then I = (d << 22) | (c << 17) | (m << 12) | s."
        " Shifting left by 22 bits multiplies by 2²² = 4,194,304. The shifts follow from the"
        " widths: the sequence takes 12 bits, the machine ID 5 more (17), the datacenter ID 5"
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
        "4,096 per millisecond: one machine can make at most 4,096 different IDs (sequence 0"
        " to 4095) in a millisecond; a real generator waits for the next millisecond after"
        " that."
    ),
    "web.explain.limit_identities": (
        "1,024 identities: 32 datacenter IDs × 32 machine IDs. Two machines running with the"
        " same pair at the same time can produce the same ID."
    ),
    "web.explain.limit_order": (
        "Ordering across machines: IDs sort by time only as well as the machines' clocks"
        " agree. IDs from one machine are in order; IDs from two machines whose clocks differ"
        " may not be."
    ),
    "web.explain.stateless": (
        "This page keeps no state: it computes one ID from whatever you enter. The service"
        " behind it also issues fresh IDs (POST /api/ids), each process under its own"
        " leased identity."
    ),
    # --- the service -----------------------------------------------------------------
    "web.error.not_found": "No route {method} {path}",
    "web.error.method_not_allowed": "Method {method} is not allowed on {path}",
    "web.error.internal": "Internal server error",
    "web.error.unavailable": (
        "Ids cannot be issued right now; try again shortly (the server log says why)"
    ),
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
    "web.serve.draining": (
        "snowid serve: process {pid} got {signal}: /readyz answers 503 from now on; the"
        " server keeps serving for {seconds} s, then stops"
    ),
    "web.serve.release_timeout": (
        "snowid serve: process {pid} did not give its identity back within {seconds} s (the"
        " lease store does not answer): it stays held until its grant runs out"
    ),
    "web.serve.release_error": (
        "snowid serve: process {pid} did not give its identity back ({error}): it stays held"
        " until its grant runs out"
    ),
    "web.serve.bad_host": (
        "not a valid host name: it is made of labels of 1 to 63 characters separated by dots"
    ),
    "web.auth.reread": "snowid serve: process {pid} re-read {path}: {count} token(s)",
    "web.auth.unusable": (
        "snowid serve: process {pid}: {message}; every token is refused until it is fixed"
    ),
    # --- the seed's other sections (issue 10) ------------------------------------------
    "web.decode.title": (
        "Snowflake ID decoder: the time and fields of Twitter, Discord, Instagram and other IDs"
    ),
    "web.decode.description": (
        "Paste one Snowflake ID or up to 100 (decimal or 0x hexadecimal) to read when each was"
        " made and which datacenter, machine and sequence it carries, bit by bit; Discord,"
        " Instagram, Sonyflake and Mastodon IDs too, with every plausible reading side by side."
    ),
    "web.about.what_h": "What is a Snowflake ID generator?",
    "web.about.what_1": (
        "A Snowflake ID generator turns a timestamp, the identity of a machine and a counter into"
        " one 64-bit number that no other machine will produce. Twitter designed the format in"
        " 2010 so that many servers could number new tweets at the same moment without asking"
        " each other whether a number was already taken."
    ),
    "web.about.what_2": (
        "The generator on this page builds such an ID from the four values you enter and shows"
        " where each one lands among the 64 bits. The decoder does the reverse: it takes an"
        " existing ID apart."
    ),
    "web.about.uses_h": "Where Snowflake IDs are used",
    "web.about.uses_1": (
        "Twitter made the format to give tweets unique IDs, roughly in time order, across"
        " thousands of database machines, with no central counter that every server would have"
        " to consult. Discord and Instagram later built similar 64-bit IDs for their messages"
        " and posts."
    ),
    "web.about.uses_2": (
        "The same idea turns up in sharded databases, in the order numbers of online shops and"
        " in the event logs of distributed applications: wherever many machines hand out IDs on"
        " their own and the IDs should still sort by roughly when they were made."
    ),
    "web.about.history_h": "History of Snowflake IDs",
    "web.about.history_1": (
        "Twitter announced Snowflake in 2010. Until then tweets were numbered by the database's"
        " auto-increment counter, and as Twitter grew that counter could not be shared across"
        " many independent database servers. The name plays on the saying that no two"
        " snowflakes are alike: no two IDs should be either."
    ),
    "web.about.history_2": (
        "Twitter published the code as open source, and other large platforms took up the"
        " design, changing details to suit them, for the same need: unique IDs that sort by"
        " time, made by many machines at once."
    ),
    "web.about.decode_more": (
        "What Snowflake IDs are for, their history and answers to common questions are on the"
        " generator's page:"
    ),
    "web.about.decode_more_link": "About Snowflake IDs",
    "web.faq.heading": "Frequently asked questions",
    "web.faq.what_q": "What is a Snowflake ID?",
    "web.faq.what_a": (
        "A 64-bit number made of a timestamp, a machine identity and a sequence number, designed"
        " so that many machines can make unique IDs without coordinating with each other."
    ),
    "web.faq.formula_q": "What is the Snowflake ID formula?",
    "web.faq.formula_a": (
        "ID = ((timestamp − epoch) << 22) | (datacenter << 17) | (machine << 12) | sequence,"
        " where the epoch is a fixed start date (1288834974657 ms, 4 November 2010) and <<"
        " shifts the bits to the left."
    ),
    "web.faq.epoch_q": "Can I change the epoch in this generator?",
    "web.faq.epoch_a": (
        "No. This tool always counts time from the fixed Twitter epoch, 4 November 2010 at"
        " 01:42:54.657 UTC; there is no field for another start date."
    ),
    "web.faq.decode_q": "Does this tool decode an existing Snowflake ID?",
    "web.faq.decode_a": (
        "Yes. Paste an ID into the decoder to see its timestamp, datacenter ID, machine ID and"
        " sequence, with the same bit-by-bit breakdown. It reads decimal or hexadecimal (0x…),"
        " and up to 100 IDs at once, one per line. Pick a layout to read the IDs of Discord,"
        " Instagram, Sonyflake or Mastodon."
    ),
    "web.faq.decode_link": "Open the decoder",
    "web.faq.rate_q": "How many Snowflake IDs can one machine generate per millisecond?",
    "web.faq.rate_a": (
        "At most 4,096: the sequence field is 12 bits wide, so it holds the values 0 to 4095."
    ),
    "web.faq.end_q": "Until what year can this generator make valid timestamps?",
    "web.faq.end_a": (
        "Until July 2080. The 41-bit timestamp field covers about 69.7 years from the 2010"
        " epoch; the last millisecond it holds is 2080-07-10 17:30:30.208 UTC, after which the"
        " value no longer fits."
    ),
    "web.refs.heading": "References",
    "web.refs.twitter": "“Announcing Snowflake”, Twitter Engineering Blog, 2010",
    "web.refs.wikipedia": "“Snowflake ID”, Wikipedia",
    # --- typing, copying and sharing (issue 10) ----------------------------------------
    "web.button.now_title": "Fill in the current time",
    "web.label.when": "Date and time",
    "web.hint.when": (
        "As 2016-04-30T11:18:25.796 (the time may be left off); fills in the millisecond"
        " timestamp, which is what counts."
    ),
    "web.error.when": (
        "Date and time {value} is not a date; write it as 2016-04-30T11:18:25.796 (year,"
        " month, day, then the time if you want one)"
    ),
    "web.label.zone": "Read the date and time as",
    "web.zone.utc": "UTC",
    "web.zone.local": "Local time",
    "web.result.binary": "Binary",
    "web.result.stale": (
        "Out of date: this is the last valid result. Correct the highlighted field to update it."
    ),
    "web.button.copy_id": "Copy the decimal ID",
    "web.button.copy_hex": "Copy the hexadecimal value",
    "web.button.copy_binary": "Copy the 64 binary digits",
    "web.button.copy_utc": "Copy the UTC time",
    "web.button.copy_link": "Copy link",
    "web.button.copy_link_label": "Copy link to this result",
    "web.announce.id": "Result: ID {id}",
    "web.announce.many": "{count} IDs decoded, {valid} valid",
    "web.step.delta_h": "Step 1 — find the delta: the timestamp minus the epoch",
    "web.step.shift_h": "Step 2 — shift each field into place",
    "web.step.combine_h": "Step 3 — combine with bitwise OR (the same as adding: no bits overlap)",
    "web.step.shift.timestamp": "the delta (timestamp)",
    "web.step.shift.datacenter": "the datacenter ID",
    "web.step.shift.machine": "the machine ID",
    "web.step.shift.sequence": "the sequence (not shifted: it takes the lowest 12 bits)",
    "web.decode.too_many": (
        "{count} IDs given; the decoder reads up to {max} at once. Split the list."
    ),
    "web.table.heading": "{count} IDs",
    "web.table.id": "ID",
    "web.table.utc": "Time (UTC)",
    "web.table.details": "Details",
    "web.table.details_label": "Details of {id}",
    "web.rel.now": "now",
    "web.rel.past.second_one": "1 second ago",
    "web.rel.past.second": "{n} seconds ago",
    "web.rel.past.minute_one": "1 minute ago",
    "web.rel.past.minute": "{n} minutes ago",
    "web.rel.past.hour_one": "1 hour ago",
    "web.rel.past.hour": "{n} hours ago",
    "web.rel.past.day_one": "1 day ago",
    "web.rel.past.day": "{n} days ago",
    "web.rel.past.month_one": "1 month ago",
    "web.rel.past.month": "{n} months ago",
    "web.rel.past.year_one": "1 year ago",
    "web.rel.past.year": "{n} years ago",
    "web.rel.future.second_one": "in 1 second",
    "web.rel.future.second": "in {n} seconds",
    "web.rel.future.minute_one": "in 1 minute",
    "web.rel.future.minute": "in {n} minutes",
    "web.rel.future.hour_one": "in 1 hour",
    "web.rel.future.hour": "in {n} hours",
    "web.rel.future.day_one": "in 1 day",
    "web.rel.future.day": "in {n} days",
    "web.rel.future.month_one": "in 1 month",
    "web.rel.future.month": "in {n} months",
    "web.rel.future.year_one": "in 1 year",
    "web.rel.future.year": "in {n} years",
    # --- every layout: the decoder's picker, readings, warnings (issue 11) ----------------
    "web.nav.range": "Time range",
    "web.label.layout": "Layout",
    "web.pasted.auto": "From the link (else Twitter)",
    "web.pasted.source": "Read as {layout}: the layout the link names.",
    "web.pasted.normalised": "Read as {value}.",
    # --- issue 25: what visitors paste and copy ------------------------------------------
    "web.pasted.compose_it": "Compose an ID at this time",
    "web.pasted.lead": (
        "The result is the {label} the link points to ({value}); the link's other IDs follow"
        " under the time."
    ),
    "web.fix.link_layout": "Read it as {layout}",
    "web.linked.intro": "The link also holds these IDs, each with its own time:",
    "web.copies.heading": "Copy the time as",
    "web.copies.unix_seconds": "Unix seconds",
    "web.copies.unix_seconds_button": "Copy the time in Unix seconds",
    "web.copies.discord": "Discord",
    "web.copies.discord_button": "Copy the time as Discord timestamp markup",
    "web.copies.iso": "ISO 8601",
    "web.copies.iso_button": "Copy the time in ISO 8601",
    "web.hint.layout": (
        "How the 64 bits are divided. Twitter is the default; the others read the IDs those"
        " systems make."
    ),
    "web.result.layout": "Layout",
    "web.layout.unknown": "Layout {value} is unknown; choose one of the list: {allowed}.",
    "web.layout.summary": "epoch {epoch} ({epoch_ms} ms), time counted in units of {unit} ms",
    "web.result.past_9999": "after the year 9999 (Unix ms {timestamp})",
    "web.result.reading": "How the fields are read, worked through",
    "web.result.why_no_generator": "Why the generator makes only Twitter IDs",
    "web.result.open_range": "See all IDs of this layout made at the same moment",
    "web.warning.label": "Warning:",
    "web.warning_short.before_first_snowflake": "older than Snowflake: may hold no time",
    "web.warning_short.in_the_future": "more than a day ahead",
    "web.announce.warnings": "Warnings: {count}, shown under the time.",
    "web.readings.intro": (
        "The number alone does not say which system made it. Read in the layouts below it"
        " also gives a time no later than tomorrow; if it did not come from {layout}, choose"
        " the one it came from."
    ),
    "web.readings.none": (
        "No other built-in layout reads this number as a time between its epoch and tomorrow."
    ),
    "web.readings.layout": "Layout",
    "web.readings.fields": "Fields",
    "web.readings.choose": "Decode",
    "web.readings.open": "Read as {layout}",
    "web.block.value_ticks": "value {value} (units of {unit} ms since the epoch)",
    "web.lstep.extract_h": (
        "Step 1 — take each field out: shift right past the fields below it (>>), then keep"
        " its own bits (& its largest value)"
    ),
    "web.lstep.time_h": "Step 2 — the time: the layout's epoch plus the time field in milliseconds",
    "web.field.timestamp": "Timestamp",
    "web.field.time": "Time",
    "web.field.datacenter": "Datacenter",
    "web.field.machine": "Machine",
    "web.field.sequence": "Sequence",
    "web.field.worker": "Worker",
    "web.field.process": "Process",
    "web.field.increment": "Increment",
    "web.field.shard": "Shard",
    # --- ids between two times (issue 11) ---------------------------------------------------
    "web.range.title": "Snowflake IDs between two times: the bounds for WHERE id BETWEEN",
    "web.range.description": (
        "Give two times in UTC and a layout (Twitter, Discord, Instagram, Sonyflake, Mastodon)"
        " to get the smallest and the largest ID made between them, ready to copy into SQL as"
        " WHERE id BETWEEN low AND high."
    ),
    "web.range.heading": "IDs made between two times",
    "web.range.intro": (
        "Choose a window, in UTC or your time zone, and a layout. The answer is the first and"
        " the last ID that could have been made in it, so that WHERE id BETWEEN low AND high"
        " selects exactly the IDs of that window; the same bounds serve as since_id and max_id"
        " in an API."
    ),
    "web.label.from": "From (UTC)",
    "web.hint.from": "Date and time in UTC, to the millisecond; included.",
    "web.label.to": "To (UTC)",
    "web.hint.to": "Included. Leave blank for now.",
    "web.button.range": "Find the IDs",
    "web.range.from_required": "Choose the start of the window (a date and time).",
    "web.range.result_heading": "The IDs of this window",
    "web.range.from_utc": "From (UTC)",
    "web.range.to_utc": "To (UTC)",
    "web.range.now": "left blank: now",
    "web.range.low": "low (first ID)",
    "web.range.high": "high (last ID)",
    "web.range.empty": (
        "No ID of this layout can have been made in that window: it ends before it starts,"
        " or lies wholly outside the times the layout holds."
    ),
    "web.range.sql_heading": "SQL",
    "web.range.sql_intro": "Both ends are included; the ID column may be called something else.",
    "web.range.before_epoch": (
        "The window starts before the {layout} epoch, where no ID exists: low is the layout's"
        " first ID."
    ),
    "web.range.after_end": (
        "The window ends after the last time {layout} IDs can hold: high is the layout's last ID."
    ),
    "web.range.ticks": (
        "{layout} counts time in ticks of {unit} ms: a start inside a tick moves up to the next"
        " one, an end inside a tick keeps that tick's IDs."
    ),
    "web.range.signed": (
        "{layout} IDs from {wrap} on use bit 63, so a signed 64-bit column (PostgreSQL"
        " bigint, as Instagram's next_id() fills it; SQLite INTEGER) keeps them as negative"
        " numbers: the SQL is written for such a column, with two ranges when the window"
        " crosses that time. In a column of unsigned 64-bit integers (MySQL BIGINT UNSIGNED,"
        " DuckDB UBIGINT) use BETWEEN low AND high."
    ),
    "web.range.decode_low": "Decode low",
    "web.range.decode_high": "Decode high",
    "web.range.api": "The same from the JSON API",
    "web.range.how_h": "How the bounds are found",
    "web.range.how_1": (
        "Time fills the highest bits of a Snowflake ID, so IDs sort by when they were made. The"
        " first ID of a millisecond has every bit below the time at 0, the last one has them all"
        " at 1. low is the first ID of the window's first millisecond and high the last ID of"
        " its last millisecond: both ends are included, and no ID made outside the window falls"
        " between them."
    ),
    "web.range.how_2": (
        "snowid generates only Twitter-layout IDs. The other layouts are here to query IDs that"
        " other systems made, to pick test data and to check a migration."
    ),
    "web.button.copy_low": "Copy low",
    "web.button.copy_high": "Copy high",
    "web.button.copy_sql": "Copy the SQL",
    "web.announce.range": "low {low}, high {high}",
    "web.announce.range_empty": "No ID in that window",
    "web.faq.layouts_q": (
        "Can this tool generate IDs in other layouts, such as Discord's or Instagram's?"
    ),
    "web.faq.layouts_a": (
        "No. Generating stays Twitter-only, with the fixed Twitter epoch. The other layouts"
        " the decoder knows (Discord, Instagram, Sonyflake, Sonyflake v2 and Mastodon) are for reading IDs that already exist, for finding the IDs made between"
        " two times, and for composing IDs in tests and data migrations."
    ),
    "web.faq.range_link": "Find the IDs between two times",
    # --- the layout shown is the layout explained; words and numbers (issue 19) ----------
    "web.block.sign": "Sign bit",
    "web.explain.gen_heading": "How a {layout} ID is built",
    "web.explain.gen_structure": (
        "A {layout} ID is a 64-bit whole number. From the most significant bit down it holds:"
        " {parts}. Because time sits in the highest bits, a later ID is a larger number."
    ),
    "web.explain.part_sign": "a sign bit, always 0, so the ID is positive",
    "web.explain.part_time": "{width} bits of time, counted in {tick} since {epoch}",
    "web.explain.part_field": "{label} in {width} bits",
    "web.explain.ms": "milliseconds",
    "web.explain.tick": "ticks of {unit} ms",
    "web.explain.unsigned": (
        "There is no sign bit: time starts at bit 63, so a signed 64-bit column shows the"
        " larger IDs as negative numbers. Store them unsigned, as text or as a wider number."
    ),
    "web.explain.gen_formula": (
        "With t the time in Unix milliseconds, d is the time field: the {tick} since the"
        " epoch. {legend}. Each field is shifted left past the fields below it; shifting by"
        " {shift} bits multiplies by {power}. No two shifted fields overlap, so the OR gives"
        " the same result as a sum."
    ),
    "web.explain.letter": "{letter} is the {label}",
    "web.explain.fields_h": "Fields",
    "web.explain.meaning_time": "The {tick} since the epoch, {epoch}.",
    "web.explain.values": "Values 0 to {max}.",
    "web.explain.gen_epoch": (
        "Epoch: time is counted from {epoch} ({epoch_ms} ms). Earlier times cannot be held."
    ),
    "web.explain.gen_end": (
        "End: {width} bits of {tick} last about {years} years; the last time an ID holds is {end}."
    ),
    "web.explain.gen_per_tick": (
        "Per tick: {bits} bits sit below the time, so at most {count} different IDs share one"
        " time value ({tick})."
    ),
    "web.explain.example_h": "Worked example",
    "web.explain.example": (
        "The form's starting values: timestamp {timestamp} ({utc}) is exactly {delta} ms after"
        " the epoch, so d = {delta}. With datacenter {datacenter}, machine {machine} and"
        " sequence {sequence}: d << 22 = {d_shift}, {datacenter} << 17 = {c_shift},"
        " {machine} << 12 = {m_shift}, and the ID is {d_shift} + {c_shift} + {m_shift} +"
        " {sequence} = {id}."
    ),
    "web.meaning.datacenter": "The datacenter of the machine that made the ID.",
    "web.meaning.machine": "The machine that made the ID.",
    "web.meaning.sequence": (
        "Counts the IDs one generator makes within the same time value; it starts again at 0"
        " when the time moves on."
    ),
    "web.meaning.instagram.sequence": (
        "A per-table sequence, modulo 1024: tells apart the IDs of one shard in the same"
        " millisecond."
    ),
    "web.meaning.mastodon.sequence": (
        "Not a counter: two bytes of a hash of the table name, a secret and the time, plus"
        " the table's sequence. It only tells apart the IDs of one millisecond."
    ),
    "web.meaning.worker": "Discord's internal worker that made the ID.",
    "web.meaning.process": "The process on that worker.",
    "web.meaning.increment": "Goes up by one for each ID that process makes.",
    "web.meaning.shard": "The logical shard (database partition) the row belongs to.",
    "web.layout.legend": "Read the ID as",
    "web.layout.remembered": (
        "Your last choice, remembered in this browser: it reads bare numbers; a link or"
        " mention is always read in its own layout."
    ),
    "web.readings.also": "As a Discord ID it would be from {time}:",
    "web.readings.more": "Other readings ({count})",
    # --- issue 19 §5, §7: errors a visitor can act on, the range's zone, the table, phones
    "web.fix.before_epoch": "Timestamp {value} is before the {layout} epoch.",
    "web.fix.seconds": "Looks like seconds: use {milliseconds} (milliseconds)",
    "web.fix.allowed": "Allowed: {min}..{max} ({min_utc} .. {max_utc}).",
    "web.fix.swap": "Swap the two times",
    "web.link_fixed": "The link keeps timestamp {timestamp}, the time used, so it opens this ID.",
    "web.label.range_from": "From",
    "web.hint.range_from": (
        "As 2016-04-30T11:18:25.796 (the time may be left off), in the zone you choose; included."
    ),
    "web.label.range_to": "To",
    "web.hint.range_to": "Included. Leave blank for now.",
    "web.hint.range_zone": (
        "UTC, or your own time zone by name (chosen here when JavaScript runs); the link keeps"
        " the zone, so it opens the same window anywhere."
    ),
    "web.range.from_zone": "From ({zone})",
    "web.range.to_zone": "To ({zone})",
    "web.table.copy_all": "Copy all",
    "web.table.copy_all_label": "Copy all: the whole table, tab-separated, to paste into a spreadsheet",
    "web.table.sort_time": "Sort by time",
    "web.table.sort_input": "Back to the order typed",
    "web.table.sorted": "Sorted by time, earliest first.",
    "web.peek.label": "Live result",
}
