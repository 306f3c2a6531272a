--[[ cancel: every item of an open batch not yet final ends as batch_cancelled (claims are revoked, so
their late results lose); the batch becomes cancelled. A finished batch is left as it is.
KEYS: none (built from the prefix, see keys.ts)
ARGV: 1 prefix, 2 now (ms), 3 batch id, 4 error JSON of a cancelled item, 5 ttl of a finished batch's keys (ms)
Returns: the batch hash fields, or {} when there is no batch with this id
]]
--@include lib
local id = ARGV[3]
local status = redis.call("HGET", k("t", id), "status")
if not status then return {} end
if status == "in_progress" or status == "validating" then
  endOpen(id, ARGV[2], ARGV[4], "cancelled", { "cancellingAt", "cancelledAt" }, tonumber(ARGV[5]))
end
return batchFields(id)
