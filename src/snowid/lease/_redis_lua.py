"""The Lua scripts of the Redis lease store: set-up, claim, renew, release, repair.

Each lease operation is ONE script, which Redis runs atomically, so a script's reads and
writes are a compare-and-set. Every script takes the same five keys (``Keys.all``), all
under one hash tag so a Redis Cluster keeps them in one slot, and none of them ever has
a TTL (no eviction policy of the ``volatile-*`` kind can touch them):

- ``meta``     hash: ``incarnation`` (a UUID made when the store is set up), ``layout``,
               ``created_ms``, ``format`` (STORE_FORMAT; absent on a store made before
               formats were recorded), and ``removed:W`` for each worker ``W`` whose
               records were found deleted and rewritten: the ceiling it was given then
               (a holder whose acknowledged ceiling is not above it had its record
               removed, rather than taken over);
- ``lease``    hash: worker -> ``owner:expires_ms`` (the expiry is a number compared with
               the store's ``TIME``, not a key TTL);
- ``ceiling``  hash: worker -> the highest ceiling ever granted (only rises);
- ``epoch``    hash: worker -> claims so far (the fencing token);
- ``info``     hash: worker -> ``claimed_ms holder`` (for ``snowid lease status``);
- ``handover`` hash (the sixth key, ``Keys.handover``): worker -> ``epoch:floor`` written
               by each claim (the grant starts at floor + 1), and, after a clean release,
               ``epoch:floor:ceiling:mark`` (see ``RELEASE_MARK``). A claim starts at
               mark + 1 only while epoch and ceiling are still the worker's; ``VOID_MARKS``
               deletes the hash (every claim then starts above its ceiling).

From format 2 on, set-up writes the lease, ceiling and epoch entry of every worker, so an
entry found missing was deleted (DEL of a hash, HDEL of a field), never "not claimed
yet": whichever script finds it (claim, renewal, set-up) rewrites the worker's entries
with its ceiling raised to at least store-now + the quarantine, and the holder it was
deleted under, if any, is told its record was removed. On an older store (no ``format``)
that cannot be told, so claim and renewal write nothing there and answer ``outdated``;
set-up upgrades it: every worker without all its entries is rewritten as deleted, and
every other ceiling raised to at least store-now + the quarantine (a ceiling there may
have been computed by an older snowid from a deleted one read as 0).

Times are Unix milliseconds from the store's ``TIME``; numbers cross the script boundary
as decimal strings (``%d``), never through Lua's ``tostring`` (which turns large numbers
into exponents).
"""

from __future__ import annotations

from dataclasses import dataclass

from snowid.ids import TWITTER
from snowid.lease._storeops import STORE_FORMAT

__all__ = [
    "CLAIM", "INIT", "QUARANTINE", "RELEASE", "RELEASE_MARK", "RENEW", "REPAIR", "VOID_MARKS", "Keys",
]  # fmt: skip

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
local FORMAT = STORE_FORMAT
local function current()  -- the store keeps every worker's entries (format 2 or later)
  return (tonumber(redis.call('HGET', KEYS[1], 'format')) or 1) >= FORMAT
end
local function raise_to(w, floor)  -- w's ceiling to at least floor (never lowered)
  local c = tonumber(redis.call('HGET', KEYS[3], w)) or 0
  if c < floor then redis.call('HSET', KEYS[3], w, fmt(floor)) end
end
local function whole(w)
  return redis.call('HEXISTS', KEYS[2], w) == 1 and redis.call('HEXISTS', KEYS[3], w) == 1
    and redis.call('HEXISTS', KEYS[4], w) == 1
end
-- Worker w's entries were (partly) deleted, maybe under a holder still issuing up to its
-- acknowledged ceiling (at most store-now + span + max_skew): raise its ceiling to at
-- least now + q (q = ttl + span + max_skew, as set-up), free it, keep or restart its epoch,
-- and mark it removed at that ceiling for its holder's next renewal. The new ceiling.
local function repair(w, now, q)
  local raw = redis.call('HGET', KEYS[3], w)
  local c = tonumber(raw) or 0
  if c < now + q then
    raw = fmt(now + q)
    redis.call('HSET', KEYS[3], w, raw)
  end
  redis.call('HSET', KEYS[2], w, ':0')
  redis.call('HSETNX', KEYS[4], w, '0')
  redis.call('HSET', KEYS[1], 'removed:' .. w, raw)
  return raw
