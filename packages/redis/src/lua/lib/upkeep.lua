-- Housekeeping at the start of every script: leases that were not renewed in time (their instance
-- crashed or stalled) give their slots back, and the queued tickets of an instance whose heartbeat
-- lapsed are purged, a bounded batch per call.
local function free(id)
  redis.call("ZREM", K_LEASES, id)
  local t = ticket(id)
  if t == nil then return end
  drop_ticket(id)
  local lane = lane_of(t.p)
  lane.running = lane.running - t.cost
  G.running = G.running - t.cost
end

-- Takes a waiting ticket out for good (cancelled, or its instance is gone).
local function drop_queued(id)
  local t = ticket(id)
  if t == nil or leased(id) then return false end
  unqueue(lane_of(t.p), id, t.t)
  drop_ticket(id)
  return true
end

-- Returns true when a slot was freed or the recovery period ended (the caller then pumps).
local function upkeep()
  local resumed = false
  if S.rec ~= nil and not RECOVERING then
    redis.call("HDEL", K_STATE, "rec")
    S.rec = nil
    resumed = true
  end
  local expired = redis.call("ZRANGEBYSCORE", K_LEASES, "-inf", LEASE_NOW, "LIMIT", 0, 100)
  for _, id in ipairs(expired) do free(id) end
  local dead = redis.call("ZRANGEBYSCORE", K_INSTANCES, "-inf", LEASE_NOW, "LIMIT", 0, 1)[1]
  if dead ~= nil and dead ~= ME then
    local owned = PREFIX .. "owned:" .. dead
    for _, id in ipairs(redis.call("SPOP", owned, 200)) do drop_queued(id) end
    if redis.call("SCARD", owned) == 0 then
      redis.call("ZREM", K_INSTANCES, dead)
      redis.call("DEL", PREFIX .. "inbox:" .. dead)
    end
  end
  return #expired > 0 or resumed
end
