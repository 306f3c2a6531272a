--[[ configure: writes the limits and priorities (fields of the state hash) (the last instance to configure wins: all instances
sharing a prefix must use the same options), registers the calling instance's heartbeat, and grants
what the new limits allow. Also the first call of an instance and its call after a reconnection.
Recovery: the state hash carries an epoch (`ep`, "<Redis ms>-<instance>") written when the state is
created. A caller that knew an epoch (or runs tasks Redis must learn of) and finds no state at all sees
that Redis lost it (a restart or flush): the running tasks of every live instance are unknown until each
re-registers them (adopt.lua), so grants are held (`rec`: until now + leaseMs) and instances only queue.
A caller that knew another epoch finds the state re-created by an instance that had not known the old
one: grants are held until that epoch is leaseMs old. Re-registering is never refused or limited.
Each instance that was live before the loss passes how many instances it last saw live; the most any of
them saw (`rex`) is how many must check in (back: a SET of their ids) for the recovery to end before its
time: an instance checks in here when it runs nothing, or with its re-registered tasks (adopt.lua), and
only while its own heartbeat is current (renewed within leaseMs): one whose heartbeat had lapsed before
the loss was not in anyone's count and must not stand in for one that was.
KEYS: 1 state, 2 tw, 3 leases, 4 instances
ARGV: 1 prefix, 2 instance id, 3 now for aging ("" = Redis TIME), 4 configuration JSON
      { max, mq, p: [{ n, w, r, m, q, a }], ad, bk, td, mt, fa, ow, tq: { tenant: quota }, pe, pm } (-1 =
      Infinity; ad = 1 for an adaptive limit, which keeps a global limit set by limit.lua; pe: priority
      -> the priorities it preempts, pm: priority -> maxPerTask, only while some priority preempts), written as
      fields of the state hash and the `tq` hash (see keys.ts, quotas.lua), 5 leaseMs of the instance, 6 the epoch the instance last saw ("" = none), 7 "1" when the
      instance runs tasks that it will re-register, else "0", 8 "1" when its heartbeat is current, else
      "0", 9 how many instances it last saw live ("0" = unknown), 10.. tenant, weight pairs
Returns: { 0, counts, granted ids of the calling instance, { epoch }, instances live now }
]]
--@include lib
local config = cjson.decode(ARGV[4])
local lease, known, runs = tonumber(ARGV[5]), ARGV[6], ARGV[7] == "1"
local current, saw = ARGV[8] == "1", tonumber(ARGV[9])

-- Grants wait until `until_ms` (Redis time), unless they already wait longer.
local function hold_until(until_ms)
  local held = tonumber(redis.call("HGET", K_STATE, "rec")) or 0
  if until_ms > LEASE_NOW and until_ms > held then redis.call("HSET", K_STATE, "rec", until_ms) end
end

local epoch = redis.call("HGET", K_STATE, "ep")
if not epoch then
  epoch = LEASE_NOW .. "-" .. ME
  redis.call("HSET", K_STATE, "ep", epoch)
  if known ~= "" or runs then hold_until(LEASE_NOW + lease) end
elseif known ~= epoch and (known ~= "" or runs) then
  hold_until(tonumber(string.match(epoch, "^(%d+)")) + lease)
end
-- A caller that was live before the loss says how many instances were.
local lost_state = known ~= "" and known ~= epoch
if lost_state and redis.call("HEXISTS", K_STATE, "rec") == 1 then
  local expected = tonumber(redis.call("HGET", K_STATE, "rex")) or 0
  if saw > expected then redis.call("HSET", K_STATE, "rex", saw) end
