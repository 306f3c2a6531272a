--[[ claim: hands up to `limit` due items to the caller, taking a share from each tenant with an open
batch in turn, and within a tenant from each of its batches in turn (the starting ones rotate), so that
a tenant's share does not grow with its number of batches; each with a fresh fencing token and a visibility deadline: the claim is
the member `<id>|<index>|<token>` of the `run` set, scored by its deadline. Claims whose deadline has
passed (their instance stopped extending them) are first put back in their batch's queue.
KEYS: none (built from the prefix, see keys.ts)
ARGV: 1 prefix, 2 now (ms), 3 visibilityMs, 4 limit
Returns: { nextDueAt or -1, then per claimed item: batch id, index, token, attempts made in this round,
  item JSON, batch doc JSON }
]]
--@include lib
local now, vis, limit = tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
for _, member in ipairs(redis.call("ZRANGEBYSCORE", P .. "run", "-inf", now, "LIMIT", 0, 1000)) do
  redis.call("ZREM", P .. "run", member)
  local id, index = string.match(member, "^(.*)|(%d+)|%d+$")
  redis.call("ZADD", k("rd", id), now, index)
end
local ids = redis.call("ZRANGE", P .. "open", 0, -1)
local out = { -1 }
if #ids == 0 then return out end
local turn = redis.call("INCR", P .. "turn")
local docs, tenants, byTenant = {}, {}, {}
for _, id in ipairs(ids) do
  docs[id] = redis.call("HGET", k("t", id), "doc") or "{}"
  local ok, doc = pcall(cjson.decode, docs[id])
  local tenant = ok and type(doc) == "table" and type(doc.tenant) == "string" and doc.tenant or ""
  if byTenant[tenant] == nil then
    byTenant[tenant] = {}
    tenants[#tenants + 1] = tenant
  end
  byTenant[tenant][#byTenant[tenant] + 1] = id
end
local taken, active = 0, true

-- Claims up to `count` due items of one batch; answers how many it took.
local function take(id, count)
  local due = redis.call("ZRANGEBYSCORE", k("rd", id), "-inf", now, "LIMIT", 0, count)
  if #due == 0 then return 0 end
  redis.call("ZREM", k("rd", id), unpack(due))
  local last = redis.call("INCRBY", P .. "fence", #due)
  local made = redis.call("HMGET", k("m", id), unpack(due))
  local items = redis.call("HMGET", k("i", id), unpack(due))
  local run = {}
  for j, index in ipairs(due) do
    local token = last - #due + j
    run[#run + 1] = now + vis
    run[#run + 1] = id .. "|" .. index .. "|" .. token
    out[#out + 1] = id
    out[#out + 1] = index
    out[#out + 1] = token
    out[#out + 1] = made[j] or "0"
    out[#out + 1] = items[j] or "{}"
    out[#out + 1] = docs[id]
  end
  redis.call("ZADD", P .. "run", unpack(run))
  return #due
end

-- Takes up to `want` items of one tenant, a share from each of its batches in turn.
local function takeTenant(list, want)
  local got, share = 0, math.max(1, math.floor(want / #list))
  for b = 0, #list - 1 do
    if got >= want then break end
    got = got + take(list[((turn + b) % #list) + 1], math.min(share, want - got))
  end
  return got
end

while taken < limit and active do
  active = false
  local share = math.max(1, math.floor((limit - taken) / #tenants))
  for j = 0, #tenants - 1 do
    if taken >= limit then break end
    local got = takeTenant(byTenant[tenants[((turn + j) % #tenants) + 1]], math.min(share, limit - taken))
    if got > 0 then active = true end
    taken = taken + got
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
