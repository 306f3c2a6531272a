-- A lease on one of a replica's slots, shared by every gateway instance of the pool.
-- KEYS[1] ZSET of the replica's leases (member: lease id, score: Redis ms at which it expires).
-- ARGV[1] lease id, ARGV[2] the replica's limit, ARGV[3] lease lifetime in ms.
-- Returns 1 when the lease was taken, 0 when the replica's live leases already reach its limit.
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local ttl = tonumber(ARGV[3])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) then return 0 end
redis.call('ZADD', KEYS[1], now + ttl, ARGV[1])
redis.call('PEXPIRE', KEYS[1], ttl * 2)
return 1
