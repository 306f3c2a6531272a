-- Extends live leases of one instance (its heartbeat); an expired lease is not brought back.
-- KEYS[i] the ZSET of the replica that holds ARGV[i + 1]; ARGV[1] lease lifetime in ms.
-- Returns how many leases were still live and are extended.
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local ttl = tonumber(ARGV[1])
local renewed = 0
for i, key in ipairs(KEYS) do
  local score = redis.call('ZSCORE', key, ARGV[i + 1])
  if score and tonumber(score) > now then
    redis.call('ZADD', key, 'XX', now + ttl, ARGV[i + 1])
    redis.call('PEXPIRE', key, ttl * 2)
    renewed = renewed + 1
  end
end
return renewed
