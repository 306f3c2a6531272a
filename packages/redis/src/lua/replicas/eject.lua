-- Marks a replica ejected for every instance: KEYS[1] HASH replica id -> Redis ms the ejection ends.
-- ARGV[1] replica id, ARGV[2] ms from now. A later end already written stays.
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local untilMs = now + tonumber(ARGV[2])
local current = tonumber(redis.call('HGET', KEYS[1], ARGV[1]) or '0')
if untilMs > current then redis.call('HSET', KEYS[1], ARGV[1], untilMs) end
return 1
