-- Live leases of each replica: KEYS[i] the ZSET of one replica. Returns one count per key.
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local counts = {}
for i, key in ipairs(KEYS) do
  counts[i] = redis.call('ZCOUNT', key, '(' .. now, '+inf')
end
return counts
