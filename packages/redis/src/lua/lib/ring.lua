-- Tenant turns within one priority (deficit round robin), the same rule as core's memory/lane.ts:
-- a ring of tenants with waiting tickets; the turn holder earns its weight in credit when the turn
-- arrives, a start costs one credit, the turn moves on when credit < 1 or the tenant's queue empties;
-- a tenant that starts waiting joins just before the turn holder (at the end of the round).
local function qkey(lane, tenant)
  return PREFIX .. "q:" .. string.len(lane.name) .. ":" .. lane.name .. ":" .. tenant
end

local function rkey(lane)
  return PREFIX .. "ring:" .. lane.name
end

local function weight(tenant)
  local w = WEIGHTS[tenant]
  if w == nil then
    w = tonumber(redis.call("HGET", K_TW, tenant)) or 1
    WEIGHTS[tenant] = w
  end
  return w
end

-- The turn reaches `tenant`: it earns its weight; tenants still short of one start are passed over.
local function arrive(lane, tenant)
  local rk = rkey(lane)
  local current = tenant
  local credit = tonumber(redis.call("HGET", rk, "c:" .. current)) + weight(current)
  while credit < 1 do
    redis.call("HSET", rk, "c:" .. current, num(credit))
    current = redis.call("HGET", rk, "n:" .. current)
    credit = tonumber(redis.call("HGET", rk, "c:" .. current)) + weight(current)
  end
  redis.call("HSET", rk, "c:" .. current, num(credit))
  lane.cursor = current
end

local function join(lane, tenant)
  local rk = rkey(lane)
  local cursor = lane.cursor
  if cursor == "" then
    redis.call("HSET", rk, "n:" .. tenant, tenant, "p:" .. tenant, tenant, "c:" .. tenant, "0")
    arrive(lane, tenant)
    return
  end
  local before = redis.call("HGET", rk, "p:" .. cursor)
  redis.call("HSET", rk, "n:" .. tenant, cursor, "p:" .. tenant, before, "c:" .. tenant, "0")
  redis.call("HSET", rk, "n:" .. before, tenant)
  redis.call("HSET", rk, "p:" .. cursor, tenant)
end

local function leave(lane, tenant)
  local rk = rkey(lane)
  local links = redis.call("HMGET", rk, "n:" .. tenant, "p:" .. tenant)
  local after, before = links[1], links[2]
  redis.call("HSET", rk, "n:" .. before, after)
  redis.call("HSET", rk, "p:" .. after, before)
  redis.call("HDEL", rk, "n:" .. tenant, "p:" .. tenant, "c:" .. tenant)
  if lane.cursor == tenant then
    lane.cursor = ""
    if after ~= tenant then arrive(lane, after) end
  end
end

-- Queues a ticket: FIFO per tenant, a retry at the front of its tenant's queue; every ticket also
-- joins its priority's arrival order (for aging).
local function push(lane, id, tenant, retry)
  G.seq = G.seq + 1
  local qk = qkey(lane, tenant)
  local position = G.seq
  if retry then position = -G.seq end
  redis.call("ZADD", qk, position, id)
  redis.call("ZADD", PREFIX .. "age:" .. lane.name, G.seq, id)
  lane.queued = lane.queued + 1
  G.queued = G.queued + 1
  if redis.call("ZCARD", qk) == 1 then join(lane, tenant) end
end

-- Takes a waiting ticket out of its tenant's queue and the arrival order.
local function unqueue(lane, id, tenant)
  local qk = qkey(lane, tenant)
  redis.call("ZREM", qk, id)
  redis.call("ZREM", PREFIX .. "age:" .. lane.name, id)
  redis.call("SREM", PREFIX .. "owned:" .. owner_of(id), id)
  lane.queued = lane.queued - 1
  G.queued = G.queued - 1
  if redis.call("ZCARD", qk) == 0 then leave(lane, tenant) end
end

local function head(lane, tenant)
  return redis.call("ZRANGE", qkey(lane, tenant), 0, 0)[1]
end

-- Starts the turn holder's first ticket; moves the turn on when its credit is used up.
local function take_next(lane)
  local tenant = lane.cursor
  local rk = rkey(lane)
  local credit = tonumber(redis.call("HGET", rk, "c:" .. tenant)) - 1
  redis.call("HSET", rk, "c:" .. tenant, num(credit))
  local id = head(lane, tenant)
  unqueue(lane, id, tenant)
  if credit < 1 and redis.call("HEXISTS", rk, "n:" .. tenant) == 1 then
    arrive(lane, redis.call("HGET", rk, "n:" .. tenant))
  end
  return id
end
