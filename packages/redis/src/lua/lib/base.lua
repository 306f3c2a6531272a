-- Shared by every script (included in this order: base, quotas, fair, ring, upkeep, pick, finish, ops).
-- Conventions: KEYS[1..4] = state, tw, leases, instances (see keys.ts);
-- ARGV[1] = key prefix, ARGV[2] = calling instance id, ARGV[3] = "now" for aging by the
-- scheduler's clock, or "" to use Redis TIME. Leases and heartbeats always use Redis TIME.
-- The library is defined once per Redis Function library (FUNCTION LOAD) and its functions serve every
-- call, so what one call sees lives in the locals below, set afresh by reset() at the start of each
-- call: no other file may keep per-call state in a top-level local (scripts.test.ts checks this).

-- Numbers are written with 17 significant digits so that pass, credit and time values read back as
-- the same doubles the in-memory store computes.
local function num(x)
  return string.format("%.17g", x)
end

-- One command over many values (HSET field, value pairs; SADD, SREM, HDEL members) in chunks: one
-- unpack() holds a few thousand values at most.
local function in_chunks(command, key, values)
  for i = 1, #values, 500 do redis.call(command, key, unpack(values, i, math.min(i + 499, #values))) end
end

local function hset_all(key, flat)
  in_chunks("HSET", key, flat)
end

-- The key layout's version (`lv` in the state hash, see keys.ts LAYOUT_VERSION): written by configure;
-- a call that finds another refuses to run, so that instances of two layouts never share the keys.
local LAYOUT = 5

local PREFIX, ME
local K_STATE, K_TW, K_LEASES, K_INSTANCES
local LEASE_NOW, NOW
local CFG, G
-- True while grants are held after Redis lost its state (see configure.lua): until `rec` (Redis time).
local RECOVERING
local S           -- the state hash as read: field -> value
local LANES       -- configured priorities, in configuration order
local BY_NAME     -- every lane touched by this call, configured or not
local MINE        -- ids granted to the calling instance, in grant order
local OTHERS      -- instance -> ids granted to it
local OTHER_ORDER
local TICKETS
local WEIGHTS
local LIVE
-- Tenant quotas (quotas.lua): the keys of the quota configuration, the tenants' books and the idle
-- tenants; the quotas as read, each tenant's books as read or created in this call, in first-use order;
-- and the quota configuration, read on first use.
local K_TQUOTA, K_TBOOKS, K_TIDLE
local QUOTAS, BOOKS, BOOK_ORDER
local Q
-- The changes to the instances' owned sets (owner -> id -> true when queued, false when no longer),
-- written once per owner by finish().
local OWNED
-- The leases this call granted (id -> expiry, and their order), written in one ZADD by finish().
local GRANTED, GRANT_ORDER
-- Preemption (preempt.lua): the victim's slot was freed in this call and waits for its arrival
-- (HANDOVER); the owed arrivals may choose their victims at the end of the call (NEXT_OWED); the
-- victims' instances to tell, by pub/sub in finish() (NOTICES: owner -> messages).
local HANDOVER, NEXT_OWED, NOTICES

-- Starts a call: its arguments, Redis TIME, and nothing remembered from an earlier call.
local function reset()
  PREFIX, ME = ARGV[1], ARGV[2]
  K_STATE, K_TW, K_LEASES, K_INSTANCES = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
  local clock = redis.call("TIME")
  LEASE_NOW = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
  NOW = LEASE_NOW
  if ARGV[3] ~= "" then NOW = tonumber(ARGV[3]) end
  CFG, G, RECOVERING = nil, nil, false
  S, LANES, BY_NAME, MINE, OTHERS, OTHER_ORDER = {}, {}, {}, {}, {}, {}
  TICKETS, WEIGHTS, LIVE = {}, {}, {}
  K_TQUOTA, K_TBOOKS, K_TIDLE = PREFIX .. "tq", PREFIX .. "tn", PREFIX .. "ti"
  QUOTAS, BOOKS, BOOK_ORDER, Q = {}, {}, {}, nil
  OWNED, GRANTED, GRANT_ORDER = {}, {}, {}
  HANDOVER, NEXT_OWED, NOTICES = false, false, {}