end
-- The configuration before this call (`cf`, see config_of in base.lua; {} when there was none).
local before = redis.call("HGET", K_STATE, "cf")
if before then before = config_of(before) else before = {} end
local was_tokens, had_books = before.fa == "1", before.bk == "1"
-- The state of a layout before 3 kept the configuration as fields of its own: they go.
local old = redis.call("HGET", K_STATE, "pn")
if old then
  local legacy = { "pn", "mq", "bk", "td", "mt", "fa", "ow", "twn", "tqn" }
  for i = 1, tonumber(old) do
    local name = redis.call("HGET", K_STATE, "pn|" .. i)
    legacy[#legacy + 1] = "pn|" .. i
    if name then
      for _, kind in ipairs({ "cw|", "cr|", "cm|", "cq|", "ca|" }) do legacy[#legacy + 1] = kind .. name end
    end
  end
  in_chunks("HDEL", K_STATE, legacy)
end
-- An adaptive limit (config.ad) that limit.lua has changed (`le`) is kept: it is global, not this caller's.
local max = config.max
if config.ad == 1 and redis.call("HEXISTS", K_STATE, "le") == 1 then max = tonumber(redis.call("HGET", K_STATE, "max")) or max end
-- Which priorities aged before this call (their arrival order exists), for build_ages() below.
local aged_before = {}
for _, p in ipairs(config.p) do
  aged_before[p.n] = (tonumber(before["ca|" .. p.n]) or -1) >= 0
end
redis.call("DEL", K_TQUOTA)
local quotas = {}
for tenant, quota in pairs(config.tq) do
  quotas[#quotas + 1] = tenant
  quotas[#quotas + 1] = quota
end
hset_all(K_TQUOTA, quotas)
-- The configuration, every value a string as a hash field's would be, packed into the one field `cf`.
local cf = {
  mq = num(config.mq), pn = num(#config.p), bk = config.bk, td = config.td, mt = num(config.mt), fa = config.fa,
  ow = num(config.ow), twn = num((#ARGV - 9) / 2), tqn = num(#quotas / 2),
}
-- Preemption (preempt.lua): priority -> the priorities it preempts, and priority -> maxPerTask.
if config.pe ~= nil then cf.pe, cf.pm = config.pe, config.pm end
for i, p in ipairs(config.p) do
  cf["pn|" .. i] = p.n
  cf["cw|" .. p.n], cf["cr|" .. p.n], cf["cm|" .. p.n] = num(p.w), num(p.r), num(p.m)
  cf["cq|" .. p.n], cf["ca|" .. p.n] = num(p.q), num(p.a)
end
redis.call("HSET", K_STATE, "lv", LAYOUT, "max", max, "cf", cjson.encode(cf))
if config.bk ~= "1" then redis.call("DEL", K_TBOOKS, K_TIDLE) end
redis.call("DEL", K_TW)
for i = 10, #ARGV, 2 do
  redis.call("HSET", K_TW, ARGV[i], ARGV[i + 1])
end
register(lease)
begin()

-- A priority keeps its arrival order only while it ages (see keeps_ages in ring.lua). Aging turned on
-- builds it from the priority's waiting tickets (each is in its instance's owned set, and its record
-- carries its arrival number); aging off drops it.
local function build_ages(lane)
  local key = PREFIX .. "age:" .. lane.name
  redis.call("DEL", key)
  if lane.queued == 0 then return end
  for _, instance in ipairs(redis.call("ZRANGE", K_INSTANCES, 0, -1)) do
    for _, id in ipairs(redis.call("SMEMBERS", PREFIX .. "owned:" .. instance)) do
      local t = ticket(id)
      if t ~= nil and t.p == lane.name and not leased(id) then redis.call("ZADD", key, t.seq, id) end
    end
  end
end
for _, lane in ipairs(LANES) do
  if lane.conf.a < 0 then
    redis.call("DEL", PREFIX .. "age:" .. lane.name)
  elseif not aged_before[lane.name] then
    build_ages(lane)
  end
end

-- The tenants taking turns in a priority under one fairness rule.
local function members(lane, tokens)
  if tokens then return redis.call("ZRANGE", heap_key(lane), 0, -1) end
  local list, first = {}, lane.cursor
  if first == "" then return list end
  local tenant = first
  repeat
    list[#list + 1] = tenant
    tenant = rget(lane, "n:" .. tenant)
  until tenant == first
  return list
end

-- A new fairness rule: every waiting tenant leaves the turns under the old one and joins the new.
local now_tokens = fair_tokens()
if now_tokens ~= was_tokens then
  for _, lane in ipairs(LANES) do
    qconf().tokens = was_tokens
    local list = members(lane, was_tokens)
    for _, tenant in ipairs(list) do leave(lane, tenant) end
    qconf().tokens = now_tokens
    for _, tenant in ipairs(list) do join(lane, tenant) end
  end
end
-- New quotas apply to the tenants with books at once: buckets clipped, caps park or bring back.
if had_books and keeps_books() then
  local tenants = redis.call("HKEYS", K_TBOOKS)
  for _, tenant in ipairs(tenants) do reconfigure_book(tenant) end
  for _, tenant in ipairs(tenants) do check_cap(tenant) end
end
if lost_state and current and not runs then check_in() end
upkeep()
pump()
return { 0, finish(), MINE, { epoch }, live_count() }
