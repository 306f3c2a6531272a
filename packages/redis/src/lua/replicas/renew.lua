-- The heartbeat of one instance: extends its leases and brings back those Redis lost (restarted empty,
-- or expired while the instance could not reach it): each is a request still in flight, counted once.
-- KEYS[1] the pool's sequence; KEYS[2 .. n + 1] the ZSET of the replica that holds lease ARGV[i + 2];
-- KEYS[n + 2 ..] the ZSETs whose counts are reported. ARGV[1] lease lifetime in ms, ARGV[2] n.
-- Returns { seq; counts }.
local now = nowMs()
local ttl = tonumber(ARGV[1])
local n = tonumber(ARGV[2])
for i = 1, n do
  redis.call('ZADD', KEYS[i + 1], now + ttl, ARGV[i + 2])
  redis.call('PEXPIRE', KEYS[i + 1], ttl * 2)
end
local seq, counts = snapshot(1, n + 2, now)
return reply({}, seq, counts)
