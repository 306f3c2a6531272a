--[[ extend: moves the visibility deadline of the claims the caller still holds (its heartbeat).
KEYS: none (built from the prefix, see keys.ts)
ARGV: 1 prefix, 2 now (ms), 3 visibilityMs, then triples: batch id, index, token
Returns: the claims that were lost (stale token), as a flat list of batch id, index
]]
--@include lib
local deadline = tonumber(ARGV[2]) + tonumber(ARGV[3])
local lost = {}
for i = 4, #ARGV, 3 do
  local id, index, token = ARGV[i], ARGV[i + 1], ARGV[i + 2]
  if redis.call("HGET", k("k", id), index) == token then
    redis.call("ZADD", P .. "run", "XX", deadline, id .. "|" .. index)
  else
    lost[#lost + 1] = id
    lost[#lost + 1] = index
  end
end
return lost
