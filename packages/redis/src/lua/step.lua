--[[ step: one instance's releases, enqueues and removals of one event-loop turn in one call, applied in
that order, each item exactly as if it came alone in its own script (see release.lua, enqueue.lua,
remove.lua). A release always concerns a ticket granted by an earlier call, and a removal may concern
a ticket admitted in this one, so the order keeps every item's meaning.
KEYS: 1 state, 2 tw, 3 tickets, 4 leases, 5 instances
ARGV: 1 prefix, 2 instance id, 3 now for aging ("" = Redis TIME), 4 leaseMs of the instance,
      5 count R of ids to release, 6 count M of ids to remove, then the R ids, the M ids, then seven
      per ticket to enqueue (as in enqueue.lua)
Returns: { 0, counts, granted ids of the calling instance (in grant order), one status per enqueued
  ticket (as in enqueue.lua; -8 for each when the calling instance is not registered) }, or { -9 } when
  nothing is configured under this prefix
]]
--@include lib
if not begin() then return { -9 } end
if upkeep() then pump() end
local releases, removals = tonumber(ARGV[5]), tonumber(ARGV[6])
local removals_at = 7 + releases
local enqueues_at = removals_at + removals
release_ids(7, removals_at - 1)
local statuses = {}
if registered() then
  statuses = admit(enqueues_at, tonumber(ARGV[4]))
else
  for _ = enqueues_at, #ARGV, 7 do statuses[#statuses + 1] = -8 end
end
remove_ids(removals_at, enqueues_at - 1)
return { 0, finish(), MINE, statuses }
