--[[ file-append: appends lines to a kept file and sets its size, reserving the growth against its
tenant's maxBytes; the lines list takes the record's time to live.
KEYS: none (built from the prefix, see keys.ts)
ARGV: 1 prefix, 2 file id, 3 the file's new size (bytes), 4 maxBytes, 5... the lines
Returns: "ok", "gone" when the file is not kept (deleted or expired; nothing done), or "bytes" when
the growth would take its tenant past maxBytes (nothing done)
]]
--@include lib
local id, bytes = ARGV[2], tonumber(ARGV[3])
local tenant = redis.call("HGET", P .. "fo", id)
if not tenant or redis.call("EXISTS", k("file", id)) == 0 then return "gone" end
local growth = bytes - tonumber(redis.call("HGET", P .. "fb", id) or "0")
local usage = k("fu", tenant)
if growth > 0 and tonumber(redis.call("HGET", usage, "bytes") or "0") + growth > tonumber(ARGV[4]) then
  return "bytes"
end
redis.call("HINCRBY", usage, "bytes", growth)
redis.call("HSET", P .. "fb", id, bytes)
for from = 5, #ARGV, 1000 do
  redis.call("RPUSH", k("lines", id), unpack(ARGV, from, math.min(#ARGV, from + 999)))
end
redis.call("HSET", k("file", id), "bytes", bytes)
redis.call("HINCRBY", k("file", id), "lines", #ARGV - 4)
local ttl = redis.call("PTTL", k("file", id))
if ttl > 0 and #ARGV > 4 then redis.call("PEXPIRE", k("lines", id), ttl) end
return "ok"
