"""The Lua scripts of the Redis lease store: set-up, claim, renew, release, repair.

Each lease operation is ONE script, which Redis runs atomically, so a script's reads and
writes are a compare-and-set. Every script takes the same five keys (``Keys.all``), all
under one hash tag so a Redis Cluster keeps them in one slot, and none of them ever has
a TTL (no eviction policy of the ``volatile-*`` kind can touch them):

- ``meta``     hash: ``incarnation`` (a UUID made when the store is set up), ``layout``,
               ``created_ms``;
- ``lease``    hash: worker -> ``owner:expires_ms`` (the expiry is a number compared with
               the store's ``TIME``, not a key TTL);
- ``ceiling``  hash: worker -> the highest ceiling ever granted (only rises);
- ``epoch``    hash: worker -> claims so far (the fencing token);
- ``info``     hash: worker -> ``claimed_ms holder`` (for ``snowid lease status``).

Times are Unix milliseconds from the store's ``TIME``; numbers cross the script boundary
as decimal strings (``%d``), never through Lua's ``tostring`` (which turns large numbers
into exponents).
"""

from __future__ import annotations

from dataclasses import dataclass

from snowid.ids import TWITTER

__all__ = ["CLAIM", "INIT", "RELEASE", "RENEW", "REPAIR", "Keys"]

_PRELUDE = """
local function now_ms()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
local function fmt(n) return string.format('%d', n) end
-- Lua's numbers are doubles, whole numbers exact only below 2^53: a stored ceiling at or
-- above (a tampered or corrupt store, far beyond any clock) is never computed with or
-- formatted (that would round it, or wrap it negative past 2^63); it is passed on as
-- written, and the claimant refuses it as ceiling-ahead.
local EXACT = 9007199254740992
local function as_written(raw, n)
  if n >= EXACT then return raw end
  return fmt(n)
end
local function expiry(v)
  if not v then return -1 end
  return tonumber(string.match(v, ':(%d+)$')) or -1
end
local function owner_of(v)
  if not v then return '' end
  return string.match(v, '^([^:]*):') or ''
end
local function ours(w, owner, epoch)
  return owner_of(redis.call('HGET', KEYS[2], w)) == owner
    and redis.call('HGET', KEYS[4], w) == epoch
end
"""

INIT = (
    _PRELUDE
    + """
-- ARGV: quarantine_ms (-1: none, a first deployment), new incarnation, layout
local inc = redis.call('HGET', KEYS[1], 'incarnation')
if inc then return {inc, 0} end
local now = now_ms()
local q = tonumber(ARGV[1])
if q >= 0 then
  -- A store without meta is new or was wiped: holders of a lost earlier store may still
  -- issue up to their ceilings, so no claim may start before now + quarantine.
  local floor = now + q
  for w = 0, MAX_WORKER do
    local c = tonumber(redis.call('HGET', KEYS[3], w)) or 0
    if c < floor then redis.call('HSET', KEYS[3], w, fmt(floor)) end
  end
end
redis.call('HSET', KEYS[1], 'incarnation', ARGV[2], 'layout', ARGV[3], 'created_ms', fmt(now))
return {ARGV[2], 1}
""".replace("MAX_WORKER", str(TWITTER.max_worker))  # the layout's number, not a literal
)