end

-- A priority's counters live in the state hash as p|name (stride pass), q|name (queued),
-- r|name (running), l|name (time of its last start, for aging), n|name (starts so far, for the drain
-- rate) and c|name (the tenant whose turn it is); its configuration as cw|name (weight),
-- cr|name (reserved), cm|name (maxConcurrency), cq|name (maxQueue, -1 = none) and ca|name (maxWaitMs,
-- -1 = no aging). `max`, `mq` are the totals' limits; `pn` and pn|1.. list the priorities in order.
-- `read` keeps the counters as Redis held them, so that finish() writes back only the ones that
-- changed (or were missing): every value passed to a command costs about a microsecond.
local function load_lane(name, configured)
  local pass, queued, running = tonumber(S["p|" .. name]), tonumber(S["q|" .. name]), tonumber(S["r|" .. name])
  local cursor, last, starts = S["c|" .. name], tonumber(S["l|" .. name]), tonumber(S["n|" .. name])
  local lane = {
    name = name, pass = pass or 0, queued = queued or 0, running = running or 0, cursor = cursor or "",
    ring = {}, dirty = {}, heads = {}, pops = {}, qkeys = {}, last = last, starts = starts or 0,
    read = { pass = pass, queued = queued, running = running, cursor = cursor, last = last, starts = starts },
  }
  if configured then
    lane.conf = {
      w = tonumber(S["cw|" .. name]), r = tonumber(S["cr|" .. name]), m = tonumber(S["cm|" .. name]),
      q = tonumber(S["cq|" .. name]), a = tonumber(S["ca|" .. name]),
    }
  end
  return lane
end

-- The configuration as configure wrote it: the JSON object in the state hash's field `cf` (field ->
-- string, the fields listed in keys.ts), decoded once per change rather than on every call. The one
-- decoded configuration kept between calls is that of the exact text it came from, so it carries
-- nothing of one call into the next.
local CONFIG_TEXT, CONFIG = nil, nil
local function config_of(text)
  if text ~= CONFIG_TEXT then
    CONFIG_TEXT, CONFIG = text, cjson.decode(text)
  end
  return CONFIG
end

-- Reads the configuration, the totals and every lane in one call; false when nothing is configured.
-- The state hash holds the counters and `cf`; the configuration's fields read through S as well.
local function begin()
  local flat = redis.call("HGETALL", K_STATE)
  for i = 1, #flat, 2 do S[flat[i]] = flat[i + 1] end
  if S.lv ~= nil and tonumber(S.lv) ~= LAYOUT then
    error({ err = "ERR llm-scheduler: the keys under this prefix are of layout " .. S.lv .. ", this instance uses " .. LAYOUT .. ": stop the instances of the other version" })
  end
  if S.max == nil or S.cf == nil then return false end
  setmetatable(S, { __index = config_of(S.cf) })
  CFG = { max = tonumber(S.max), mq = tonumber(S.mq) }
  RECOVERING = S.rec ~= nil and tonumber(S.rec) > LEASE_NOW
  G = { running = tonumber(S.running) or 0, queued = tonumber(S.queued) or 0, vt = tonumber(S.vt) or 0, seq = tonumber(S.seq) or 0 }
  for i = 1, tonumber(S.pn) do
    local name = S["pn|" .. i]
    local lane = load_lane(name, true)
    LANES[i] = lane
    BY_NAME[name] = lane
  end
  return true
end

-- A lane by name, also one that is no longer configured (its tickets can still leave or be released).
local function lane_of(name)
  local lane = BY_NAME[name]
  if lane == nil then
    lane = load_lane(name, false)
    BY_NAME[name] = lane
  end
  return lane
end

-- True when an instance's heartbeat is current (it has not died, been purged or been forgotten).
local function alive(instance)
  local live = LIVE[instance]
  if live == nil then
    local expiry = redis.call("ZSCORE", K_INSTANCES, instance)
    live = expiry ~= false and tonumber(expiry) >= LEASE_NOW
    LIVE[instance] = live
  end
  return live
end

local function registered()
  return alive(ME)
end

