-- Preemption across instances, the same rule as core's preemption.ts: an arrival of a priority that
-- preempts, queued because nothing fits, stops one running ticket of a priority it preempts (on any
-- instance), and gets that ticket's slot when it lets go, never earlier. One victim at a time: arrivals
-- that come meanwhile wait their turn (`po`), each with at most one victim.
-- The configuration (`cf`) carries `pe` (priority -> the priorities it preempts) and `pm` (priority ->
-- maxPerTask) while some priority preempts; nothing here runs otherwise.
-- The state hash holds the victim that has not let go yet: `pv` (its ticket id), `pa` (the arrival's
-- id), `pp` (the arrival's priority). `po` LIST: arrivals owed a victim, in arrival order.
-- `pr:<id>` HASH, for each running or requeued ticket of a priority that may be preempted: `started`
-- (Redis ms of its start), `count` (how many times it was preempted), `spared` ("1": never a victim
-- again in this run: its response streams, or its instance declined).

-- The victim's slot is freed: true while a victim has not let go.
local function winding()
  return S.pv ~= nil and S.pv ~= ""
end

local function set_victim(victim, arrival, by)
  redis.call("HSET", K_STATE, "pv", victim, "pa", arrival, "pp", by)
  S.pv, S.pa, S.pp = victim, arrival, by
end

local function clear_victim()
  redis.call("HDEL", K_STATE, "pv", "pa", "pp")
  S.pv, S.pa, S.pp = "", "", ""
end

-- True when ticket `id` waits (it has a record and no lease).
local function waiting(id)
  return id ~= nil and id ~= "" and ticket(id) ~= nil and not leased(id)
end

-- Whether arrival `a` would fit once victim `v` let go of its slot: the counts without the victim,
-- checked by fits() itself, then put back.
local function fits_after_freeing(alane, a, vlane, v)
  local c = qconf()
  local b = nil
  if c.books and v.booked then b = book(v.t, NOW) end
  vlane.running, G.running, c.tf = vlane.running - v.cost, G.running - v.cost, c.tf - v.tokens
  if b ~= nil then b.running = b.running - v.cost end
  local ok = fits(alane, a)
  vlane.running, G.running, c.tf = vlane.running + v.cost, G.running + v.cost, c.tf + v.tokens
  if b ~= nil then b.running = b.running + v.cost end
  return ok
end

-- Every ticket holding a lease now (those granted in this call included).
local function leaseholders()
  local ids = {}
  for _, id in ipairs(redis.call("ZRANGE", K_LEASES, 0, -1)) do
    if GRANTED[id] ~= false then ids[#ids + 1] = id end
  end
  for _, id in ipairs(GRANT_ORDER) do
    if GRANTED[id] then ids[#ids + 1] = id end
  end
  return ids
end

-- A ticket that may be stopped for arrival `a`: of a priority `a` preempts, no cheaper than `a`, not
-- spared, preempted fewer than maxPerTask times, not needed by its priority's `reserved`, and of an
-- instance still alive. Returns its lane and its start (Redis ms), or nil.
local function candidate(id, a, targets)
  local t = ticket(id)
  if t == nil or not targets[t.p] or t.cost < a.cost or not alive(owner_of(id)) then return nil end
  local lane = BY_NAME[t.p]
  if lane == nil or lane.conf == nil or lane.running - t.cost < lane.conf.r then return nil end
  local record = redis.call("HMGET", PREFIX .. "pr:" .. id, "started", "count", "spared")
  if record[3] == "1" or (tonumber(record[2]) or 0) >= S.pm[t.p] then return nil end
  return lane, tonumber(record[1]) or 0
end

-- The victim for waiting arrival `aid`: the least urgent priority first, then the one that ran the
-- shortest (of equals, the last listed), among those whose slot the arrival could take; nil if none.
local function choose_victim(aid)
  local a = ticket(aid)
  local preempts = S.pe[a.p]
  local alane = BY_NAME[a.p]
  if preempts == nil or alane == nil or alane.conf == nil or alane.running + a.cost > alane.conf.m then return nil end
  local targets, index = {}, {}
  for _, name in ipairs(preempts) do targets[name] = true end
  for i, lane in ipairs(LANES) do index[lane.name] = i end
  local best, best_index, best_started = nil, -1, nil
  for _, id in ipairs(leaseholders()) do
    local lane, started = candidate(id, a, targets)
    if lane ~= nil then
      local i = index[lane.name]
      local better = i > best_index or (i == best_index and started >= best_started)
      if better and fits_after_freeing(alane, a, lane, ticket(id)) then
        best, best_index, best_started = id, i, started
      end
    end
  end
  return best
end

-- Arrival `aid` (waiting) stops a victim if one may be stopped for it: the victim's instance hears
-- it by pub/sub (finish) and, should that message be lost, from its next heartbeat (tick.lua).
local function preempt_for(aid)
  local victim = choose_victim(aid)
  if victim == nil then return false end
  local by = ticket(aid).p
  set_victim(victim, aid, by)
  local owner = owner_of(victim)
  local notices = NOTICES[owner]
  if notices == nil then
    notices = {}
    NOTICES[owner] = notices
  end
  notices[#notices + 1] = "!" .. victim .. " " .. by
  return true
end

-- An arrival just queued, of a priority that preempts: it stops a victim now, or waits its turn.
local function arrived(aid)
  if S.pe == nil or S.pe[ticket(aid).p] == nil or RECOVERING or not waiting(aid) then return end
  if winding() then
    redis.call("RPUSH", PREFIX .. "po", aid)
  else
    preempt_for(aid)
  end
end

-- The next owed arrival that still waits (nil when none).
local function take_owed()
  while true do
    local id = redis.call("LPOP", PREFIX .. "po")
    if not id then return nil end
    if waiting(id) then return id end
  end
end

-- The owed arrivals, in turn, may stop a victim each until one does.
local function next_owed()
  NEXT_OWED = false
  if RECOVERING then return end
  while not winding() do
    local aid = take_owed()
    if aid == nil then return end
    preempt_for(aid)
  end
end

-- The victim's slot was freed: it goes to its arrival, or to the next owed arrival still waiting,
-- when that one fits (by every limit a start checks); then owed arrivals may preempt again. While
-- grants are held (a recovery), the arrival is owed again instead.
local function hand_over()
  HANDOVER = false
  local arrival = S.pa
  clear_victim()
  NEXT_OWED = true
  if RECOVERING then
    if waiting(arrival) then redis.call("LPUSH", PREFIX .. "po", arrival) end
    return
  end
  if not waiting(arrival) then arrival = take_owed() end
  if arrival == nil then return end
  local t = ticket(arrival)
  local lane = BY_NAME[t.p]
  if lane ~= nil and lane.conf ~= nil and fits(lane, t) then start(lane, arrival, true) end
end

-- A preempted ticket (its slot freed just before) waits again, at the front of its tenant's queue and
-- of its priority's arrival order, with no admission check; what its start was charged (tokens, the
-- fairness counter) is given back. `count`: its preemptions so far, this one included.
local function requeue(id, p, tenant, cost, tokens, at, lease, count)
  local lane = BY_NAME[p]
  if lane == nil or lane.conf == nil then return end
  local booked = keeps_books()
  local t = {
    id = id, cost = cost, at = at, lease = lease, p = p, t = tenant, tokens = tokens, booked = booked,
    seq = G.seq + 1,
  }
  write_ticket(id, cost, at, lease, p, tenant, tokens, booked, t.seq)
  TICKETS[id] = t
  if booked then
    local b = book(tenant, NOW)
    refill(b, NOW)
    b.level = b.level + tokens
    b.served = b.served - tokens
    b.dirty = true
  end
  local charge = tokens
  if charge == 0 then charge = 1 end
  heap_charge(lane, tenant, -charge)
  quota_queue(t, true)
  push(lane, t, true)
  if keeps_ages(lane) then
    local oldest = redis.call("ZRANGE", PREFIX .. "age:" .. lane.name, 0, 0, "WITHSCORES")[2]
    if oldest ~= nil then redis.call("ZADD", PREFIX .. "age:" .. lane.name, tonumber(oldest) - 1, id) end
  end
  own(id, true)
  if lane.queued == 1 then lane.pass = math.max(lane.pass, G.vt) end
  redis.call("HSET", PREFIX .. "pr:" .. id, "count", count)
end

-- A running ticket is never a victim again in this run; if it is the victim now, its arrival is owed
-- another one, first in line.
local function spare(id)
  if leased(id) then redis.call("HSET", PREFIX .. "pr:" .. id, "spared", "1") end
  if S.pv ~= id then return end
  local arrival = S.pa
  clear_victim()
  if waiting(arrival) then redis.call("LPUSH", PREFIX .. "po", arrival) end
  NEXT_OWED = true
end
