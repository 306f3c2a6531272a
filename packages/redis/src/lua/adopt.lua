--[[ adopt: records tickets of the calling instance that run without a lease in Redis (their lease
lapsed during a stall or a Redis outage, or they were started by the local fallback), so that the global
count includes them again. A ticket still waiting in Redis leaves its queue; one that holds a lease has it
renewed. No limit is checked: the tasks already run; new grants wait until the count is below the limit.
KEYS: 1 state, 2 tw, 3 leases, 4 instances
ARGV: 1 prefix, 2 instance id, 3 now for aging ("" = Redis TIME), 4 leaseMs, 5 "1" when the instance
      was live before Redis lost its state and checks in with these tasks (see configure.lua), else "0",
      6.. groups of five: ticket id, cost, estimated tokens, priority, tenant
Returns: { adopted count, counts, granted ids of the calling instance }, or { -9 }
]]
--@include lib
if not begin() then return { -9 } end
local freed = upkeep()
local lease = tonumber(ARGV[4])
local adopted = 0
for i = 6, #ARGV, 5 do
  local id, cost, tokens, p, tenant = ARGV[i], tonumber(ARGV[i + 1]), tonumber(ARGV[i + 2]), ARGV[i + 3], ARGV[i + 4]
  if not leased(id) then
    drop_queued(id)
    local t = { id = id, cost = cost, tokens = tokens, p = p, t = tenant }
    -- counted again, not a start: neither aging, the drain rate nor the tenant's bucket sees it
    put_ticket(id, cost, LEASE_NOW, lease, p, tenant, tokens, quota_take(t, false))
    check_cap(tenant)
    local lane = lane_of(p)
    lane.running = lane.running + cost
    G.running = G.running + cost
    adopted = adopted + 1
  end
  redis.call("ZADD", K_LEASES, LEASE_NOW + lease, id)
end
if ARGV[5] == "1" and check_in() then freed = true end
if freed then pump() end
return { adopted, finish(), MINE }