-- Renews the calling instance's heartbeat.
local function register(lease_ms)
  redis.call("ZADD", K_INSTANCES, LEASE_NOW + lease_ms, ME)
  LIVE[ME] = true
end

-- A tenant's weight (1 unless configured), read on first use in a call; not read at all while no
-- tenant has a weight (`twn`, written by configure, is "0").
local function weight(tenant)
  local w = WEIGHTS[tenant]
  if w == nil then
    w = 1
    if S.twn ~= "0" then w = tonumber(redis.call("HGET", K_TW, tenant)) or 1 end
    WEIGHTS[tenant] = w
  end
  return w
end

local function owner_of(id)
  return string.match(id, "^([^:]+):")
end

-- A ticket's record is a key of its own (a string): reading, writing and deleting one costs the same
-- however many tickets there are (one hash of every ticket, below the server's listpack limits, is a
-- list that every command scans).
local function ticket_key(id)
  return PREFIX .. "tk:" .. id
end

-- A ticket record is a hash of one-letter fields: c (cost), a (arrival time), l (leaseMs), k (tokens),
-- b (1 when its tenant's books count it, see quotas.lua), s (its arrival number while it waits, else 0),
-- p (priority) and t (tenant); `HGETALL <prefix>tk:<id>` shows it. Redis writes a number argument with
-- 17 significant digits, so every double reads back exactly.
local function write_ticket(id, cost, at, lease, p, tenant, tokens, booked, seq)
  local b = 0
  if booked then b = 1 end
  redis.call("HSET", ticket_key(id), "c", cost, "a", at, "l", lease, "k", tokens, "b", b, "s", seq or 0, "p", p, "t", tenant)
end

local function decode_ticket(id, fields)
  local f = {}
  for i = 1, #fields, 2 do f[fields[i]] = fields[i + 1] end
  return {
    id = id, cost = tonumber(f.c), at = tonumber(f.a), lease = tonumber(f.l), tokens = tonumber(f.k),
    booked = f.b == "1", seq = tonumber(f.s), p = f.p, t = f.t,
  }
end

local function ticket(id)
  local t = TICKETS[id]
  if t ~= nil then return t end
  local fields = redis.call("HGETALL", ticket_key(id))
  if #fields == 0 then return nil end
  t = decode_ticket(id, fields)
  TICKETS[id] = t
  return t
end

local function put_ticket(id, cost, at, lease, p, tenant, tokens, booked)
  write_ticket(id, cost, at, lease, p, tenant, tokens, booked)
  TICKETS[id] = {
    id = id, cost = cost, at = at, lease = lease, p = p, t = tenant, tokens = tokens, booked = booked, seq = 0,
  }
end

local function drop_ticket(id)
  redis.call("DEL", ticket_key(id))
  TICKETS[id] = nil
end

-- Deletes a ticket's record and returns it (nil when there was none).
local function take_ticket(id)
  local t = ticket(id)
  if t ~= nil then drop_ticket(id) end
  return t
end

-- A ticket joins (queued true) or leaves (false) its instance's owned set, the list of its queued
-- tickets that the purge of a dead instance goes through. Applied by finish(), one SADD and one SREM
-- per instance and call: a ticket queued and granted in the same call never enters it.
local function own(id, queued)
  local owner = owner_of(id)
  local changes = OWNED[owner]
  if changes == nil then
    changes = {}
    OWNED[owner] = changes
  end
  if not queued and changes[id] then
    changes[id] = nil
  else
    changes[id] = queued
  end
end

local function leased(id)
  local granted = GRANTED[id]
  if granted ~= nil then return granted ~= false end
  return redis.call("ZSCORE", K_LEASES, id) ~= false
end

-- A new lease (the ticket held none): kept in GRANTED (false once ended again) until finish() writes
-- the ones still held in one ZADD.
local function lease_until(id, expiry)
  if GRANTED[id] == nil then GRANT_ORDER[#GRANT_ORDER + 1] = id end
  GRANTED[id] = expiry
end

-- Ends a lease; false when the ticket held none.
local function unlease(id)
  local granted = GRANTED[id]
  if granted ~= nil then
    GRANTED[id] = false
    return granted ~= false
  end
  return redis.call("ZREM", K_LEASES, id) == 1
end