end
-- The server's history identity: its replication id, new at a promotion (the old one is
-- kept as master_replid2 then) and at a restart (docs/leases.md, "A store that failed over").
local function replid()
  return string.match(redis.call('INFO', 'replication'), 'master_replid:(%x+)') or ''
end
""".replace("STORE_FORMAT", str(STORE_FORMAT))

INIT = (
    _PRELUDE
    + """
-- ARGV: quarantine_ms (-1: none, a first deployment), new incarnation, layout, and the
-- quarantine of a record found deleted. Reply: incarnation, created, upgraded, then the
-- workers whose deleted records were rewritten.
local inc = redis.call('HGET', KEYS[1], 'incarnation')
local now = now_ms()
if inc then
  -- Set up before: rewrite what was deleted since. On an older format a missing entry
  -- may also be a worker never claimed under a first deployment; it cannot be told from
  -- a deleted one, so it is treated as deleted. And every other ceiling is raised too:
  -- an older snowid reads a deleted ceiling as 0 and grants from there, so a ceiling on
  -- an older store may lie below what one of its holders still issues.
  local upgraded = not current()
  local q = tonumber(ARGV[4])
  local repaired = {}
  for w = 0, MAX_WORKER do
    if not whole(w) then
      repair(w, now, q)
      repaired[#repaired + 1] = w
    elseif upgraded then
      raise_to(w, now + q)
    end
  end
  if upgraded then redis.call('HSET', KEYS[1], 'format', fmt(FORMAT)) end
  redis.call('HSETNX', KEYS[1], 'history', replid())  -- set up by an older snowid: adopted
  return {inc, 0, upgraded and 1 or 0, unpack(repaired)}
end
local q = tonumber(ARGV[1])
-- A store without meta is new or was wiped: holders of a lost earlier store may still
-- issue up to their ceilings, so no claim may start before now + quarantine. Every
-- worker gets its entries (a holder's are kept: it fails on the new incarnation).
local floor = q >= 0 and now + q or 0
redis.call('DEL', KEYS[6])  -- no release mark outlives the store it was written in
for w = 0, MAX_WORKER do
  local c = tonumber(redis.call('HGET', KEYS[3], w))
  if not c or c < floor then redis.call('HSET', KEYS[3], w, fmt(math.max(c or 0, floor))) end
  redis.call('HSETNX', KEYS[2], w, ':0')
  redis.call('HSETNX', KEYS[4], w, '0')
end
redis.call('HSET', KEYS[1], 'incarnation', ARGV[2], 'layout', ARGV[3], 'created_ms', fmt(now),
  'format', fmt(FORMAT), 'history', replid())
return {ARGV[2], 1, 0}
""".replace("MAX_WORKER", str(TWITTER.max_worker))  # the layout's number, not a literal
)

CLAIM = (
    _PRELUDE
    + """
-- ARGV: first, last, owner, ttl_ms, caller_ms, max_skew_ms, span_ms, holder, quarantine_ms
-- Reply: 'ok', worker, old ceiling, ceiling, epoch, incarnation, then the workers in range
-- whose deleted entries were rewritten ('full', 'missing' or 'outdated' alone otherwise:
-- on an older store a missing entry cannot be told from an unused one, so nothing is
-- claimed there before set-up upgrades it).
local inc = redis.call('HGET', KEYS[1], 'incarnation')
if not inc then return {'missing'} end
if not current() then return {'outdated'} end
-- Claimed only on the history the store last granted under (none recorded: adopted).
local history = replid()
local recorded = redis.call('HGET', KEYS[1], 'history')
if not recorded then
  redis.call('HSET', KEYS[1], 'history', history)
elseif recorded ~= history then
  return {'history', recorded, history}
end
local until_ms = redis.call('HGET', KEYS[1], 'quarantine_until_ms') or ''
local first, last = tonumber(ARGV[1]), tonumber(ARGV[2])
local leases, ceilings, epochs = {}, {}, {}
local marks = {}
local tables = {{KEYS[2], leases}, {KEYS[3], ceilings}, {KEYS[4], epochs}, {KEYS[6], marks}}
if last - first < 64 then
  local fields = {}
  for w = first, last do fields[#fields + 1] = tostring(w) end
  for _, pair in ipairs(tables) do
    local got = redis.call('HMGET', pair[1], unpack(fields))
    for i, w in ipairs(fields) do pair[2][w] = got[i] end
  end
else
  -- A wide range: HGETALLs cost less than HMGETs with hundreds of arguments.
  for _, pair in ipairs(tables) do
    local flat = redis.call('HGETALL', pair[1])
    for i = 1, #flat, 2 do pair[2][flat[i]] = flat[i + 1] end
  end
end
local now = now_ms()
local repaired = {}
for w = first, last do
  local key = tostring(w)
  if not (leases[key] and ceilings[key] and epochs[key]) then
    leases[key], ceilings[key] = ':0', repair(w, now, tonumber(ARGV[9]))
    repaired[#repaired + 1] = w
  end
end
-- Where a claim of w starts, minus 1: the mark of a clean release while its epoch and
-- ceiling are still w's (a renewal, a quarantine, a repair or a claim since voids it),
-- else the ceiling.
local function floor_of(key)
  local e, _, c, m = string.match(marks[key] or '', '^(%d+):(%d+):(%d+):(%d+)$')
  if m and e == epochs[key] and c == ceilings[key] then return tonumber(m), m end
  return tonumber(ceilings[key]) or 0, ceilings[key]
end
-- Lowest start first: the successor most likely to start at once.
local pick, start, start_raw = -1, 0, ''
for w = first, last do
  local key = tostring(w)
  if expiry(leases[key]) < now then
    local f, f_raw = floor_of(key)
    if pick < 0 or f < start then pick, start, start_raw = w, f, f_raw end
  end
end
if pick < 0 then return {'full'} end
local raw = ceilings[tostring(pick)]
local old = tonumber(raw) or 0
local epoch = redis.call('HINCRBY', KEYS[4], pick, 1)
redis.call('HSET', KEYS[6], pick, fmt(epoch) .. ':' .. start_raw)
redis.call('HSET', KEYS[2], pick, ARGV[3] .. ':' .. fmt(now + tonumber(ARGV[4])))
redis.call('HSET', KEYS[5], pick, fmt(now) .. ' ' .. ARGV[8])
if old >= EXACT then
  return {'ok', pick, start_raw, raw, epoch, inc, history, until_ms, unpack(repaired)}
end
-- A caller clock far ahead cannot push the ceiling beyond the store's clock + max_skew.
-- A span above where the grant starts (never below the stored ceiling): a claim given back
-- unused (its start too far ahead) and retried raises the ceiling once, not a span at each
-- try, which a quarantine's voided marks would then expose as the next start.
local proposal = math.min(tonumber(ARGV[5]), now + tonumber(ARGV[6]))
local ceiling = math.max(old, math.max(start, proposal) + tonumber(ARGV[7]))
redis.call('HSET', KEYS[3], pick, fmt(ceiling))
return {'ok', pick, fmt(start), fmt(ceiling), epoch, inc, history, until_ms, unpack(repaired)}
"""
)

RENEW = (
    _PRELUDE
    + """
-- ARGV: worker, owner, epoch, ttl_ms, caller_ms, span_ms, max_skew_ms, incarnation,
-- acknowledged ceiling, quarantine_ms, the history the holder claimed under
local inc = redis.call('HGET', KEYS[1], 'incarnation')
if not inc then return {'missing'} end
local w = ARGV[1]
if inc ~= ARGV[8] then return {'lost'} end
if ARGV[11] ~= '' and replid() ~= ARGV[11] then return {'lost'} end  -- failed over
if not current() then return {'outdated'} end  -- nothing written (see CLAIM)
local now = now_ms()
if not whole(w) then
  repair(w, now, tonumber(ARGV[10]))
  return {'removed'}
end
if not ours(w, ARGV[2], ARGV[3]) then
  -- Removed (and rewritten: no owner, or marked after this holder's last acknowledged
  -- ceiling), edited, or taken over. A claim always writes a new owner AND a higher
  -- epoch: a kept owner or a kept epoch is an edit.
  local owner = owner_of(redis.call('HGET', KEYS[2], w))
  local mark = tonumber(redis.call('HGET', KEYS[1], 'removed:' .. w))
  if owner == '' or (mark and mark >= tonumber(ARGV[9])) then return {'removed'} end
  if owner == ARGV[2] or redis.call('HGET', KEYS[4], w) == ARGV[3] then return {'modified'} end
  return {'lost'}
end
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

RELEASE_MARK = (
    _PRELUDE
    + """
-- ARGV: worker, owner, epoch, mark. The clean release: expire the lease now and record
-- the mark (never below the grant's floor, the previous holder's ceiling) with the epoch
-- and the ceiling it belongs to; the ceiling stays. 0: nothing written (taken over, no
-- floor recorded by this epoch's claim, or a mark above the ceiling).
local w = ARGV[1]
if not ours(w, ARGV[2], ARGV[3]) then return 0 end
local e, f = string.match(redis.call('HGET', KEYS[6], w) or '', '^(%d+):(%d+)')
if e ~= ARGV[3] then return 0 end
local c_raw = redis.call('HGET', KEYS[3], w)
local c = tonumber(c_raw)
local mark = math.max(tonumber(ARGV[4]), tonumber(f))
if not c or c >= EXACT or mark > c then return 0 end
redis.call('HSET', KEYS[2], w, ARGV[2] .. ':' .. fmt(now_ms() - 1))
redis.call('HSET', KEYS[6], w, e .. ':' .. f .. ':' .. c_raw .. ':' .. fmt(mark))
return 1
"""
)

VOID_MARKS = """
-- Void every release mark (the claim records go too: a holder's release then carries no
-- mark). The number of records deleted.
local n = redis.call('HLEN', KEYS[6])
redis.call('DEL', KEYS[6])
return n
"""

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

QUARANTINE = (
    _PRELUDE
    + """
-- ARGV: quarantine_ms, ttl_ms. Only while the recorded history is not the server's: every
-- ceiling raised to at least max(store-now, the last renewal recorded) + quarantine_ms,
-- every lease freed, the server's history recorded with the quarantine (a release mark,
-- where one is kept, is void from here on). Reply: seen, found, at_ms, until_ms, done here.
local history = replid()
local recorded = redis.call('HGET', KEYS[1], 'history')
if recorded == history then
  local q = redis.call('HMGET', KEYS[1], 'quarantine_seen', 'history', 'quarantine_at_ms',
    'quarantine_until_ms')
  return {q[1] or '', q[2] or '', q[3] or '0', q[4] or '0', 0}
end
local now = now_ms()
local ttl = tonumber(ARGV[2])
local floor = now
local leases = redis.call('HGETALL', KEYS[2])
for i = 1, #leases, 2 do
  local renewed = expiry(leases[i + 1]) - ttl
  if renewed > floor then floor = renewed end
end
local until_ms = floor + tonumber(ARGV[1])
for w = 0, MAX_WORKER do
  raise_to(w, until_ms)
  local v = redis.call('HGET', KEYS[2], w)
  if v and expiry(v) >= now then
    redis.call('HSET', KEYS[2], w, owner_of(v) .. ':' .. fmt(now - 1))
  end
end
if KEYS[6] then redis.call('DEL', KEYS[6]) end  -- every claim floor and release mark void
redis.call('HSET', KEYS[1], 'history', history, 'quarantine_seen', recorded or '',
  'quarantine_at_ms', fmt(now), 'quarantine_until_ms', fmt(until_ms))
return {recorded or '', history, fmt(now), fmt(until_ms), 1}
""".replace("MAX_WORKER", str(TWITTER.max_worker))
)


@dataclass(frozen=True, slots=True)
class Keys:
    """The key names for a prefix: ``{prefix}:meta`` and so on (one hash tag)."""

    prefix: str

    @property
    def handover(self) -> str:
        """The hash of claim floors and release marks (the scripts' sixth key)."""
        return f"{{{self.prefix}}}:handover"

    @property
    def scripts(self) -> list[str]:
        """The keys every script is given: ``all`` and ``handover``."""
        return [*self.all, self.handover]

    @property
    def all(self) -> list[str]:
        return [
            f"{{{self.prefix}}}:{name}" for name in ("meta", "lease", "ceiling", "epoch", "info")
        ]
