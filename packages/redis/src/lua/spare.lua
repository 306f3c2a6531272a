--[[ spare: running tickets of the calling instance that are never to be chosen as victims again in this run:
a permit whose response sent its first byte, or a victim its instance would not stop (see
lib/preempt.lua). When one of them is the victim now, its arrival is owed a victim again, first in line,
and may stop another at once.
KEYS: 1 state, 2 tw, 3 leases, 4 instances
ARGV: 1 prefix, 2 instance id, 3 now for aging ("" = Redis TIME), 4.. ticket ids
Returns: { 0, counts, granted ids of the calling instance }, or { -9 } when nothing is configured under
  this prefix
]]
--@include lib
if not begin() then return { -9 } end
if upkeep() then pump() end
for i = 4, #ARGV do spare(ARGV[i]) end
return { 0, finish(), MINE }
