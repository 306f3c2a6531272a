--[[ release: gives granted tickets' slots back, in order, each followed by granting what then fits (as if
each came alone). A ticket whose lease has expired (and was reclaimed) or was never granted changes nothing.
KEYS: 1 state, 2 tw, 3 leases, 4 instances
ARGV: 1 prefix, 2 instance id, 3 now for aging ("" = Redis TIME), 4.. ticket ids
Returns: { released count, counts, granted ids of the calling instance }, or { -9 } when nothing is
  configured under this prefix (Redis restarted empty; the leases are gone with it)
]]
--@include lib
if not begin() then return { -9 } end
upkeep()
local released = release_ids(4, #ARGV)
return { released, finish(), MINE }
