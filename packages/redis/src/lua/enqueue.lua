--[[ enqueue: admits one ticket: grants it a slot at once, queues it, or refuses it.
KEYS: 1 cfg, 2 tw, 3 state, 4 tickets, 5 leases, 6 instances
ARGV: 1 prefix, 2 instance id, 3 now for aging ("" = Redis TIME), 4 ticket id ("<instance>:<seq>"),
      5 priority, 6 tenant, 7 cost, 8 retry ("1" or "0"), 9 enqueuedAt by the scheduler's clock
      ("" = measure by Redis: now - ARGV[10]), 10 age in ms, 11 leaseMs of the instance
Returns: { status, counts, granted ids of the calling instance (in grant order) }
  status  1 granted at once (nothing else waited and it fits; no other grant)
          2 the ticket already holds a slot (a repeated call)
          0 queued; the pump that followed may have granted it and others (see the granted ids)
         -1 full: the priority's or the total queue bound is reached; nothing was kept
         -7 the priority is not configured in Redis (instances disagree about their priorities)
         -8 the calling instance is not registered (Redis lost it or purged it): reconcile first
         -9 nothing is configured under this prefix (Redis restarted empty): configure first
]]
--@include lib
if not registered() then return { -8 } end
if not begin() then return { -9 } end
local id, p, tenant, cost, lease = ARGV[4], ARGV[5], ARGV[6], tonumber(ARGV[7]), tonumber(ARGV[11])
local lane = BY_NAME[p]
if lane == nil then return { -7 } end
local freed = upkeep()
local status = 0
if redis.call("HEXISTS", K_TICKETS, id) == 1 then
  if leased(id) then status = 2 end
elseif (lane.conf.q >= 0 and lane.queued >= lane.conf.q) or (CFG.mq >= 0 and G.queued >= CFG.mq) then
  status = -1
else
  local at = LEASE_NOW - tonumber(ARGV[10])
  if ARGV[9] ~= "" then at = tonumber(ARGV[9]) end
  put_ticket(id, cost, at, lease, p, tenant)
  if G.queued == 0 and fits(lane, cost) then
    take(lane, cost)
    redis.call("ZADD", K_LEASES, LEASE_NOW + lease, id)
    status = 1
  else
    push(lane, id, tenant, ARGV[8] == "1")
    redis.call("SADD", PREFIX .. "owned:" .. ME, id)
    if lane.queued == 1 then lane.pass = math.max(lane.pass, G.vt) end
    freed = true
  end
end
if freed then pump() end
return { status, finish(), MINE }
