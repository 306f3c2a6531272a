-- Tenant turns within one priority (deficit round robin), the same rule as core's memory/lane.ts:
-- a ring of tenants with waiting tickets; the turn holder earns its weight in credit when the turn
-- arrives, a start costs one credit, the turn moves on when credit < 1 or the tenant's queue empties;
-- a tenant that starts waiting joins just before the turn holder (at the end of the round).
-- The ring hash (n:<tenant>, p:<tenant> links, c:<tenant> credit) is read through a cache and written
-- back once by finish(); a credit changed in the call is kept as a number until then (one turn sees
-- many starts), and formatted once.
-- A tenant's queue in a priority (see keys.ts); the names are built once per lane and tenant in a call.
local function qkey(lane, tenant)
  local key = lane.qkeys[tenant]
  if key == nil then
    key = PREFIX .. "q:" .. string.len(lane.name) .. ":" .. lane.name .. ":" .. tenant
    lane.qkeys[tenant] = key
  end
  return key
end

local DELETED = {}

-- A ring field ("n:", "p:" or "c:" and a tenant); the first read of a tenant's field reads all three of
-- its fields in one HMGET (the turns move along links and credit together).
local function rget(lane, field)
  local value = lane.ring[field]
  if value == nil then
    local tenant = string.sub(field, 3)
    local fields = { "n:" .. tenant, "p:" .. tenant, "c:" .. tenant }
    local values = redis.call("HMGET", PREFIX .. "ring:" .. lane.name, unpack(fields))
    for i = 1, 3 do
      if lane.ring[fields[i]] == nil then
        local read = values[i]
        if read == false then read = DELETED end
        lane.ring[fields[i]] = read
      end
    end
    value = lane.ring[field]
  end
  if value == DELETED then return nil end
  return value
end

local function rset(lane, field, value)
  lane.ring[field] = value
  lane.dirty[field] = true
end

-- The turn reaches `tenant`: it earns its weight; tenants still short of one start are passed over.
local function arrive(lane, tenant)
  local current = tenant
  local credit = tonumber(rget(lane, "c:" .. current)) + weight(current)
  while credit < 1 do
    rset(lane, "c:" .. current, credit)
    current = rget(lane, "n:" .. current)
    credit = tonumber(rget(lane, "c:" .. current)) + weight(current)
  end
  rset(lane, "c:" .. current, credit)
  lane.cursor = current
end

local function join(lane, tenant)
  if fair_tokens() then return heap_join(lane, tenant) end
  local cursor = lane.cursor
  rset(lane, "c:" .. tenant, "0")
  if cursor == "" then
    rset(lane, "n:" .. tenant, tenant)
    rset(lane, "p:" .. tenant, tenant)
    arrive(lane, tenant)
    return
  end
  local before = rget(lane, "p:" .. cursor)
  rset(lane, "n:" .. tenant, cursor)
  rset(lane, "p:" .. tenant, before)
  rset(lane, "n:" .. before, tenant)
  rset(lane, "p:" .. cursor, tenant)
end

local function leave(lane, tenant)
  if fair_tokens() then return heap_leave(lane, tenant) end
  local after, before = rget(lane, "n:" .. tenant), rget(lane, "p:" .. tenant)
  rset(lane, "n:" .. before, after)
  rset(lane, "p:" .. after, before)
  rset(lane, "n:" .. tenant, DELETED)
  rset(lane, "p:" .. tenant, DELETED)
  rset(lane, "c:" .. tenant, DELETED)
  if lane.cursor == tenant then
    lane.cursor = ""
    if after ~= tenant then arrive(lane, after) end
  end
end

-- True while the tenant takes part in the priority's turns (it waits and is not at its cap).
local function in_turns(lane, tenant)
  if fair_tokens() then return in_heap(lane, tenant) end
  return rget(lane, "n:" .. tenant) ~= nil
end

-- Whether the priority keeps its arrival order (`age:<priority>`): only while it ages (maxWaitMs set;
-- configure.lua builds the order when aging is turned on and drops it when turned off). A priority no
-- longer configured may still have one: its tickets leave it.
local function keeps_ages(lane)
  return lane.conf == nil or lane.conf.a >= 0
end

-- A tenant's queue is a LIST: appending and taking the head cost the same however long it is. Its
-- front is read HEAD_READ ids at a time (and one more, to know whether it empties), and the heads
-- started in a call leave Redis in one LPOP at its end, or before anything else changes the front.
local HEAD_READ = 8

