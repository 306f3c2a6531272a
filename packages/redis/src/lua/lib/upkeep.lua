-- Housekeeping at the start of every script: leases that were not renewed in time (their instance
-- crashed or stalled) give their slots back, and the queued tickets of an instance whose heartbeat
-- lapsed are purged, a bounded batch per call.
-- Gives a leased ticket's slot back; false (and nothing changes) when it holds no lease.
-- The slot of a preemption's victim (`pv` in the state hash, see preempt.lua) is held for its arrival:
-- the next pump() hands it over before anything else may take it.
local function free(id)
  if not unlease(id) then return false end
  if S.pv == id then HANDOVER = true end
  if S.pe ~= nil then redis.call("DEL", PREFIX .. "pr:" .. id) end
  local t = take_ticket(id)
  if t == nil then return true end
  local lane = lane_of(t.p)
  lane.running = lane.running - t.cost
  G.running = G.running - t.cost
  quota_free(t)
  check_cap(t.t)
  return true
end

-- Takes a waiting ticket out for good (cancelled, or its instance is gone).
local function drop_queued(id)
  local t = ticket(id)
  if t == nil or leased(id) then return false end
  unqueue(lane_of(t.p), id, t.t)
  drop_ticket(id)
  if S.pe ~= nil then redis.call("DEL", PREFIX .. "pr:" .. id) end
  return true
end

-- Grants resume: the recovery after a loss of state (see configure.lua) is over.
local function end_recovery()
  redis.call("HDEL", K_STATE, "rec", "rex")
  redis.call("DEL", PREFIX .. "back")
  S.rec, S.rex = nil, nil
  RECOVERING = false
end

-- The calling instance, live before Redis lost its state, has re-registered its running tasks (if any).
-- Once as many instances as were live (`rex`, the most any of them saw) have, the recovery ends early.
-- Returns true when it ended (the caller then pumps).
local function check_in()
  if S.rec == nil then return false end
  local back = PREFIX .. "back"
  redis.call("SADD", back, ME)
  local expected = tonumber(S.rex) or 0
  if expected > 0 and redis.call("SCARD", back) >= expected then
    end_recovery()
    return true
  end
  return false
end

-- How many instances have a current heartbeat (the caller remembers it, in case Redis loses its state).
local function live_count()
  return redis.call("ZCOUNT", K_INSTANCES, LEASE_NOW, "+inf")
end

-- Returns true when a slot was freed or the recovery period ended (the caller then pumps).
local function upkeep()
  local resumed = false
  if S.rec ~= nil and not RECOVERING then
    end_recovery()
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
  -- a victim whose lease is gone by any other way (its instance left) lets go all the same
  if S.pv ~= nil and S.pv ~= "" and not HANDOVER and not leased(S.pv) then HANDOVER = true end
  return #expired > 0 or resumed or HANDOVER
end
