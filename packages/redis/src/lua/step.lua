--[[ step: one instance's usage reports, releases, enqueues and removals of one event-loop turn in one
call, applied in that order, each item exactly as if it came alone in its own script (see release.lua, enqueue.lua,
remove.lua). A release always concerns a ticket granted by an earlier call, and a removal may concern
a ticket admitted in this one, so the order keeps every item's meaning.
KEYS: 1 state, 2 tw, 3 leases, 4 instances
ARGV: 1 prefix, 2 instance id, 3 now for aging ("" = Redis TIME), 4 leaseMs of the instance,
      5 count R of ids to release, 6 count M of ids to remove, 7 count U of usage reports, then the R
      ids, the M ids, five per usage report (priority, tenant, estimated tokens, input tokens, output
      tokens: see ops.lua), then eight per ticket to enqueue (as in enqueue.lua). Usage comes first,
      so that a report and its task's release in one call apply in that order.
Returns: { 0, counts, granted ids of the calling instance (in grant order), one status per enqueued
  ticket (as in enqueue.lua; -8 for each when the calling instance is not registered) }, or { -9 } when
  nothing is configured under this prefix
]]
--@include lib
if not begin() then return { -9 } end
if upkeep() then pump() end
local releases, removals, usages = tonumber(ARGV[5]), tonumber(ARGV[6]), tonumber(ARGV[7])
local removals_at = 8 + releases
local usages_at = removals_at + removals
local enqueues_at = usages_at + 5 * usages
usage_ids(usages_at, enqueues_at - 1)
release_ids(8, removals_at - 1)
local statuses = {}
if registered() then
  statuses = admit(enqueues_at, tonumber(ARGV[4]))
else
  for _ = enqueues_at, #ARGV, 8 do statuses[#statuses + 1] = -8 end
end
remove_ids(removals_at, usages_at - 1)
return { 0, finish(), MINE, statuses }
