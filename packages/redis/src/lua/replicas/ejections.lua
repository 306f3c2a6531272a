-- The replicas ejected now: KEYS[1] HASH replica id -> Redis ms the ejection ends.
-- Returns a flat list: replica id, ms left, ... (ended ejections are removed).
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local all = redis.call('HGETALL', KEYS[1])
local left = {}
for i = 1, #all, 2 do
  local untilMs = tonumber(all[i + 1])
  if untilMs > now then
    left[#left + 1] = all[i]
    left[#left + 1] = untilMs - now
  else
    redis.call('HDEL', KEYS[1], all[i])
  end
end
return left
