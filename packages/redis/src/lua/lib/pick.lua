-- The picking rule, the same as core's memory/picker.ts:
-- capacity: a ticket of priority p and cost c fits when running_p + c <= p.maxConcurrency and
--   running + c + (idle reserves of the other priorities) <= maxConcurrency, and its tenant's cap and
--   the token budget allow it (quotas.lua);
-- 1. aging: a priority is starved when it has had a ticket waiting, and no start, for maxWaitMs
--    (from the later of its oldest ticket's arrival and its last start); among starved priorities whose
--    oldest ticket fits, the one starved longest (ties to the priority configured first) starts it;
-- 2. otherwise stride scheduling: among priorities whose tenant-turn ticket fits, the lowest pass (ties
--    to the priority configured first) starts it; pass += 1 / weight, virtual time = the pass before.
local function reserved_by_others(lane)
  local sum = 0
  for _, other in ipairs(LANES) do
    if other ~= lane then
      local idle = other.conf.r - other.running
      if idle > 0 then sum = sum + idle end
    end
  end
  return sum
end

-- Every limit at once for ticket `t`: its priority's cap, the total with the other priorities' idle
-- reserves, its tenant's cap and the token budget (quota_fits).
local function fits(lane, t)
  local cost = t.cost
  return lane.running + cost <= lane.conf.m and G.running + cost + reserved_by_others(lane) <= CFG.max
    and quota_fits(t)
end

local function pick()
  local aged, aged_id, aged_since = nil, nil, nil
  for _, lane in ipairs(LANES) do
    if lane.queued > 0 and lane.conf.a >= 0 then
      local id = redis.call("ZRANGE", PREFIX .. "age:" .. lane.name, 0, 0)[1]
      local t = ticket(id)
      local since = t.at
      if lane.last ~= nil and lane.last > since then since = lane.last end
      if NOW - since >= lane.conf.a and (aged == nil or since < aged_since) and fits(lane, t) then
        aged, aged_id, aged_since = lane, id, since
      end
    end
  end
  if aged ~= nil then return aged, aged_id, true end
  local best, best_id = nil, nil
  for _, lane in ipairs(LANES) do
    if (best == nil or lane.pass < best.pass) and turn(lane) ~= "" then
      local id = head(lane, turn(lane))
      if fits(lane, ticket(id)) then best, best_id = lane, id end
    end
  end
  return best, best_id, false
end

-- While some priority preempts (`pe` in the configuration), a start of a priority that may be preempted
-- is noted in the ticket's preemption record (`pr:<id>`, see preempt.lua): victims are chosen among
-- the shortest-running. Nothing is written otherwise.
local function note_start(id, t)
  if S.pm ~= nil and S.pm[t.p] ~= nil then
    redis.call("HSET", PREFIX .. "pr:" .. id, "started", LEASE_NOW)
    redis.call("HDEL", PREFIX .. "pr:" .. id, "spared")
  end
end

-- The ticket holds a slot now: a lease, and a grant for its instance (returned to the caller, or
-- pushed to the owner's inbox and announced on its channel by finish()).
local function grant(id, t)
  lease_until(id, LEASE_NOW + t.lease)
  note_start(id, t)
  local owner = owner_of(id)
  if owner == ME then
    MINE[#MINE + 1] = id
  else
    local list = OTHERS[owner]
    if list == nil then
      list = {}
      OTHERS[owner] = list
      OTHER_ORDER[#OTHER_ORDER + 1] = owner
    end
    list[#list + 1] = id
  end
end

local function take(lane, cost)
  lane.last = NOW
  lane.starts = lane.starts + 1
  lane.running = lane.running + cost
  G.running = G.running + cost
end

-- After take() and leaving the queue: the ticket's tokens are charged (budget, its tenant's bucket and
-- books, the fairness counter: its estimate, or 1 without one), and the tenant parked at its cap.
local function charge_start(lane, t)
  local booked = quota_take(t, true)
  if booked ~= t.booked then put_ticket(t.id, t.cost, t.at, t.lease, t.p, t.t, t.tokens, booked) end
  local charge = t.tokens
  if charge == 0 then charge = 1 end
  heap_charge(lane, t.t, charge)
  check_cap(t.t)
end

-- Starts the chosen ticket; one of an instance whose heartbeat lapsed is dropped instead (the loop in
-- pump() then picks again), so a dead instance is never granted a slot it cannot use.
local function start(lane, id, aged)
  local t = ticket(id)
  if not alive(owner_of(id)) then
    drop_queued(id)
    return
  end
  take(lane, t.cost)
  if aged then unqueue(lane, id, t.t) else take_next(lane, id) end
  charge_start(lane, t)
  G.vt = lane.pass
  lane.pass = lane.pass + 1 / lane.conf.w
  grant(id, t)
end