CLAIM = (
    _PRELUDE
    + """
-- ARGV: first, last, owner, ttl_ms, caller_ms, max_skew_ms, span_ms, holder
local inc = redis.call('HGET', KEYS[1], 'incarnation')
if not inc then return {'missing'} end
local first, last = tonumber(ARGV[1]), tonumber(ARGV[2])
local leases, ceilings = {}, {}
if last - first < 64 then
  local fields = {}
  for w = first, last do fields[#fields + 1] = tostring(w) end
  local l = redis.call('HMGET', KEYS[2], unpack(fields))
  local c = redis.call('HMGET', KEYS[3], unpack(fields))
  for i, w in ipairs(fields) do leases[w], ceilings[w] = l[i], c[i] end
else
  -- A wide range: two HGETALLs cost less than HMGETs with hundreds of arguments.
  for _, pair in ipairs({{KEYS[2], leases}, {KEYS[3], ceilings}}) do
    local flat = redis.call('HGETALL', pair[1])
    for i = 1, #flat, 2 do pair[2][flat[i]] = flat[i + 1] end
  end
end
local now = now_ms()
-- Lowest ceiling first: the successor most likely to start at once.
local pick, old = -1, 0
for w = first, last do
  local key = tostring(w)
  if expiry(leases[key]) < now then
    local c = tonumber(ceilings[key]) or 0
    if pick < 0 or c < old then pick, old = w, c end
  end
end
if pick < 0 then return {'full'} end
local raw = ceilings[tostring(pick)]
local epoch = redis.call('HINCRBY', KEYS[4], pick, 1)
redis.call('HSET', KEYS[2], pick, ARGV[3] .. ':' .. fmt(now + tonumber(ARGV[4])))
redis.call('HSET', KEYS[5], pick, fmt(now) .. ' ' .. ARGV[8])
if old >= EXACT then return {'ok', pick, raw, raw, epoch, inc} end
-- A caller clock far ahead cannot push the ceiling beyond the store's clock + max_skew.
local proposal = math.min(tonumber(ARGV[5]), now + tonumber(ARGV[6]))
local ceiling = math.max(old, proposal) + tonumber(ARGV[7])
redis.call('HSET', KEYS[3], pick, fmt(ceiling))
return {'ok', pick, fmt(old), fmt(ceiling), epoch, inc}
"""
)

RENEW = (
    _PRELUDE
    + """
-- ARGV: worker, owner, epoch, ttl_ms, caller_ms, span_ms, max_skew_ms, incarnation
local inc = redis.call('HGET', KEYS[1], 'incarnation')
if not inc then return {'missing'} end
local w = ARGV[1]
if inc ~= ARGV[8] or not ours(w, ARGV[2], ARGV[3]) then return {'lost'} end
local now = now_ms()
local raw = redis.call('HGET', KEYS[3], w)
local old = tonumber(raw) or 0
redis.call('HSET', KEYS[2], w, ARGV[2] .. ':' .. fmt(now + tonumber(ARGV[4])))
if old >= EXACT then return {'ok', raw, raw, fmt(now)} end
local span = tonumber(ARGV[6])
-- The proposal is capped by the store's clock: a client far ahead cannot poison w.
local proposal = math.min(tonumber(ARGV[5]) + span, now + span + tonumber(ARGV[7]))
local ceiling = math.max(old, proposal)
if ceiling > old then redis.call('HSET', KEYS[3], w, fmt(ceiling)) end
return {'ok', fmt(old), fmt(ceiling), fmt(now)}
"""
)

RELEASE = (
    _PRELUDE
    + """
-- ARGV: worker, owner, epoch. Expires the lease now; the ceiling stays.
local w = ARGV[1]
if not ours(w, ARGV[2], ARGV[3]) then return 0 end
local now = now_ms()
local v = redis.call('HGET', KEYS[2], w)
if expiry(v) >= now then redis.call('HSET', KEYS[2], w, ARGV[2] .. ':' .. fmt(now - 1)) end
return 1
"""
)

REPAIR = (
    _PRELUDE
    + """
-- ARGV: worker, owner, epoch, acknowledged ceiling, incarnation.
-- After the store restarted under a holder: put back the ceiling the holder had
-- acknowledged (a restart may have lost the last writes) and give the lease up.
local inc = redis.call('HGET', KEYS[1], 'incarnation')
if inc ~= ARGV[5] then return {'lost'} end
local w = ARGV[1]
local raw = redis.call('HGET', KEYS[3], w)
local old = tonumber(raw) or 0
if old < tonumber(ARGV[4]) then redis.call('HSET', KEYS[3], w, ARGV[4]) end
if ours(w, ARGV[2], ARGV[3]) then
  redis.call('HSET', KEYS[2], w, ARGV[2] .. ':' .. fmt(now_ms() - 1))
end
return {'ok', as_written(raw, old)}
"""
)


@dataclass(frozen=True, slots=True)
class Keys:
    """The key names for a prefix: ``{prefix}:meta`` and so on (one hash tag)."""

    prefix: str

    @property
    def all(self) -> list[str]:
        return [
            f"{{{self.prefix}}}:{name}" for name in ("meta", "lease", "ceiling", "epoch", "info")
        ]
