-- The store's three everyday operations, shared by their own scripts (enqueue, release, remove) and by
-- step, which applies all three from one instance in one call. Each item is applied as if it came alone.

-- Admits the tickets whose groups of eight ARGV start at `from` (see enqueue.lua); one status each.
local function admit(from, lease)
  local statuses = {}
  for i = from, #ARGV, 8 do
    local id, p, tenant, cost, tokens = ARGV[i], ARGV[i + 1], ARGV[i + 2], tonumber(ARGV[i + 3]), tonumber(ARGV[i + 4])
    local lane = BY_NAME[p]
    local at = LEASE_NOW - tonumber(ARGV[i + 7])
    if ARGV[i + 6] ~= "" then at = tonumber(ARGV[i + 6]) end
    local booked = keeps_books()
    local seq = G.seq + 1 -- its arrival number, should it wait (see push in ring.lua)
    local status = 0
    if lane == nil then
      status = -7
    elseif redis.call("EXISTS", ticket_key(id)) == 1 then
      if leased(id) then status = 2 end
    elseif (lane.conf.q >= 0 and lane.queued >= lane.conf.q) or (CFG.mq >= 0 and G.queued >= CFG.mq) then
      status = -1
    else
      status = quota_refusal(tenant, tokens, at)
      if status == nil then
        status = 0
        write_ticket(id, cost, at, lease, p, tenant, tokens, booked, seq)
        local t = {
          id = id, cost = cost, at = at, lease = lease, p = p, t = tenant, tokens = tokens, booked = booked, seq = seq,
        }
        TICKETS[id] = t
        if G.queued == 0 and not RECOVERING and fits(lane, t) then
          take(lane, cost)
          charge_start(lane, t)
          lease_until(id, LEASE_NOW + lease)
          note_start(id, t)
          status = 1
        else
          quota_queue(t, true)
          push(lane, t, ARGV[i + 5] == "1")
          own(id, true)
          if lane.queued == 1 then lane.pass = math.max(lane.pass, G.vt) end
          pump()
          arrived(id)
        end
      end
    end
    statuses[#statuses + 1] = status
  end
  return statuses
end

-- Applies reported usage, groups of five ARGV[from..to]: priority, tenant, estimated tokens, input
-- and output tokens. The tenant's bucket and books, and its fairness counter in the priority, are
-- corrected by the difference from the estimate (the counter from what its start counted).
local function usage_ids(from, to)
  for i = from, to, 5 do
    local p, tenant, tokens = ARGV[i], ARGV[i + 1], tonumber(ARGV[i + 2])
    local input, output = tonumber(ARGV[i + 3]), tonumber(ARGV[i + 4])
    local weighted = input + qconf().ow * output
    quota_usage(tenant, tokens, input + output, weighted)
    local lane = BY_NAME[p]
    local charged = tokens
    if charged == 0 then charged = 1 end
    if lane ~= nil then heap_charge(lane, tenant, weighted - charged) end
  end
end

-- Gives back the slots of the tickets ARGV[from..to], each followed by a pump; returns how many held one.
local function release_ids(from, to)
  local released = 0
  for i = from, to do
    if free(ARGV[i]) then released = released + 1 end
    pump()
  end
  return released
end

-- Takes the tickets ARGV[from..to] back (see remove.lua); returns how many were waiting.
local function remove_ids(from, to)
  local removed = 0
  for i = from, to do
    local id = ARGV[i]
    if free(id) then
      pump()
    elseif drop_queued(id) then
      removed = removed + 1
    end
  end
  -- A ticket that did not fit may have been blocking its lane; what waits behind it may fit now.
  if removed > 0 then pump() end
  return removed
end
