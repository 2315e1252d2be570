"""English messages: errors (keyed by error code) and the CLI."""

from __future__ import annotations

MESSAGES: dict[str, str] = {
    # --- errors: bad input ----------------------------------------------------
    "snowid_error": "snowid error",
    "invalid_value": "{field} {value} is not a valid value",
    "not_an_integer": "{field} {value} is not a whole number",
    "contains_spaces": "{field} {value} contains spaces; give the digits alone",
    "not_an_id_or_link": (
        "{field} {value} is not an ID snowid can read: paste an ID, or a tweet, Discord,"
        " Mastodon or Instagram link"
    ),
    "not_an_id_or_link.site": (
        "{field} {value} is a link to {site}, a site whose links hold no ID snowid reads;"
        " it reads links to tweets, Discord messages, Mastodon posts and Instagram posts"
    ),
    "not_an_id_or_link.twitter": (
        "{field} {value} is a link to {site}, but not to a tweet: a tweet's link holds"
        " /status/ and the tweet's number, as in x.com/USER/status/NUMBER"
    ),
    "not_an_id_or_link.discord": (
        "{field} {value} is a link to {site}, but not to a message or a channel: those read"
        " discord.com/channels/SERVER/CHANNEL/MESSAGE (right-click a message, Copy Message"
        " Link)"
    ),
    "not_an_id_or_link.instagram": (
        "{field} {value} is a link to {site}, but not to a post: a post's link holds /p/,"
        " /reel/ or /tv/ and the post's code, as in instagram.com/p/CODE/"
    ),
    "not_an_id_or_link.mastodon": (
        "{field} {value} is a link to a post on {site}, but its number is not a Snowflake ID:"
        " Mastodon's have 16 to 19 digits (posts from before Mastodon 2.0 were numbered one"
        " by one and hold no time)"
    ),
    "not_an_id_or_link.mention": (
        "{field} {value} looks like a Discord mention but holds no ID: snowid reads <@ID>,"
        " <@!ID>, <#ID>, <@&ID>, <:name:ID> and <a:name:ID>"
    ),
    "instagram_share_link": (
        "{field} {value} is an Instagram share link: what follows /share/ is a token that"
        " leads to the post, not the post's code, so it holds no ID. Open the link and paste"
        " the address it arrives at (instagram.com/p/… or /reel/…)"
    ),
    "layout_conflict": (
        "{field} {value} contradicts the pasted link: {text} comes from {layout}, so its IDs"
        " are {layout} IDs; choose {layout}, or let the link decide"
    ),
    "layout_conflict.list": (
        "{text} comes from {layout}, but this list is read as {value} IDs: decode {layout}"
        " links on their own, or in a list of their own"
    ),
    "digit_groups": "{field} {value}: the digits are grouped by {separator} irregularly",
    "digit_groups.irregular": (
        "{field} {value}: the digit groups split by {separator} are not regular (1 to 3"
        " digits, then groups of three); write the digits without {separator}"
    ),
    "digit_groups.ambiguous": (
        "{field} {value} is ambiguous: a single {separator} may be a thousands mark or a"
        " decimal mark (Vietnamese writes one and a half as 1,5); write the digits without it"
    ),
    "wrong_type": "{function} takes {expected} for {field}, not {given_type} ({value})",
    "empty_value": "{field} is empty; a whole number is required",
    "number_too_long": "{field} {value} has {digits} digits, far beyond any field's range",
    "out_of_range": "{field} {value} is out of range {min}..{max}",
    "timestamp_before_epoch": (
        "timestamp {value} is before the {layout} epoch; the allowed range is {min}..{max}"
        " ({min_utc} .. {max_utc})"
    ),
    "timestamp_before_epoch.seconds": (
        "timestamp {value} is before the {layout} epoch; the allowed range is {min}..{max}"
        " ({min_utc} .. {max_utc}); this looks like seconds; in milliseconds it is"
        " {milliseconds}"
    ),
    "timestamp_after_end": (
        "timestamp {value} is past {max_utc}, the last time {layout} IDs can hold;"
        " the allowed range is {min}..{max}"
    ),
    "invalid_id": "{field} {value} is not an ID of the {layout} layout, which are 0..{max}",
    "id_negative": "{field} {value} is negative; {layout} IDs are in range 0..{max}",
    "id_too_large": (
        "{field} {value} needs more than {bits} bits; {layout} IDs are in range 0..{max}"
    ),
    "id_sign_bit_set": (
        "{field} {value} has the sign bit (bit {bit}) set; {layout} IDs are in range"
        " 0..{max} (Discord, Instagram and Mastodon IDs use bit {bit} for time and can be"
        " this large)"
    ),
    "window_reversed": (
        "{field} {value} is before the start {start}: the two times are swapped; give the"
        " earlier one first"
    ),
    "duplicate_parameter": (
        "query parameter {parameter} is given {count} times ({value}); give it once"
    ),
    "unknown_parameter": (
        "query parameter {parameter} ({value}) is not one this route reads; it takes: {allowed}"
    ),
    "unknown_parameter.form": (
        "form field {parameter} ({value}) is not read: this route takes its parameters in the"
        " query: {allowed}"
    ),
    "unknown_parameter.body": (
        "JSON body member {parameter} ({value}) is not read: this route takes its parameters"
        " in the query: {allowed}"
    ),
    "invalid_time_zone": (
        "{field} {value} is not a time zone this server knows; give UTC or a zone name such"
        " as Asia/Ho_Chi_Minh"
    ),
    "number_not_a_date": (
        "{field} {value} is a number, not a date; write the date and time as"
        " 2016-04-30T11:18:25.796, or give Unix milliseconds (13 digits, such as 1462015105796)"
    ),
    "number_not_a_date.seconds": (
        "{field} {value} is a number, not a date; as Unix seconds it is {milliseconds} in"
        " milliseconds, or write the date and time as 2016-04-30T11:18:25.796"
    ),
    "invalid_lease_url": "{field} URL {value} cannot be used",
    "invalid_layout": "{field} {value} cannot be used",
    "invalid_layout.unknown": (
        "{field} {value} is unknown; built in: {allowed}; or describe your own as"
        " epoch=MS,unit=MS,fields=NAME:BITS,NAME:BITS,…"
    ),
    "invalid_layout.unknown_builtin": (
        "{field} {value} is unknown; built in: {allowed} (the exact lower-case name; a custom"
        " layout is for the library and the command line, not this service)"
    ),
    "invalid_layout.syntax": (
        "{field} {value} cannot be read; write it as epoch=MS,unit=MS,fields=NAME:BITS,…"
        " with the time field first and signed=no when bit 63 is part of the time (for"
        " example epoch=1409529600000,unit=10,fields=time:39,sequence:8,machine:16)"
    ),
    "invalid_layout.field_name": (
        "{field} {value} cannot be used: field name {name} is not allowed; use lower-case"
        " ASCII letters, digits and _, starting with a letter"
    ),
    "invalid_layout.duplicate_field": (
        "{field} {value} cannot be used: field {name} is given twice"
    ),
    "invalid_layout.reserved_field": (
        "{field} {value} cannot be used: {name} cannot name a field after the time field"
        " (compose takes it as its own argument)"
    ),
    "invalid_layout.width": (
        "{field} {value} cannot be used: field {name} is {width} bits wide; a field is"
        " 1..{max} bits"
    ),
    "invalid_layout.total_width": (
        "{field} {value} cannot be used: the field widths add up to {total} bits, not"
        " {expected} (64 bits, less one when bit 63 is a sign bit)"
    ),
    "invalid_layout.epoch": (
        "{field} {value} cannot be used: the epoch {epoch} is not in range 0..{max}"
        " (Unix milliseconds)"
    ),
    "invalid_layout.unit": (
        "{field} {value} cannot be used: the time unit {unit} ms is not in range 1..{max}"
    ),
    "invalid_layout.time_range": (
        "{field} {value} cannot be used: its last time would be {last} ms, past {max}, the"
        " largest a JSON number holds exactly; use fewer time bits or a smaller unit"
    ),
    "invalid_layout.no_fields": (
        "{field} {value} cannot be used: a layout needs at least its time field"
    ),
    "unknown_field": "{layout} IDs have no field {field} (given {value}); their fields: {allowed}",
    "invalid_encoding": "{field} {value} is not a number in that base",
    "invalid_encoding.unknown_base": "{field} {value} is unknown; known bases: {allowed}",
    "invalid_encoding.digit": (
        "{field} {value} is not a {base} number: {character} at position {position} is not"
        " one of its digits ({allowed})"
    ),
    "invalid_datetime": (
        "{field} {value} is not a time; give Unix milliseconds (such as 1462015105796) or an"
        " ISO 8601 date and time (such as 2016-04-30T11:18:25.796Z; without a zone it is UTC)"
    ),
    # --- errors: the generator ------------------------------------------------
    "generator_error": "the generator cannot safely issue an id",
    "clock_moved_backwards": (
        "the clock moved backwards by {step_ms} ms, more than the tolerance of {tolerance_ms} ms;"
        " no id is issued until it catches up"
    ),
    "end_of_time": (
        "the clock reads {timestamp}, past {max} (2080-07-10T17:30:30.208Z), the last millisecond"
        " a Twitter-layout id can hold"
    ),
    "forked_generator": (
        "this process was forked from the one that owns datacenter {datacenter}, machine"
        " {machine}; a child must not issue ids under its parent's identity. Create a new"
        " Generator with another identity in the child, or use a lease (for example"
        " --lease file:// or SNOWID_LEASE) so each process claims its own"
    ),
    "generator_sealed": (
        "this generator was sealed when its lease on worker {worker} was closed, so that the"
        " next holder can start right after its last timestamp ({mark_ms}); it issues no more"
        " ids. Open a new lease and a new Generator"
    ),
    "ceiling_reached": (
        "the clock ({timestamp}) is past the confirmed ceiling {ceiling} and the ceiling did not"
        " rise within {waited_ms} ms"
    ),
    "clock_policy": "{field} {value} is not a clock-back policy snowid can use",
    "clock_policy.syntax": (
        "{field} {value} is not a clock-back policy: write raise, ride:N, wait:N or logical:N"
        " (N in milliseconds, 0..86400000)"
    ),
    "clock_policy.needs_ms": (
        "{field} {value} cannot be used: the {policy} policy needs its bound, as {policy}:N"
        " (N in milliseconds, 0..86400000)"
    ),
    "clock_policy.no_ms": "{field} {value} cannot be used: raise takes no bound; write raise",
    "clock_policy.lead": (
        "{field} {value} cannot be used: under {fence} a logical clock may run at most {max} ms"
        " ahead of the wall clock (the lease's max_skew); the allowed range is logical:0..{max}"
    ),
    "clock_policy.no_mark": (
        "{field} {value} cannot be used with {fence}: it keeps no high-water mark, so after a"
        " restart nothing would keep new ids above those issued ahead of the clock; lease the"
        " identity instead (static://D/M?state_dir=DIR, file: slots or a store)"
    ),
    "clock_policy.both": (
        "{field} {value} cannot be used together with max_backward_ms: give one of them"
        " (max_backward_ms=N is clock_back='ride:N')"
    ),
    # --- errors: leases -------------------------------------------------------
    "lease_error": "the worker identity could not be claimed or kept",
    "no_free_identity": "no free worker identity in {first}..{last} of {store}: all are held",
    "lease_lost": "the lease on worker {worker} was lost: {reason}",
    "lease_removed": (
        "the lease record of worker {worker} was removed from the lease store {store} ({where})"
        " while this process held it, so it stopped issuing ids under it; nobody claimed it"
        " normally: the record was deleted (a deleted row or key, a truncated table). The next"
        " claim rewrites it, quarantined"
    ),
    "lease_modified": (
        "the lease record of worker {worker} was modified in the lease store {store} ({where})"
        " while this process held it: its owner or epoch was changed by something other than"
        " a claim, so the process stopped issuing ids under it. The record and its ceiling"
        " are still there: the next claim starts above that ceiling"
    ),
    "store_failed_over": (
        "the lease store {store} failed over to a replica or went back in time while this"
        " process held worker {worker} (its history was {seen}, it is {found} now), so the"
        " process stopped issuing ids under it; the next claim waits out a quarantine above"
        " every grant the old store could have made, then proceeds"
    ),
    "store_unreachable": "the lease store {store} is unreachable: {reason}",
    "sentinel_unreachable": (
        "the lease store {store} is unreachable: none of its Redis Sentinels ({sentinels})"
        " answered: {reason}"
    ),
    "sentinel_service_unknown": (
        "the Redis Sentinels of the lease store {store} answered, but none of them monitors"
        " a primary named {service} (they monitor: {known}); check the service name in the"
        " URL's path, redis+sentinel://HOST:PORT,…/SERVICE/DB"
    ),
    "clock_skew": (
        "this host's clock is {skew_ms} ms from the lease store's, more than the allowed"
        " {max_skew_ms} ms"
    ),
    "ceiling_ahead": (
        "the previous ceiling {ceiling} of worker {worker} is {ahead_ms} ms ahead of this"
        " host's clock, more than the allowed {max_ms} ms: this host's clock is behind, or the"
        " stored ceiling is wrong (snowid lease status --all lists the ceilings)"
    ),
    "unsupported_filesystem": (
        "the state directory {path} is on a {fstype} file system; slot locks and high-water"
        " marks need a local file system"
    ),
    "slot_quarantined": (
        "both high-water-mark records in {path} are corrupt; the slot is quarantined and never"
        " reused silently"
    ),
    "slot_entry": "{path} sits where a slot file should be but is not one",
    "slot_entry.symlink": (
        "{path} is a symbolic link where a slot file should be; a slot file is never opened"
        " through a link, which could point anywhere: remove the link"
    ),
    "slot_entry.directory": (
        "{path} is a directory where a slot file should be: move it out of the state directory"
    ),
    "slot_entry.special": (
        "{path} is a special file (a FIFO, socket or device) where a slot file should be: move"
        " it out of the state directory"
    ),
    "slot_entry.foreign": (
        "{path} is not a snowid slot file (it holds no high-water-mark record), so it is never"
        " written over: move it out of the state directory"
    ),
    "store_regressed": "the lease store went back in time for worker {worker}: {reason}",
    "store_not_durable": (
        "the lease store {store} can lose acknowledged writes: {setting} is {found}, strict mode"
        " needs {required}; fix the server, or add durability=best_effort to the URL to accept"
        " that a lost ceiling can duplicate ids"
    ),
    "store_not_synchronous": (
        "the lease store {store} was named with replication=sync, but it does not replicate"
        " synchronously now: {setting} is {found}, where {required} is needed; nothing was"
        " granted on that answer. Fix the replication, or drop replication=sync from the URL"
        " (a failover then quarantines the store)"
    ),
    "store_config_hidden": (
        "the lease store {store} does not show its persistence settings ({reason}), so strict"
        " mode cannot vouch for it; add durability=best_effort to the URL to accept the risk"
    ),
    "store_replication_unconfirmed": (
        "the lease store {store} confirmed a write on {acked} of its {replicas} replicas within"
        " {timeout_ms} ms; the new ceiling is not used"
    ),
    "store_refused": "the lease store {store} refused the command: {reason}",
    "store_version": (
        "the lease store {store} runs {product} {version}; leases need {required} or later"
        " (for SELECT … FOR UPDATE SKIP LOCKED)"
    ),
    "ordinal_missing": (
        "the pod ordinal cannot be read: {source} is {value}, which does not end in a number;"
        " run in a StatefulSet (its pods are named NAME-0, NAME-1, …) or pass the"
        " apps.kubernetes.io/pod-index label in the environment variable that ordinal_env="
        " names"
    ),
    "ordinal_not_a_number": (
        "the pod ordinal cannot be read: {source} is {value}, not a plain decimal number"
        " (digits only, as the apps.kubernetes.io/pod-index label gives); or unset it to read"
        " the ordinal from the name of the StatefulSet's pod"
    ),
    "ordinal_out_of_range": (
        "the pod ordinal {ordinal} (from {source} {value}) is out of range 0..{max_ordinal}:"
        " plus offset {offset} it must be within 0..{max} for pod_bits={pod_bits}; lower the"
        " offset, scale the StatefulSet down, or give pods more bits (pod_bits=)"
    ),
    "server_start_failed": (
        "snowid serve stopped: a server process (of {workers}) failed to start; its error is"
        " logged above"
    ),
    "serve_release_failed": (
        "snowid serve (process {pid}) stopped, but its identity did not go back to the lease"
        " store; the reason is logged above; it stays held until its grant runs out"
    ),
    "address_unavailable": "cannot listen on {host} port {port}: {reason}",
    "not_seconds": (
        "{field} {value} is not a number of seconds; give a decimal number such as 5 or 2.5"
    ),
    "not_a_boolean": (
        "{field} {value} is not a yes/no value; allowed: 1, true, yes, on or 0, false, no, off"
    ),
    "auth_token_file_unreadable": "{field} {value} cannot be read: {reason}",
    "auth_token_file_empty": (
        "{field} {value} holds no token; put one token per line (blank lines and lines"
        " starting with # are ignored)"
    ),
    "password_file_unreadable": "{field} {value} of the lease {url} cannot be read: {reason}",
    "password_file_empty": (
        "{field} {value} of the lease {url} is empty; write the password in it (a trailing"
        " line break is ignored)"
    ),
    "auth_token_file_missing": (
        "{field} is on but no token file is given; set --auth-token-file or SNOWID_AUTH_TOKEN_FILE"
    ),
    "metrics_dir_unusable": (
        "{field} {value} cannot be used to share the worker processes' metrics: {reason};"
        " give a directory this user can create and write, or leave it unset"
    ),
    "forwarded_allow_ips": (
        "{field} {value} is not a list of IP addresses or networks; give them separated by"
        " commas (10.0.0.1,10.1.0.0/16), or * to trust the proxy headers of every peer"
    ),
    # --- field labels (used inside messages) ---------------------------------
    "field.timestamp": "timestamp",
    "field.datacenter": "datacenter",
    "field.machine": "machine",
    "field.sequence": "sequence",
    "field.worker": "worker",
    "field.id": "ID",
    "field.count": "count",
    "field.datetime": "datetime",
    "field.password_file": "password_file",
    "field.lease": "lease",
    "field.auth_token_file": "auth token file",
    "field.auth_metrics": "metrics authentication",
    "field.metrics_dir": "metrics directory",
    "field.forwarded_allow_ips": "trusted proxies (forwarded_allow_ips)",
    "field.time": "time",
    "field.process": "process",
    "field.increment": "increment",
    "field.shard": "shard",
    "field.layout": "layout",
    "field.base": "base",
    "field.from": "from",
    "field.to": "to",
    "field.zone": "time zone",
    "field.start": "start",
    "field.end": "end",
    # --- layouts and warnings -------------------------------------------------
    "layout.any": "Snowflake",
    "layout.twitter": "Twitter",
    "layout.discord": "Discord",
    "layout.instagram": "Instagram",
    "layout.sonyflake": "Sonyflake",
    "layout.sonyflake-v2": "Sonyflake v2",
    "layout.mastodon": "Mastodon",
    "layout_note.twitter": "the one layout snowid generates; bit 63 is a sign bit, always 0",
    "layout_note.discord": "bit 63 is the top of the time: IDs are unsigned 64-bit numbers",
    "layout_note.instagram": "bit 63 is the top of the time; the shard is a logical database shard",
    "layout_note.sonyflake": "time in 10 ms units; Sony's field order is time, sequence, machine",
    "layout_note.sonyflake-v2": (
        "v2's defaults; v2 lets a deployment change the widths, unit and start (use a custom"
        " layout for those)"
    ),
    "layout_note.mastodon": (
        "Unix milliseconds; the low 16 bits are a hash plus a per-table sequence, not a counter"
    ),
    "warning.before_first_snowflake": (
        "This number is at most 29700859247. Tweets with IDs that small were numbered by"
        " Twitter's old sequential counter, before Snowflake began in November 2010: if it"
        " is one of those tweet IDs, it holds no time, and the time above is not when the"
        " tweet was posted. An ID composed for the first seconds after the epoch (such as"
        " 4194439168) looks the same, and its time is the one it was composed with."
    ),
    "estimate.headline": (
        "This ID is from before Snowflake (Twitter numbered tweets with a counter until {last_day})"
    ),
    "estimate.anchor": (
        "As a tweet, it was posted {best}: a tweet whose time is published ({source})."
    ),
    "estimate.interpolated": (
        "As a tweet, it was posted about {best}, between {earliest} and {latest}: estimated"
        " from the tweets with published times next to it by ID ({anchors} such tweets; tested"
        " on them, this estimate was never off by more than {uncertainty})."
    ),
    "estimate.gap": (
        "As a tweet, it was posted between {earliest} and {latest}, the times of the nearest"
        " tweets with published times; about {best} if tweets came at an even pace in between,"
        " which no published tweet confirms."
    ),
    "estimate.before_first": (
        "As a tweet, it was posted at or before {latest}, when tweet {above} was: no tweet with"
        " a published time has a smaller ID."
    ),
    "estimate.after_last": (
        "As a tweet, it was posted at or after {earliest}, when tweet {below} was: no tweet with"
        " a published time has a larger ID."
    ),
    "estimate.duration": "{hours} h {minutes} min",
    "warning.in_the_future": (
        "The decoded time, {datetime}, is more than a day ahead of now: the number may"
        " belong to another layout, or was made by a clock that was wrong."
    ),
    "warning.instagram_bigint": (
        "Read as the negative bigint Instagram's next_id() stores ({stored}): the same 64"
        " bits as the ID {id}, which is what snowid shows and composes."
    ),
    "pasted.server": "server",
    "pasted.channel": "channel",
    "pasted.message": "message",
    "pasted.user": "user",
    "pasted.role": "role",
    "pasted.emoji": "emoji",
    "pasted.source": "Read as {layout}: the layout the link names.",
    "pasted.time_hint": (
        "{value} looks like a time, not an ID: as Unix milliseconds it is {datetime}."
        " Compose an ID from it?"
    ),
    # --- CLI ------------------------------------------------------------------
    "cli.bad_line": "line {number}: {reason}",
    "cli.skipped_line": "skipped line {number}: {reason}",
    "cli.bad_row": "row {number}: {reason}",
    "cli.skipped_row": "skipped row {number}: {reason}",
    "cli.decode_one_source": "give the ids as - (standard input) or with --file, not both",
    "cli.decode_one_only": "--from and --steps are for one id, not for - or --file",
    "cli.decode_no_id": "give an id, - (ids from standard input, one per line) or --file PATH",
    "cli.decode_many_only": "--column, --format and --output are for many ids: give - or --file PATH",
    "cli.error": "Error: {message}",
    "cli.output_failed": "cannot write the output: {reason}",
    "cli.output.no_space": "the disk is full ({errno})",
    "cli.output.closed": "standard output is closed ({errno})",
    "cli.output.other": "{text} ({errno})",
    "cli.id": "id",
    "cli.hex": "hex",
    "cli.timestamp": "timestamp",
    "cli.datacenter": "datacenter",
    "cli.machine": "machine",
    "cli.sequence": "sequence",
    "cli.worker": "worker",
    "cli.utc": "time (UTC)",
    "cli.local": "time (local)",
    "cli.bits": "bits",
    "cli.steps": "formula",
    "cli.layout": "layout",
    "cli.also": "Also a plausible time as: {readings} (snowid readings {id})",
    "cli.past_9999": "after year 9999 (Unix ms {timestamp})",
    "cli.warning": "Warning: {message}",
    "cli.unix_seconds": "Unix seconds",
    "cli.discord_markup": "Discord markup",
    "cli.iso": "ISO 8601",
    "cli.no_readings": (
        "No built-in layout reads this number as a plausible time (not more than a day ahead)."
    ),
    "cli.bit63_sign": "bit 63: sign",
    "cli.bit63_time": "bit 63: time",
    "cli.from": "from",
    "cli.to": "to",
    "cli.low": "low",
    "cli.high": "high",
    "cli.range_empty": "No id of this layout was made in that window.",
    "cli.range_signed": (
        "{layout} ids from {wrap} on are negative in a signed 64-bit column (bigint): the SQL"
        " is for such a column; in an unsigned one use BETWEEN low AND high"
    ),
    "segment.sign": "sign",
    "segment.timestamp": "timestamp",
    "segment.datacenter": "datacenter",
    "segment.machine": "machine",
    "segment.sequence": "sequence",
    "step.delta": "Step 1: the delta, timestamp minus the epoch",
    "step.timestamp": "Step 2: shift the delta into place",
    "step.datacenter": "Step 2: shift the datacenter id into place",
    "step.machine": "Step 2: shift the machine id into place",
    "step.sequence": "Step 2: the sequence stays in the lowest bits",
    "step.combine": "Step 3: combine with bitwise OR (the same as adding: no bits overlap)",
    # --- generator CLI ---
    "generator_no_identity": (
        "a Generator needs a worker identity: pass both datacenter and machine, or a fence"
        " such as a lease from snowid.lease.open_lease()"
    ),
    # --- leases ---
    "invalid_lease_url.syntax": (
        "{field} URL {value} cannot be used: it is not a well-formed URL; put an IPv6 address"
        " in [brackets] and percent-encode @ : / ? # [ ] in the user name and password"
    ),
    "invalid_lease_url.unknown_scheme": (
        "{field} URL {value} cannot be used: the scheme {scheme} is unknown; allowed: {allowed}"
    ),
    "invalid_lease_url.unknown_option": (
        "{field} URL {value} cannot be used: unknown option {options}; allowed: {allowed}"
    ),
    "invalid_lease_url.unknown_option.close": (
        "{field} URL {value} cannot be used: unknown option {options}; did you mean {suggestion}?"
    ),
    "invalid_lease_url.unknown_option.libpq": (
        "{field} URL {value} cannot be used: unknown option {options}; allowed: {allowed},"
        " and libpq's connection parameters (sslmode, passfile, application_name,"
        " target_session_attrs …: the PostgreSQL documentation lists them)"
    ),
    "invalid_lease_url.duplicate_option": (
        "{field} URL {value} cannot be used: option {option} is given {count} times; give it once"
    ),
    "invalid_lease_url.integer": (
        "{field} URL {value} cannot be used: {option}={text} is not a whole number; allowed:"
        " ASCII digits 0-9, in range {min}..{max}"
    ),
    "invalid_lease_url.range": (
        "{field} URL {value} cannot be used: {option}={text} is out of range {min}..{max}"
    ),
    "invalid_lease_url.seconds": (
        "{field} URL {value} cannot be used: {option}={text} is not a valid number of seconds;"
        " allowed: a decimal number (such as 2 or 0.5) of at least {min}"
    ),
    "invalid_lease_url.bool": (
        "{field} URL {value} cannot be used: {option}={text} is not a yes/no value; allowed:"
        " 1, true, yes, on or 0, false, no, off"
    ),
    "invalid_lease_url.worker_range": (
        "{field} URL {value} cannot be used: range={text} is not a valid worker range; allowed:"
        " A-B (or a single N) with whole numbers 0 <= A <= B <= {max}"
    ),
    "invalid_lease_url.static_identity_missing": (
        "{field} URL {value} cannot be used: a static: lease needs a worker identity; allowed:"
        " static://DATACENTER/MACHINE, static:?datacenter=D&machine=M or static:?worker=W"
    ),
    "invalid_lease_url.not_a_url": (
        "{field} URL {value} cannot be used: it is not a lease URL, which starts with the"
        " kind of store, as in file:///var/lib/snowid, postgresql://HOST/DATABASE,"
        " mysql://HOST/DATABASE, redis://HOST:6379/0, k8s:?state_dir=DIR or static://1/2;"
        " allowed kinds: {allowed}"
    ),
    "invalid_lease_url.no_location": (
        "{field} URL {value} cannot be used: the {scheme} lease takes no host or path, and"
        " {text} would be ignored; give the state directory as {scheme}?state_dir=DIR"
    ),
    "invalid_lease_url.file_host": (
        "{field} URL {value} cannot be used: file slots live on this host, so the host must be"
        " empty or localhost, not {host}; use file:///path"
    ),
    "invalid_lease_url.port": (
        "{field} URL {value} cannot be used: port {port} is not a whole number in range 1..65535"
    ),
    "invalid_lease_url.host_list": (
        "{field} URL {value} cannot be used: a {scheme} lease connects to one host, and"
        " {count} are given; name one HOST:PORT"
    ),
    "invalid_lease_url.identifier": (
        "{field} URL {value} cannot be used: {option}={text} is not a plain SQL name; allowed:"
        " lower-case ASCII letters, digits and _, not starting with a digit, at most 51"
        " characters"
    ),
    "invalid_lease_url.static_workers": (
        "{field} URL {value} cannot be used: a static identity cannot be shared by {workers}"
        " worker processes; use file slots (the default) or PostgreSQL"
    ),
    "invalid_lease_url.choice": (
        "{field} URL {value} cannot be used: {option}={text} is not allowed; allowed: {allowed}"
    ),
    "invalid_lease_url.control_character": (
        "{field} URL {value} cannot be used: it holds the control character {text}; a lease URL"
        " and the paths it names may not hold control characters (they are refused, never"
        " removed)"
    ),
    "invalid_lease_url.database_missing": (
        "{field} URL {value} cannot be used: a mysql: lease needs a database; allowed:"
        " mysql://USER@HOST:PORT/DATABASE?password_file=PATH"
    ),
    "invalid_lease_url.password_twice": (
        "{field} URL {value} cannot be used: it gives a password both in the URL and in"
        " password_file=; give it once, in the file (a password in the URL reaches"
        " command lines and logs)"
    ),
    "invalid_lease_url.key_prefix": (
        "{field} URL {value} cannot be used: the key prefix {text} is not allowed; allowed:"
        " ASCII letters, digits, _ . - and / between names (no name . or ..), at most 100"
        " characters, such as etcd://HOST:2379/snowid/leases or zookeeper://HOST:2181/snowid"
    ),
    "invalid_lease_url.password_inline": (
        "{field} URL {value} cannot be used: a {scheme} lease takes its password only from"
        " password_file=PATH (etcd: also from the ETCDCTL_PASSWORD environment variable),"
        " never from the URL (it would reach command lines and logs)"
    ),
    "invalid_lease_url.sentinel_service": (
        "{field} URL {value} cannot be used: its path {text} does not name a Redis Sentinel"
        " service; allowed: /SERVICE or /SERVICE/DB (ASCII letters, digits, _ . -, at most 100"
        " characters; DB 0..65535), such as redis+sentinel://HOST:26379,HOST:26379/mymaster/0"
    ),
    "invalid_lease_url.replication_sync": (
        "{field} URL {value} cannot be used: replication=sync cannot be verified on {scheme}:"
        " WAIT is best effort by Redis's own documentation (a write it confirmed can still be"
        " lost at a failover); leave the option out (a failover then quarantines the store)"
    ),
    "invalid_lease_url.env_name": (
        "{field} URL {value} cannot be used: {option}={text} is not an environment variable"
        " name; allowed: ASCII letters, digits and _, not starting with a digit"
    ),
    "lease_state_dir": (
        "{field} URL {value} cannot be used: the state directory {path} cannot be created,"
        " listed or written ({reason}); it must be a directory on a local file system that"
        " this process may create and write"
    ),
    "lease.init.ready": "lease store {url} is ready",
    "lease.init.created": "created the lease store (incarnation {incarnation})",
    "lease.init.quarantined": (
        "new store: every ceiling was raised to now + ttl + span + max_skew, so the first"
        " claims wait that long (use --first-deployment when no earlier store existed)"
    ),
    "lease.init.upgraded": (
        "upgraded the lease store to format {format}: it now keeps a record for every worker,"
        " so a record deleted later is told apart from one never used. Every ceiling was"
        " raised to now + {quarantine_ms} ms, as holders of an older snowid may still issue"
        " ids under any identity: claims wait that long, once"
    ),
    "lease.init.repaired": (
        "the store had lost the lease records of workers {workers} ({count} in all): they were"
        " rewritten with their ceilings quarantined to now + {quarantine_ms} ms, so claims on"
        " them wait that long and nothing issued under them before can repeat"
    ),
    "lease.forward_jump": (
        "the wall clock ran {jump_ms} ms ahead of the boot clock, more than the forward guard"
        " of {guard_ms} ms; worker {worker} keeps its ceiling {ceiling} and issues no id past"
        " it until the clock comes back or the new time has held for {confirm_ms} ms"
    ),
    "lease.forward_accept": (
        "the wall clock has stayed {jump_ms} ms ahead for {confirm_ms} ms; worker {worker}"
        " accepts the new time and extends its ceiling again"
    ),
    "lease.forward_clear": (
        "the wall clock came back ({jump_ms} ms from the boot clock); worker {worker} extends"
        " its ceiling again"
    ),
    "lease.static_unguarded": (
        "static identity datacenter {datacenter}, machine {machine} has no state_dir: a second"
        " process on this host (in the same network namespace) is refused, but nothing stops a"
        " process on another host, or in a container with its own network, from using it too,"
        " and two processes on one identity issue duplicate ids without any error; keeping it"
        " unique across hosts is your promise (?state_dir=DIR also locks it for containers"
        " sharing that directory, and keeps a high-water mark across restarts)"
    ),
    "lease.static_unguarded.no_guard": (
        "static identity datacenter {datacenter}, machine {machine} has no state_dir: nothing"
        " on this host stops another process from using it too, and two processes on one"
        " identity issue duplicate ids without any error; keeping it unique across processes"
        " and hosts is your promise (add ?state_dir=DIR to lock it on this host)"
    ),
    "lease.status.none": "no identity in {url} is held",
    "lease.status.missing": (
        "the lease records of workers {workers} ({count} in all) are missing from {url}: they"
        " were deleted, and processes may still be issuing under them until their next renewal;"
        " the next claim on them, or snowid lease init URL, writes them again, quarantined"
    ),
    "lease.status.failover": (
        "{url} failed over or went back in time at {at} (its history was {seen}, it is {found}"
        " now): every ceiling was raised to {until_ms}, so no claim starts before {until}"
        " ({state}); holders from before stopped at their next renewal"
    ),
    "lease.status.failover.ends": "the quarantine ends then",
    "lease.status.failover.ended": "the quarantine is over",
    "lease.col.worker": "worker",
    "lease.col.datacenter": "datacenter",
    "lease.col.machine": "machine",
    "lease.col.held": "held",
    "lease.col.holder": "holder",
    "lease.col.epoch": "epoch",
    "lease.col.since": "since (UTC)",
    "lease.col.ceiling": "ceiling",
    "lease.yes": "yes",
    "lease.no": "no",
    # --- the process-wide generator (snowid.next_id) ---
    "default_not_configured": (
        "snowid.next_id() has no worker identity to issue ids under: call"
        " snowid.configure(lease=URL) at startup or set {env}. Choose file: when every process"
        " that writes ids runs on this one host, a shared store such as postgresql://HOST/DB"
        " when several hosts write ids, or static://DATACENTER/MACHINE when you give each"
        " process its identity yourself"
    ),
    "default_already_configured": (
        "{field} {value} cannot be used: the process-wide generator is already configured with"
        " {current}; configure it once, at startup (the same lease again is fine)"
    ),
    "static_identity_in_use": (
        "datacenter {datacenter}, machine {machine} is already held by another process on this"
        " host (in the same network namespace), and a static identity belongs to one process at"
        " a time; give each process its own identity, or use a lease (file: on one host,"
        " postgresql://HOST/DB for several) so that each process claims one"
    ),
    "static_identity_in_use.pid": (
        "datacenter {datacenter}, machine {machine} is already held by process {pid} on this"
        " host (in the same network namespace), and a static identity belongs to one process at"
        " a time; give each process its own identity, or use a lease (file: on one host,"
        " postgresql://HOST/DB for several) so that each process claims one"
    ),
    "id_float": (
        "{field} {value} is a floating-point number, which cannot hold every 64-bit id exactly"
        " (above 2^53 it may already be another id); send ids as decimal strings"
    ),
    # --- argparse usage errors (never repeating a value the user typed) ---
    "cli.usage": "usage: ",
    "cli.usage_error": "{prog}: error: {message}",
    "cli.arg.named": "argument {name}: {message}",
    "cli.arg.invalid_choice": "invalid choice; choose from {choices}",
    "cli.arg.expected_one": "expected one argument",
    "cli.arg.expected_at_most_one": "expected at most one argument",
    "cli.arg.expected_at_least_one": "expected at least one argument",
    "cli.arg.expected_n": "expected {count} arguments",
    "cli.arg.no_value": "takes no value",
    "cli.arg.invalid_value": "invalid value",
    "cli.arg.not_allowed_with": "not allowed with argument {other}",
    "cli.arg.required": "the following arguments are required: {names}",
    "cli.arg.one_required": "one of the arguments {names} is required",
    "cli.arg.ambiguous": "ambiguous option: {option} could match {matches}",
    "cli.arg.unrecognized": (
        "unrecognized arguments: {args} (values are not repeated: they may hold a password)"
    ),
    "cli.arg.invalid": "invalid arguments; see --help",
    # --- more field labels ---
    "field.port": "port",
    "field.workers": "workers",
    "field.max_count": "max_count",
    "field.drain_seconds": "drain_seconds",
    "field.max_backward_ms": "max_backward_ms",
    "field.max_wait_ms": "max_wait_ms",
    "field.clock_back": "clock_back",
    "field.ceiling_ms": "ceiling_ms",
    "field.start_ms": "start_ms",
    # --- the integrations: Django, SQL in PostgreSQL ---
    "django.made_at": "made at {time} (UTC)",
    "django.new_key": "a new id, drawn when this is saved",
    "drf.key_changed": "{value} cannot replace this row's id {current}: a saved row keeps its id",
    "sqlalchemy.autoincrement": (
        "a SnowIdType column cannot be autoincrement={given}: the database would number the"
        " rows 1, 2, 3..., which read as ids made in November 2010; its ids come from snowid"
        " (default=new_id)"
    ),
    "invalid_database_url": (
        "{field} {value} is not a PostgreSQL URL; use postgresql://USER:PASSWORD@HOST:PORT/DATABASE"
    ),
    "invalid_database_url.duckdb": (
        "{field} {value} is not a DuckDB database file; use duckdb:///PATH/TO/FILE.duckdb"
    ),
    "invalid_database_url.mysql": (
        "{field} {value} is not a MySQL or MariaDB URL naming a database; use"
        " mysql://USER@HOST:PORT/DATABASE?password_file=PATH"
    ),
    "database_unreachable": "cannot connect to the database {url}: {reason}",
    "database_refused": "the database {url} refused the SQL functions: {reason}",
    "database_refused.read": "the database {url} refused a query of --check-index: {reason}",
    "index_check": "{field}: the primary key of {value} in {url} cannot be read",
    "pgstattuple": "pgstatindex cannot be used in the database {url}",
    "index_check.name": (
        "{field} {value} is not a table name PostgreSQL can read: write TABLE or SCHEMA.TABLE,"
        ' with "double quotes" around a name holding capitals or spaces'
    ),
    "index_check.no_table": (
        "{field}: there is no table {value} in {url} (a name without a schema is looked up"
        " on the search_path)"
    ),
    "index_check.not_a_table": "{field}: {value} in {url} is a {kind}, not a table",
    "index_check.partitioned": (
        "{field}: {value} in {url} is a partitioned table, whose primary-key index has no"
        " pages of its own; check each partition instead"
    ),
    "index_check.no_primary_key": "{field}: the table {value} in {url} has no primary key",
    "index_check.not_btree": (
        "{field}: the primary key of {value} in {url} is a {kind} index; pgstatindex reads"
        " only B-tree indexes"
    ),
    "pgstattuple.missing": (
        "the pgstattuple extension, whose pgstatindex reads the index, is not installed in"
        " the database {url}: run CREATE EXTENSION pgstattuple; there as a role allowed to"
        " create it (a superuser: it is not a trusted extension), then run this again"
    ),
    "pgstattuple.privilege": (
        "this role may not run pgstatindex in the database {url} ({detail}): grant it"
        " pg_stat_scan_tables (GRANT pg_stat_scan_tables TO the role;) or use a superuser"
    ),
    "bad_row": "row {row}: {reason}",
    "column_missing": "{file} has no column {column}; its columns are: {columns}",
    "file_unusable": "cannot use the file {file}: {reason}",
    "extra_missing": (
        "{feature} needs the Python package {package}, which is not installed:"
        " pip install 'snowid[{extra}]'"
    ),
    "sql.header": (
        "SQL functions that read Snowflake ids of the {layout} layout, made by snowid {version}."
        " Running this again replaces them with the same definitions."
    ),
    "sql.header.sqlite": (
        "A view of the table {table} with the time and fields of the Snowflake ids in its"
        " column {column} ({layout} layout), made by snowid {version}. Running this again"
        " replaces the view with the same definition."
    ),
    "sql.header.duckdb": (
        "DuckDB macros that read Snowflake ids of the {layout} layout, made by snowid"
        " {version}. Running this again replaces them with the same definitions."
    ),
    "sql.applied": "installed {count} SQL functions into {url}: {names}",
    "sql.check.table": "table: {table}, about {rows} rows (the planner's estimate)",
    "sql.check.index": "primary key: {index}, {size}, {pages} leaf pages",
    "sql.check.key": "key: {columns} ({type}), {kind}",
    "sql.check.kind.snowflake": "Snowflake ids",
    "sql.check.kind.integer": "integers below 2^50 (a sequence)",
    "sql.check.kind.uuid7": "UUIDv7",
    "sql.check.kind.uuid": "UUIDs (version {version})",
    "sql.check.kind.other": "neither an integer nor a uuid",
    "sql.check.density": "leaf density: {density}, leaf fragmentation: {fragmentation}",
    "sql.check.verdict": (
        "looks like: {case} (docs/keys.md measured {documented} % leaf density for it)"
    ),
    "sql.check.too_small": (
        "verdict: too small to tell ({pages} leaf pages; at least {min} are needed)"
    ),
    "sql.check.no_case": "verdict: docs/keys.md has measured no key of this kind",
    "sql.check.dense": "the index is dense: nothing to do",
    "sql.check.case.one_writer": (
        "keys inserted in increasing order, as one writer makes them (snowid.next_id() in"
        " one process, or BIGSERIAL)"
    ),
    "sql.check.case.workers": (
        "several writers with an identity each, their keys interleaved (8 processes of"
        " snowid.next_id())"
    ),
    "sql.check.case.client_blocks": (
        "buffered client blocks (16 snowid.client processes, blocks of 4,096 ids)"
    ),
    "sql.check.case.uuid7_many": "UUIDv7 from several writers at once (8 processes)",
    "sql.check.case.uuid4": "random UUIDs (UUIDv4 from 8 processes)",
    "sql.check.options": 'what you can do (docs/keys.md, "What an operator can do"):',
    "sql.check.option.identities": (
        "fewer, busier identities per table: one writer keeps the index near 90 %"
    ),
    "sql.check.option.batch": (
        "smaller client batches (Client(batch=128)) gave an index about a fifth smaller on"
        " PostgreSQL"
    ),
    "sql.check.option.reindex": (
        "{reindex} packs the index to its fillfactor again without blocking writes; worth"
        " running now and then on a large, old table"
    ),
    "sql.check.option.fillfactor": (
        "a lower fillfactor does not help here: it applies to pages filled from the right"
        " edge and to rebuilds, not to the middle splits interleaved keys cause"
    ),
    "sql_unknown_engine": "{field} {value} is not an SQL engine snowid writes for; choose from {allowed}",
    "sql_table_required": (
        "SQLite needs {field}: it has no stored functions, so the script is a view over the"
        " table and id column you name (--table TABLE --column COLUMN)"
    ),
    "sql_name": "{field} {value} cannot be used as a name in SQL",
    "sql_name.layout": (
        "{field} {value} cannot name SQL functions: use a layout name of letters, digits,"
        " - and _ that starts with a letter (name=… in a layout spec)"
    ),
    "sql_name.clash": (
        "{field}: the field {value} would be named like one of the SQL functions"
        " (timestamp, parts, unix_ms, first_id_at, last_id_at); rename the field"
    ),
    "sql_name.length": (
        "{field}: the SQL function name {value} is longer than 63 characters, which"
        " PostgreSQL cuts; use a shorter layout or field name"
    ),
    "sql_name.identifier": "{field} {value} cannot name a table, column or view",
    "sql_no_server": "{field} {value} cannot be used: there is no server to install into",
    "sql_no_server.sqlite": (
        "{field} {value} cannot be used: SQLite has no server to install into; run the"
        " script in your database instead (sqlite3 DATABASE < script.sql)"
    ),
    # --- snowid.client ---
    "field.url": "service URL",
    "field.token": "bearer token",
    "field.batch": "batch",
    "field.timeout": "timeout in seconds (above 0)",
    "field.retries": "retries",
    "invalid_service_url": "{field} {value} cannot be used",
    "invalid_service_url.scheme": (
        "{field} {value} cannot be used: the scheme must be http:// or https://"
    ),
    "invalid_service_url.host": (
        "{field} {value} cannot be used: it names no host; write it as http://HOST:PORT"
    ),
    "invalid_service_url.port": (
        "{field} {value} cannot be used: the port is not a number in range 0..65535"
    ),
    "invalid_service_url.userinfo": (
        "{field} {value} cannot be used: it holds a user name or password; give the bearer"
        " token as token= instead"
    ),
    "invalid_service_url.extra": (
        "{field} {value} cannot be used: a query (?…) or fragment (#…) has no place in it;"
        " give the base URL only"
    ),
    "invalid_token": (
        "{field} cannot be used: a bearer token is printable ASCII without spaces and not"
        " empty (the token itself is not shown)"
    ),
    "service_error": "the id service {url} gave no ids",
    "service_unreachable": "the id service {url} is unreachable after {attempts} tries: {reason}",
    "service_timeout": (
        "the id service {url} did not connect or answer within {timeout} s (not retried)"
    ),
    "service_refused": (
        "the id service {url} refused the request: HTTP {status} {service_code}: {service_message}"
    ),
    "service_auth": (
        "the id service {url} wants a valid bearer token (HTTP {status} {service_code}):"
        " {service_message}"
    ),
    "service_unavailable": (
        "the id service {url} cannot issue ids now (HTTP {status} {service_code} on each of"
        " {attempts} tries): {service_message}"
    ),
    "service_answer": "the answer of the id service {url} is not a batch of ids",
    "service_answer.status": (
        "the answer of the id service {url} is not a batch of ids: its status line {detail}"
        " is not HTTP/1.x"
    ),
    "service_answer.headers": (
        "the answer of the id service {url} is not a batch of ids: its headers cannot be"
        " read ({detail})"
    ),
    "service_answer.json": (
        "the answer of the id service {url} is not a batch of ids: it is not the JSON object"
        ' {{"ids": [...]}}: {detail}'
    ),
    "service_answer.count": (
        "the answer of the id service {url} holds {detail} ids where {count} were asked for"
    ),
    "service_answer.id": (
        "the answer of the id service {url} is not a batch of ids: {detail} is not an id"
        " (ids are decimal strings, 0..9223372036854775807)"
    ),
    "client_closed": "the client for {url} is closed: it hands out no more ids",
}
