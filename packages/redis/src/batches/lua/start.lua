--[[ start: a validating batch whose items are all stored becomes in_progress; every item is queued.
KEYS: none (built from the prefix, see keys.ts)
ARGV: 1 prefix, 2 now (ms), 3 batch id, 4 total, 5 ttl of a finished batch's keys (ms)
Returns: the batch hash fields, or {} when there is no validating batch with this id
]]
--@include lib
local now, id, total = tonumber(ARGV[2]), ARGV[3], tonumber(ARGV[4])
if redis.call("HGET", k("t", id), "status") ~= "validating" then return {} end
redis.call("HSET", k("t", id), "status", "in_progress", "inProgressAt", now, "total", total)
for from = 0, total - 1, 1000 do
  local args = {}
  for index = from, math.min(total, from + 1000) - 1 do
    args[#args + 1] = now
    args[#args + 1] = index
  end
  redis.call("ZADD", k("rd", id), unpack(args))
end
if total == 0 then
  redis.call("HSET", k("t", id), "status", "completed", "finalizingAt", now, "completedAt", now)
  expireBatch(id, tonumber(ARGV[5]))
else
  redis.call("ZADD", P .. "open", redis.call("HGET", k("t", id), "expiresAt"), id)
end
return batchFields(id)
