--[[ sweep: open batches whose completion window has ended become expired; their items not yet final
end as batch_expired (claims are revoked). Input files expired by now are deleted (at most 1000 a call).
KEYS: none (built from the prefix, see keys.ts)
ARGV: 1 prefix, 2 now (ms), 3 error JSON of an expired item, 4 ttl of a finished batch's keys (ms)
Returns: the ids of the batches expired by this call (at most 10 per call)
]]
--@include lib
purgeFiles(tonumber(ARGV[2]), 1000)
local ids = redis.call("ZRANGEBYSCORE", P .. "open", "-inf", ARGV[2], "LIMIT", 0, 10)
for _, id in ipairs(ids) do
  endOpen(id, ARGV[2], ARGV[3], "expired", { "expiredAt" }, tonumber(ARGV[4]))
end
return ids
