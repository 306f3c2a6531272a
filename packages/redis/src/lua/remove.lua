--[[ remove: takes tickets back that the calling instance no longer wants: a waiting ticket leaves its
queue; one that was granted meanwhile gives its slot back (and what then fits is granted).
KEYS: 1 state, 2 tw, 3 leases, 4 instances
ARGV: 1 prefix, 2 instance id, 3 now for aging ("" = Redis TIME), 4.. ticket ids
Returns: { count of tickets that were waiting, counts, granted ids of the calling instance }, or { -9 }
  when nothing is configured under this prefix
]]
--@include lib
if not begin() then return { -9 } end
if upkeep() then pump() end
local removed = remove_ids(4, #ARGV)
return { removed, finish(), MINE }
