--[[ enqueue: admits tickets of the calling instance, in order, exactly as if each came alone: each is
granted a slot at once, queued (after which what fits is granted), or refused.
KEYS: 1 state, 2 tw, 3 leases, 4 instances
ARGV: 1 prefix, 2 instance id, 3 now for aging ("" = Redis TIME), 4 leaseMs of the instance, then eight
      per ticket: id ("<instance>:<seq>"), priority, tenant, cost, estimated tokens, retry ("1" or "0"),
      enqueuedAt by the scheduler's clock ("" = measure by Redis: now - age), age in ms
Returns: { 0, counts, granted ids of the calling instance (in grant order), one status per ticket }
  status  1 granted at once (nothing else waited, it fits, and grants are not held for a recovery)
          2 the ticket already holds a slot (a repeated call)
          0 queued; a pump that followed may have granted it and others (see the granted ids)
         -1 full: the priority's or the total queue bound is reached; nothing was kept
         -2 the tenant's maxQueue is reached; nothing was kept
  "-3 <ms>" the tenant's token bucket cannot cover the ticket for <ms> more; nothing was kept
         -7 the priority is not configured in Redis (instances disagree about their priorities)
  or { -8 } when the calling instance is not registered (Redis lost it or purged it): reconcile first;
  or { -9 } when nothing is configured under this prefix (Redis restarted empty): configure first
]]
--@include lib
if not registered() then return { -8 } end
if not begin() then return { -9 } end
if upkeep() then pump() end
local statuses = admit(5, tonumber(ARGV[4]))
return { 0, finish(), MINE, statuses }
