-- Fairness "tokens" inside one priority, the same rule as core's memory/lane.ts: the waiting tenants
-- (not at their maxConcurrency) are the `th:<priority>` ZSET, scored by weighted tokens served (ties by
-- name); the next start goes to the lowest. Counters of tenants not waiting are kept in the
-- `tc:<priority>` ZSET while above the priority's floor (the counter of the last turn's start), below
-- which a returning tenant would be lifted anyway; a tenant that starts waiting is lifted to the
-- smallest waiting counter (the floor when none waits), so idle time is not banked.

-- At most this many counters of tenants not waiting are kept per priority (the lowest go first: they are
-- the nearest to the lift a returning tenant gets anyway), so one-off tenants do not pile up.
local KEEP_COUNTERS = 10000

-- Keeps `tenant`'s counter among those of tenants not waiting.
local function keep_counter(lane, counter, tenant)
  local key = PREFIX .. "tc:" .. lane.name
  if redis.call("ZADD", key, num(counter), tenant) == 1 then
    local size = redis.call("ZCARD", key)
    if size > KEEP_COUNTERS then redis.call("ZREMRANGEBYRANK", key, 0, size - KEEP_COUNTERS - 1) end
  end
end

local function heap_key(lane)
  return PREFIX .. "th:" .. lane.name
end

local function kept_key(lane)
  return PREFIX .. "tc:" .. lane.name
end

local function floor_of(lane)
  if lane.floor == nil then lane.floor = tonumber(S["fl|" .. lane.name]) or 0 end
  return lane.floor
end

-- The waiting tenant with the fewest tokens served, or "" when none waits; with its counter (the
-- string Redis gave) in lane.top_score. Cached per call until the heap changes.
local function heap_top(lane)
  if lane.top == nil then
    local top = redis.call("ZRANGE", heap_key(lane), 0, 0, "WITHSCORES")
    lane.top, lane.top_score = top[1] or "", top[2]
  end
  return lane.top
end

local function in_heap(lane, tenant)
  return redis.call("ZSCORE", heap_key(lane), tenant) ~= false
end

local function heap_join(lane, tenant)
  local least = redis.call("ZRANGE", heap_key(lane), 0, 0, "WITHSCORES")[2]
  local lift = floor_of(lane)
  if least ~= nil then lift = tonumber(least) end
  local own = tonumber(redis.call("ZSCORE", kept_key(lane), tenant)) or 0
  redis.call("ZREM", kept_key(lane), tenant)
  redis.call("ZADD", heap_key(lane), num(math.max(own, lift)), tenant)
  lane.top = nil
end

local function heap_leave(lane, tenant)
  local counter = tonumber(redis.call("ZSCORE", heap_key(lane), tenant))
  redis.call("ZREM", heap_key(lane), tenant)
  if counter ~= nil and counter >= floor_of(lane) then keep_counter(lane, counter, tenant) end
  lane.top = nil
end

-- The turn's start: the floor becomes its tenant's counter; counters at or below it are forgotten.
local function heap_started(lane, tenant)
  if heap_top(lane) == tenant then
    lane.floor = tonumber(lane.top_score)
  else
    lane.floor = tonumber(redis.call("ZSCORE", heap_key(lane), tenant))
  end
  redis.call("ZREMRANGEBYSCORE", kept_key(lane), "-inf", "(" .. num(lane.floor))
end

-- Counts `tokens` (weighted, may be negative for a correction) as served to `tenant` in `lane`, divided
-- by its weight. A waiting tenant's counter is raised in place (ZADD XX INCR: Redis adds the same
-- doubles the in-memory store does); otherwise its kept counter, if any.
local function heap_charge(lane, tenant, tokens)
  if not fair_tokens() then return end
  local w = weight(tenant)
  if redis.call("ZADD", heap_key(lane), "XX", "INCR", num(tokens / w), tenant) ~= false then
    lane.top = nil
    return
  end
  local counter = (tonumber(redis.call("ZSCORE", kept_key(lane), tenant)) or 0) + tokens / w
  if counter >= floor_of(lane) then
    keep_counter(lane, counter, tenant)
  else
    redis.call("ZREM", kept_key(lane), tenant)
  end
end
