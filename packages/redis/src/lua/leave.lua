--[[ leave: the calling instance stops (its scheduler closed): its heartbeat, queued tickets and inbox go.
KEYS: 1 state, 2 tw, 3 leases, 4 instances
ARGV: 1 prefix, 2 instance id, 3 now for aging ("" = Redis TIME)
Returns: { count of queued tickets dropped, counts, {} }, or { -9 }
]]
--@include lib
redis.call("ZREM", K_INSTANCES, ME)
redis.call("DEL", PREFIX .. "inbox:" .. ME)
if not begin() then return { -9 } end
local freed = upkeep()
local dropped = 0
for _, id in ipairs(redis.call("SMEMBERS", PREFIX .. "owned:" .. ME)) do
  if drop_queued(id) then dropped = dropped + 1 end
end
redis.call("DEL", PREFIX .. "owned:" .. ME)
if freed then pump() end
return { dropped, finish(), {} }
