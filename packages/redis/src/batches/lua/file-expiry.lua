--[[ file-expiry: moves a kept file's expiry; its keys' time to live moves by the same amount.
KEYS: none (built from the prefix, see keys.ts)
ARGV: 1 prefix, 2 file id, 3 new expiry (ms)
Returns: 1 when the file is kept, else 0
]]
--@include lib
local id, expiresAt = ARGV[2], tonumber(ARGV[3])
local before = redis.call("ZSCORE", P .. "fx", id)
if not before or redis.call("EXISTS", k("file", id)) == 0 then return 0 end
local shift = expiresAt - tonumber(before)
redis.call("ZADD", P .. "fx", expiresAt, id)
redis.call("HSET", k("file", id), "expiresAt", expiresAt)
for _, key in ipairs({ k("file", id), k("lines", id) }) do
  local ttl = redis.call("PTTL", key)
  if ttl > 0 then redis.call("PEXPIRE", key, math.max(1, ttl + shift)) end
end
return 1
