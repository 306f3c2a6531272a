--[[ file-create: saves a new, empty input file if its tenant keeps fewer than maxFiles files, after
deleting the files expired by now (so that they no longer count).
KEYS: none (built from the prefix, see keys.ts)
ARGV: 1 prefix, 2 file id, 3 tenant, 4 record JSON, 5 now (ms), 6 expiry (ms), 7 maxFiles
Returns: "ok", or "files" when the tenant is at maxFiles (nothing saved)
]]
--@include lib
local id, tenant, now, expiresAt = ARGV[2], ARGV[3], tonumber(ARGV[5]), tonumber(ARGV[6])
purgeFiles(now, 1000)
local usage = k("fu", tenant)
if tonumber(redis.call("HGET", usage, "files") or "0") >= tonumber(ARGV[7]) then return "files" end
redis.call("HINCRBY", usage, "files", 1)
redis.call("HINCRBY", usage, "bytes", 0)
redis.call("HSET", P .. "fo", id, tenant)
redis.call("HSET", P .. "fb", id, 0)
redis.call("ZADD", P .. "fx", expiresAt, id)
redis.call("HSET", k("file", id), "meta", ARGV[4], "bytes", 0, "lines", 0, "expiresAt", expiresAt)
redis.call("PEXPIRE", k("file", id), math.max(1, expiresAt - now))
return "ok"
