--[[ remove: takes tickets back that the calling instance no longer wants: a waiting ticket leaves its
queue; one that was granted meanwhile gives its slot back (and what then fits is granted).
KEYS: 1 cfg, 2 tw, 3 state, 4 tickets, 5 leases, 6 instances
ARGV: 1 prefix, 2 instance id, 3 now for aging ("" = Redis TIME), 4.. ticket ids
Returns: { count of tickets that were waiting, counts, granted ids of the calling instance }, or { -9 }
  when nothing is configured under this prefix
]]
--@include lib
if not begin() then return { -9 } end
local freed = upkeep()
local removed = 0
for i = 4, #ARGV do
  local id = ARGV[i]
  if leased(id) then
    free(id)
    freed = true
  elseif drop_queued(id) then
    removed = removed + 1
  end
end
if freed then pump() end
return { removed, finish(), MINE }
