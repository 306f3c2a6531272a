--[[ fail: a validating batch whose input was invalid becomes failed; its items are dropped.
KEYS: none (built from the prefix, see keys.ts)
ARGV: 1 prefix, 2 now (ms), 3 batch id, 4 errors JSON, 5 ttl of a finished batch's keys (ms)
Returns: the batch hash fields, or {} when there is no validating batch with this id
]]
--@include lib
local id = ARGV[3]
if redis.call("HGET", k("t", id), "status") ~= "validating" then return {} end
redis.call("DEL", k("i", id), k("c", id))
redis.call("HSET", k("t", id), "status", "failed", "failedAt", ARGV[2], "errors", ARGV[4])
expireBatch(id, tonumber(ARGV[5]))
return batchFields(id)
