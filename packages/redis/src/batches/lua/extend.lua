--[[ extend: moves the visibility deadline of the claims the caller still holds (its heartbeat).
KEYS: none (built from the prefix, see keys.ts)
ARGV: 1 prefix, 2 now (ms), 3 visibilityMs, then triples: batch id, index, token
Returns: the claims that were lost (revoked, or taken again after their deadline), as a flat list of
  batch id, index
]]
--@include lib
local deadline = tonumber(ARGV[2]) + tonumber(ARGV[3])
local lost = {}
for i = 4, #ARGV, 3 do
  local member = ARGV[i] .. "|" .. ARGV[i + 1] .. "|" .. ARGV[i + 2]
  if redis.call("ZSCORE", P .. "run", member) then
    redis.call("ZADD", P .. "run", deadline, member)
  else
    lost[#lost + 1] = ARGV[i]
    lost[#lost + 1] = ARGV[i + 1]
  end
end
return lost
