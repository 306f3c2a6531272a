--[[ enqueue: admits tickets of the calling instance, in order, exactly as if each came alone: each is
granted a slot at once, queued (after which what fits is granted), or refused.
KEYS: 1 state, 2 tw, 3 tickets, 4 leases, 5 instances
ARGV: 1 prefix, 2 instance id, 3 now for aging ("" = Redis TIME), 4 leaseMs of the instance, then seven
      per ticket: id ("<instance>:<seq>"), priority, tenant, cost, retry ("1" or "0"), enqueuedAt by the
      scheduler's clock ("" = measure by Redis: now - age), age in ms
Returns: { 0, counts, granted ids of the calling instance (in grant order), one status per ticket }
  status  1 granted at once (nothing else waited, it fits, and grants are not held for a recovery)
          2 the ticket already holds a slot (a repeated call)
          0 queued; a pump that followed may have granted it and others (see the granted ids)
         -1 full: the priority's or the total queue bound is reached; nothing was kept
         -7 the priority is not configured in Redis (instances disagree about their priorities)
  or { -8 } when the calling instance is not registered (Redis lost it or purged it): reconcile first;
  or { -9 } when nothing is configured under this prefix (Redis restarted empty): configure first
]]
--@include lib
if not registered() then return { -8 } end
if not begin() then return { -9 } end
if upkeep() then pump() end
local lease = tonumber(ARGV[4])
local statuses = {}
for i = 5, #ARGV, 7 do
  local id, p, tenant, cost = ARGV[i], ARGV[i + 1], ARGV[i + 2], tonumber(ARGV[i + 3])
  local lane = BY_NAME[p]
  local at = LEASE_NOW - tonumber(ARGV[i + 6])
  if ARGV[i + 5] ~= "" then at = tonumber(ARGV[i + 5]) end
  local status = 0
  if lane == nil then
    status = -7
  elseif redis.call("HSETNX", K_TICKETS, id, encode_ticket(cost, at, lease, p, tenant)) == 0 then
    if leased(id) then status = 2 end
  elseif (lane.conf.q >= 0 and lane.queued >= lane.conf.q) or (CFG.mq >= 0 and G.queued >= CFG.mq) then
    redis.call("HDEL", K_TICKETS, id)
    status = -1
  else
    TICKETS[id] = { id = id, cost = cost, at = at, lease = lease, p = p, t = tenant }
    if G.queued == 0 and not RECOVERING and fits(lane, cost) then
      take(lane, cost)
      redis.call("ZADD", K_LEASES, LEASE_NOW + lease, id)
      status = 1
    else
      push(lane, id, tenant, ARGV[i + 4] == "1")
      redis.call("SADD", PREFIX .. "owned:" .. ME, id)
      if lane.queued == 1 then lane.pass = math.max(lane.pass, G.vt) end
      pump()
    end
  end
  statuses[#statuses + 1] = status
end
return { 0, finish(), MINE, statuses }
