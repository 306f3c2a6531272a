--[[ retry: the failed items of a finished batch (completed, expired or cancelled) are queued again with
a fresh attempt count; the batch is in_progress again with a new completion window, and kept again.
KEYS: none (built from the prefix, see keys.ts)
ARGV: 1 prefix, 2 now (ms), 3 batch id
Returns: the batch hash fields, or {} when there is no batch with this id
]]
--@include lib
local now, id = tonumber(ARGV[2]), ARGV[3]
local status = redis.call("HGET", k("t", id), "status")
if not status then return {} end
local failed = redis.call("SMEMBERS", k("f", id))
if (status ~= "completed" and status ~= "expired" and status ~= "cancelled") or #failed == 0 then
  return batchFields(id)
end
persistBatch(id)
for _, index in ipairs(failed) do
  local last = cjson.decode(redis.call("HGET", k("r", id), index) or "{}").last
  if last ~= nil then
    local old = redis.call("HGET", k("a", id), index)
    local text = cjson.encode(last)
    redis.call("HSET", k("a", id), index, old and (old .. "," .. text) or text)
  end
  redis.call("HDEL", k("r", id), index)
  redis.call("HDEL", k("m", id), index)
  redis.call("ZADD", k("rd", id), now, index)
end
redis.call("DEL", k("f", id))
local expiresAt = now + tonumber(redis.call("HGET", k("t", id), "windowMs"))
redis.call("HINCRBY", k("t", id), "failed", -#failed)
redis.call("HSET", k("t", id), "status", "in_progress", "expiresAt", expiresAt)
redis.call("HDEL", k("t", id), "finalizingAt", "completedAt", "expiredAt", "cancellingAt", "cancelledAt",
  "runningAt", "runningDone")
redis.call("ZADD", P .. "open", expiresAt, id)
return batchFields(id)
