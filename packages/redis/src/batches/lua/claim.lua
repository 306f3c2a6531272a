--[[ claim: hands up to `limit` due items to the caller, taking one item from each open batch in turn
(the starting batch rotates), each with a fresh fencing token and a visibility deadline. Claims whose
deadline has passed (their instance stopped extending them) are first put back in their batch's queue.
KEYS: none (built from the prefix, see keys.ts)
ARGV: 1 prefix, 2 now (ms), 3 visibilityMs, 4 limit
Returns: { nextDueAt or -1, then per claimed item: batch id, index, token, attempts made in this round,
  item JSON, batch doc JSON }
]]
--@include lib
local now, vis, limit = tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
for _, member in ipairs(redis.call("ZRANGEBYSCORE", P .. "run", "-inf", now, "LIMIT", 0, 1000)) do
  redis.call("ZREM", P .. "run", member)
  local at = string.find(member, "|", 1, true)
  local id, index = string.sub(member, 1, at - 1), string.sub(member, at + 1)
  redis.call("HDEL", k("k", id), index)
  redis.call("ZADD", k("rd", id), now, index)
end
local ids = redis.call("ZRANGE", P .. "open", 0, -1)
local out = { -1 }
if #ids == 0 then return out end
local turn = redis.call("INCR", P .. "turn") % #ids
local docs = {}
local taken, active = 0, true
while taken < limit and active do
  active = false
  for j = 0, #ids - 1 do
    if taken >= limit then break end
    local id = ids[((turn + j) % #ids) + 1]
    local due = redis.call("ZRANGEBYSCORE", k("rd", id), "-inf", now, "LIMIT", 0, 1)
    if #due > 0 then
      active = true
      taken = taken + 1
      local index = due[1]
      redis.call("ZREM", k("rd", id), index)
      local token = redis.call("INCR", P .. "fence")
      redis.call("HSET", k("k", id), index, token)
      redis.call("ZADD", P .. "run", now + vis, id .. "|" .. index)
      docs[id] = docs[id] or redis.call("HGET", k("t", id), "doc") or "{}"
      out[#out + 1] = id
      out[#out + 1] = index
      out[#out + 1] = token
      out[#out + 1] = redis.call("HGET", k("m", id), index) or "0"
      out[#out + 1] = redis.call("HGET", k("i", id), index) or "{}"
      out[#out + 1] = docs[id]
    end
  end
end
local nextDue = -1
for _, id in ipairs(ids) do
  local first = redis.call("ZRANGE", k("rd", id), 0, 0, "WITHSCORES")
  if #first > 0 then
    local at = tonumber(first[2])
    if at > now and (nextDue == -1 or at < nextDue) then nextDue = at end
  end
end
out[1] = nextDue
return out