-- Removes from Redis the heads of the tenant's queue that this call started.
local function pop_started(lane, tenant)
  local count = lane.pops[tenant]
  if count ~= nil then
    lane.pops[tenant] = nil
    redis.call("LPOP", qkey(lane, tenant), count)
  end
end

-- Queues ticket `t` (its arrival number `t.seq` taken from the counter): FIFO per tenant, a retry at
-- the front of its tenant's queue (so retries go newest first, then the others oldest first); with
-- aging, every ticket also joins its priority's arrival order.
local function push(lane, t, retry)
  G.seq = t.seq
  local tenant = t.t
  if retry then
    pop_started(lane, tenant)
    redis.call("LPUSH", qkey(lane, tenant), t.id)
  else
    redis.call("RPUSH", qkey(lane, tenant), t.id)
  end
  lane.heads[tenant] = nil
  if keeps_ages(lane) then redis.call("ZADD", PREFIX .. "age:" .. lane.name, G.seq, t.id) end
  lane.queued = lane.queued + 1
  G.queued = G.queued + 1
  if keeps_books() then
    if not book(tenant, NOW).capped and not in_turns(lane, tenant) then join(lane, tenant) end
  elseif not in_turns(lane, tenant) then
    -- without quotas a tenant takes part in the turns exactly while it has tickets waiting
    join(lane, tenant)
  end
end

-- Takes a waiting ticket out of its tenant's queue (and the arrival order): the head as read by
-- head() (popped later, see pop_started), any other (a cancellation, an aged start) by LREM, which
-- scans the queue up to it.
local function unqueue(lane, id, tenant)
  local qk = qkey(lane, tenant)
  local read = lane.heads[tenant]
  local empty
  if read ~= nil and read.ids[read.taken + 1] == id then
    read.taken = read.taken + 1
    lane.pops[tenant] = (lane.pops[tenant] or 0) + 1
    -- the read went one past what it serves: nothing after the last id read means nothing at all
    empty = read.ids[read.taken + 1] == nil
  else
    pop_started(lane, tenant)
    lane.heads[tenant] = nil
    redis.call("LREM", qk, 1, id)
    empty = redis.call("LLEN", qk) == 0
  end
  if keeps_ages(lane) then redis.call("ZREM", PREFIX .. "age:" .. lane.name, id) end
  own(id, false)
  lane.queued = lane.queued - 1
  G.queued = G.queued - 1
  quota_queue(ticket(id), false)
  if empty and (not keeps_books() or in_turns(lane, tenant)) then leave(lane, tenant) end
end

-- The tenant's first waiting ticket in the priority (nil when none waits), from the ids read ahead.
local function head(lane, tenant)
  local read = lane.heads[tenant]
  if read == nil or read.taken == HEAD_READ then
    local from = lane.pops[tenant] or 0
    read = { ids = redis.call("LRANGE", qkey(lane, tenant), from, from + HEAD_READ), taken = 0 }
    lane.heads[tenant] = read
  end
  return read.ids[read.taken + 1]
end

-- Whose turn it is in the priority ("" when nobody's).
local function turn(lane)
  if fair_tokens() then return heap_top(lane) end
  return lane.cursor
end

-- Starts the turn holder's first ticket `id`; moves the turn on when its credit is used up.
local function take_next(lane, id)
  if fair_tokens() then
    local tenant = heap_top(lane)
    heap_started(lane, tenant)
    return unqueue(lane, id, tenant)
  end
  local tenant = lane.cursor
  local credit = tonumber(rget(lane, "c:" .. tenant)) - 1
  rset(lane, "c:" .. tenant, credit)
  unqueue(lane, id, tenant)
  if credit < 1 and rget(lane, "n:" .. tenant) ~= nil then
    arrive(lane, rget(lane, "n:" .. tenant))
  end
end

-- A tenant at its maxConcurrency leaves the turns of every priority (its tickets stay queued), and
-- comes back (at the end of the round, or lifted to the smallest counter) once below it.
local function check_cap(tenant)
  if not keeps_books() then return end
  local b = book(tenant, NOW)
  local capped = b.running + 1 > b.q.mc
  if capped == b.capped then return end
  b.capped = capped
  b.dirty = true
  for _, lane in ipairs(LANES) do
    if capped then
      if in_turns(lane, tenant) then leave(lane, tenant) end
    elseif not in_turns(lane, tenant) and redis.call("LLEN", qkey(lane, tenant)) > (lane.pops[tenant] or 0) then
      join(lane, tenant)
    end
  end
end
