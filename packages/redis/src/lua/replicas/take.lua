-- A lease on one of a replica's slots, shared by every gateway instance of the pool.
-- KEYS[1] ZSET of the replica's leases (member: lease id, score: Redis ms at which it expires),
-- KEYS[2] the pool's sequence, KEYS[3..] the ZSETs of the replicas whose counts are reported.
-- ARGV[1] lease id, ARGV[2] the replica's limit, ARGV[3] lease lifetime in ms, ARGV[4] the pool's
-- channel, ARGV[5..] the ids of KEYS[3..].
-- Returns { 1 when the lease was taken, 0 when the live leases already reach the limit; seq; counts }.
-- A granted lease is published with the counts, so the other instances' routers see it.
local now = nowMs()
local ttl = tonumber(ARGV[3])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
local granted = 0
if redis.call('ZCARD', KEYS[1]) < tonumber(ARGV[2]) then
  redis.call('ZADD', KEYS[1], now + ttl, ARGV[1])
  redis.call('PEXPIRE', KEYS[1], ttl * 2)
  granted = 1
end
local seq, counts = snapshot(2, 3, now)
if granted == 1 then publish(ARGV[4], seq, counts, 5) end
return reply({ granted }, seq, counts)
