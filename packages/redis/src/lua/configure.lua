--[[ configure: writes the limits and priorities (the last instance to configure wins: all instances
sharing a prefix must use the same options), registers the calling instance's heartbeat, and grants
what the new limits allow. Also the first call of an instance and its call after a reconnection.
KEYS: 1 cfg, 2 tw, 3 state, 4 tickets, 5 leases, 6 instances
ARGV: 1 prefix, 2 instance id, 3 now for aging ("" = Redis TIME), 4 configuration JSON
      { max, mq, p: [{ n, w, r, m, q, a }] } (-1 = Infinity), 5 leaseMs of the instance,
      6.. tenant, weight pairs
Returns: { 0, counts, granted ids of the calling instance }
]]
--@include lib
redis.call("SET", K_CFG, ARGV[4])
redis.call("DEL", K_TW)
for i = 6, #ARGV, 2 do
  redis.call("HSET", K_TW, ARGV[i], ARGV[i + 1])
end
register(tonumber(ARGV[5]))
begin()
upkeep()
pump()
return { 0, finish(), MINE }
