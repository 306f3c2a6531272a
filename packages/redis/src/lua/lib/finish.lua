-- Writes the counters and the rings back, hands grants to other instances (inbox + channel), and
-- returns the counts the caller caches for metrics and the drain rate:
-- { running, queued, name1, running1, queued1, starts1, ... }.
local function finish()
  local fields = { "running", G.running, "queued", G.queued, "vt", num(G.vt), "seq", G.seq }
  for name, lane in pairs(BY_NAME) do
    local n = #fields
    fields[n + 1], fields[n + 2] = "p|" .. name, num(lane.pass)
    fields[n + 3], fields[n + 4] = "q|" .. name, lane.queued
    fields[n + 5], fields[n + 6] = "r|" .. name, lane.running
    fields[n + 7], fields[n + 8] = "c|" .. name, lane.cursor
    fields[n + 9], fields[n + 10] = "n|" .. name, lane.starts
    if lane.last ~= nil then
      fields[n + 11], fields[n + 12] = "l|" .. name, num(lane.last)
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
        set[#set + 1] = field
        set[#set + 1] = value
      end
    end
    local rk = PREFIX .. "ring:" .. name
    hset_all(rk, set)
    for i = 1, #gone, 500 do redis.call("HDEL", rk, unpack(gone, i, math.min(i + 499, #gone))) end
  end
  save_quotas(fields)
  hset_all(K_STATE, fields)
  for _, owner in ipairs(OTHER_ORDER) do
    local ids = OTHERS[owner]
    for i = 1, #ids, 500 do
      redis.call("RPUSH", PREFIX .. "inbox:" .. owner, unpack(ids, i, math.min(i + 499, #ids)))
    end
    redis.call("PUBLISH", PREFIX .. "grants:" .. owner, table.concat(ids, ","))
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
