--[[ settle: records how one attempt ended, if the caller's claim still holds (fencing: removing the
claim `<id>|<index>|<token>` from the run set is the check, so a late write from an instance whose
claim lapsed, or was revoked by a cancel or an expiry, changes nothing).
KEYS: none (built from the prefix, see keys.ts)
ARGV: 1 prefix, 2 now (ms), 3 batch id, 4 index, 5 token, 6 kind ("ok", "fail", "retry", "release"),
  7 attempt JSON (a retry's), 8 due time of a retry, 9 result JSON (final kinds, with its last
  attempt), 10 attempts made before (final kinds), 11 ttl of a finished batch's keys (ms)
Returns: { 0 } when the claim was lost, else { 1, status, total, completed, failed }
]]
--@include lib
local now, id, index, kind = tonumber(ARGV[2]), ARGV[3], ARGV[4], ARGV[6]
if redis.call("ZREM", P .. "run", id .. "|" .. index .. "|" .. ARGV[5]) == 0 then return { 0 } end
if kind == "release" then
  redis.call("ZADD", k("rd", id), now, index)
elseif kind == "retry" then
  local old = redis.call("HGET", k("a", id), index)
  redis.call("HSET", k("a", id), index, old and (old .. "," .. ARGV[7]) or ARGV[7])
  redis.call("HINCRBY", k("m", id), index, 1)
  redis.call("ZADD", k("rd", id), tonumber(ARGV[8]), index)
else
  redis.call("HSET", k("r", id), index, ARGV[9])
  if ARGV[10] ~= "0" then redis.call("HDEL", k("m", id), index) end
  if kind == "ok" then
    redis.call("HINCRBY", k("t", id), "completed", 1)
  else
    redis.call("HINCRBY", k("t", id), "failed", 1)
    redis.call("SADD", k("f", id), index)
  end
end
local b = redis.call("HMGET", k("t", id), "status", "total", "completed", "failed")
if kind ~= "release" and kind ~= "retry" and b[1] == "in_progress" and tonumber(b[3]) + tonumber(b[4]) >= tonumber(b[2]) then
  redis.call("HSET", k("t", id), "status", "completed", "finalizingAt", now, "completedAt", now)
  redis.call("ZREM", P .. "open", id)
  expireBatch(id, tonumber(ARGV[11]))
  b[1] = "completed"
end
return { 1, b[1], b[2], b[3], b[4] }
