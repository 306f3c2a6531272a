--[[ limit: changes the one global limit of adaptive schedulers (maxConcurrency: { initial, min, max })
atomically. `le` in the state hash counts the changes (the limit's epoch). A proposal applies only when
the caller saw the current epoch, or forces it (a limit set by update()): N instances that see the same
overload cut the limit once, and the others learn the new limit from their answer. An unforced increase
is at most maxIncrease above the global limit; the result is held in [floor, max]. A proposal equal to
the global limit is a read. Grants follow an increase.
KEYS: 1 state, 2 tw, 3 leases, 4 instances
ARGV: 1 prefix, 2 instance id, 3 now for aging ("" = Redis TIME), 4 the epoch the caller saw,
      5 the proposed limit, 6 floor, 7 max, 8 maxIncrease, 9 "1" to force, else "0"
Returns: { 0, counts, granted ids of the calling instance, { limit, epoch, "1" when this call changed it } }, or { -9 } when nothing is
  configured under this prefix
]]
--@include lib
if not begin() then return { -9 } end
local epoch = tonumber(S.le) or 0
local limit = CFG.max
local force = ARGV[9] == "1"
local changed = "0"
if force or tonumber(ARGV[4]) == epoch then
  local target = math.max(tonumber(ARGV[6]), math.min(tonumber(ARGV[7]), tonumber(ARGV[5])))
  if not force and target > limit then target = math.min(target, limit + tonumber(ARGV[8])) end
  if target ~= limit then
    limit = target
    epoch = epoch + 1
    changed = "1"
    CFG.max = limit
    redis.call("HSET", K_STATE, "max", limit, "le", epoch)
  end
end
upkeep()
pump()
return { 0, finish(), MINE, { tostring(limit), tostring(epoch), changed } }
