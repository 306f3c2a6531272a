-- Writes the counters and the rings back, hands grants to other instances (inbox + channel), and
-- returns the counts the caller caches for metrics and the drain rate:
-- { running, queued, name1, running1, queued1, starts1, ... }.
local function finish()
  -- a victim's slot freed by a script that did not pump afterwards, and the owed arrivals' turn
  if HANDOVER then pump() end
  if NEXT_OWED then next_owed() end
  local fields = { "running", G.running, "queued", G.queued, "vt", num(G.vt), "seq", G.seq }
  for name, lane in pairs(BY_NAME) do
    -- only what changed (or was missing): most calls touch a few of a lane's counters
    local read = lane.read
    if lane.pass ~= read.pass then
      fields[#fields + 1], fields[#fields + 2] = "p|" .. name, num(lane.pass)
    end
    if lane.queued ~= read.queued then
      fields[#fields + 1], fields[#fields + 2] = "q|" .. name, lane.queued
    end
    if lane.running ~= read.running then
      fields[#fields + 1], fields[#fields + 2] = "r|" .. name, lane.running
    end
    if lane.cursor ~= read.cursor then
      fields[#fields + 1], fields[#fields + 2] = "c|" .. name, lane.cursor
    end
    if lane.starts ~= read.starts then
      fields[#fields + 1], fields[#fields + 2] = "n|" .. name, lane.starts
    end
    if lane.last ~= nil and lane.last ~= read.last then
      fields[#fields + 1], fields[#fields + 2] = "l|" .. name, num(lane.last)
    end
    if lane.floor ~= nil then
      fields[#fields + 1] = "fl|" .. name
      fields[#fields + 1] = num(lane.floor)
    end
    local set, gone = {}, {}
    for field in pairs(lane.dirty) do
      local value = lane.ring[field]
      if value == DELETED then
        gone[#gone + 1] = field
      else
        if type(value) == "number" then value = num(value) end -- a credit (see rget in ring.lua)
        set[#set + 1] = field
        set[#set + 1] = value
      end
    end
    for tenant in pairs(lane.pops) do pop_started(lane, tenant) end
    local rk = PREFIX .. "ring:" .. name
    hset_all(rk, set)
    in_chunks("HDEL", rk, gone)
  end
  for owner, changes in pairs(OWNED) do
    local queued, gone = {}, {}
    for id, now_queued in pairs(changes) do
      if now_queued then queued[#queued + 1] = id else gone[#gone + 1] = id end
    end
    local key = PREFIX .. "owned:" .. owner
    in_chunks("SADD", key, queued)
    in_chunks("SREM", key, gone)
  end
  local leases = {}
  for _, id in ipairs(GRANT_ORDER) do
    local expiry = GRANTED[id]
    if expiry then
      leases[#leases + 1] = expiry
      leases[#leases + 1] = id
    end
  end
  in_chunks("ZADD", K_LEASES, leases)
  save_quotas(fields)
  hset_all(K_STATE, fields)
  for _, owner in ipairs(OTHER_ORDER) do
    local ids = OTHERS[owner]
    for i = 1, #ids, 500 do
      redis.call("RPUSH", PREFIX .. "inbox:" .. owner, unpack(ids, i, math.min(i + 499, #ids)))
    end
    redis.call("PUBLISH", PREFIX .. "grants:" .. owner, table.concat(ids, ","))
  end
  -- after the grants: a victim granted in this call hears of its grant first
  for owner, notices in pairs(NOTICES) do
    for _, notice in ipairs(notices) do redis.call("PUBLISH", PREFIX .. "grants:" .. owner, notice) end
  end
  local counts = { G.running, G.queued }
  for _, lane in ipairs(LANES) do
    counts[#counts + 1] = lane.name
    counts[#counts + 1] = lane.running
    counts[#counts + 1] = lane.queued
    counts[#counts + 1] = lane.starts
  end
  return counts
end
