-- Writes the counters back, hands grants to other instances (inbox + channel), and returns the
-- counts the caller caches for metrics: { running, queued, name1, running1, queued1, ... }.
local function finish()
  redis.call("HSET", K_STATE, "running", G.running, "queued", G.queued, "vt", num(G.vt), "seq", G.seq)
  for name, lane in pairs(BY_NAME) do
    redis.call("HSET", PREFIX .. "lane:" .. name, "pass", num(lane.pass), "queued", lane.queued,
      "running", lane.running, "cursor", lane.cursor)
  end
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
  end
  return counts
end
