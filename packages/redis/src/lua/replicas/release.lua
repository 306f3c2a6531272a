-- Gives a lease back and tells every instance: their routers see the count drop, and requests waiting
-- for a slot on the pool's replicas try again.
-- KEYS[1] ZSET of the replica's leases, KEYS[2] the pool's sequence, KEYS[3..] the ZSETs whose counts
-- are reported. ARGV[1] lease id, ARGV[2] the pool's channel, ARGV[3..] the ids of KEYS[3..].
-- Returns { seq; counts }. A lease already gone (expired, or Redis restarted) publishes nothing.
local now = nowMs()
local removed = redis.call('ZREM', KEYS[1], ARGV[1])
local seq, counts = snapshot(2, 3, now)
if removed == 1 then publish(ARGV[2], seq, counts, 3) end
return reply({}, seq, counts)
