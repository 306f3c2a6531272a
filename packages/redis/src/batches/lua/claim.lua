--[[ claim: hands up to `limit` due items to the caller. Open batches are sorted by their key (ARGV 5:
"deadline", the end of the completion window, which is their score in `open`; "created", their creation
time) and each priority's cut into groups: the batches whose key is at most the group's first key plus
`tieMs`; the n-th groups of all priorities are served together. A group gets every item it has due
before the next group gets any (earliest deadline first, or FIFO across batches, within a priority).
Within a group, tenants take turns, a share each, and within a tenant each of its batches in turn (the
starting ones rotate), so that a tenant's share does not grow with its number of batches. Each
item gets a fresh fencing token and a visibility deadline: the claim is the member `<id>|<index>|<token>`
of the `run` set, scored by its deadline. The first claim of a round records `runningAt` and
`runningDone` in the batch hash (what the completion estimate measures from). Claims whose deadline has
passed (their instance stopped extending them) are first put back in their batch's queue.
KEYS: none (built from the prefix, see keys.ts)
ARGV: 1 prefix, 2 now (ms), 3 visibilityMs, 4 limit, 5 order key ("deadline" or "created"), 6 tieMs
Returns: { nextDueAt or -1, then per claimed item: batch id, index, token, attempts made in this round,
  item JSON, batch doc JSON }
]]
--@include lib
local now, vis, limit = tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local byCreation, tieMs = ARGV[5] == "created", tonumber(ARGV[6])
for _, member in ipairs(redis.call("ZRANGEBYSCORE", P .. "run", "-inf", now, "LIMIT", 0, 1000)) do
  redis.call("ZREM", P .. "run", member)
  local id, index = string.match(member, "^(.*)|(%d+)|%d+$")
  redis.call("ZADD", k("rd", id), now, index)
end
local open = redis.call("ZRANGE", P .. "open", 0, -1, "WITHSCORES")
local out = { -1 }
if #open == 0 then return out end
local turn = redis.call("INCR", P .. "turn")
local docs, running, entries = {}, {}, {}
for i = 1, #open, 2 do
  local id = open[i]
  local fields = redis.call("HMGET", k("t", id), "doc", "runningAt")
  docs[id] = fields[1] or "{}"
  running[id] = fields[2] ~= false
  local ok, doc = pcall(cjson.decode, docs[id])
  if not (ok and type(doc) == "table") then doc = {} end
  local key = tonumber(open[i + 1])
  if byCreation then key = tonumber(doc.createdAt) or 0 end
  local tenant = type(doc.tenant) == "string" and doc.tenant or ""
  local priority = type(doc.priority) == "string" and doc.priority or ""
  entries[#entries + 1] = { id = id, tenant = tenant, priority = priority, key = key, n = #entries + 1 }
end
table.sort(entries, function(a, b)
  if a.key ~= b.key then return a.key < b.key end
  return a.n < b.n
end)
local taken = 0

-- Claims up to `count` due items of one batch; answers how many it took.
local function take(id, count)
  local due = redis.call("ZRANGEBYSCORE", k("rd", id), "-inf", now, "LIMIT", 0, count)
  if #due == 0 then return 0 end
  redis.call("ZREM", k("rd", id), unpack(due))
  if not running[id] then
    running[id] = true
    local counts = redis.call("HMGET", k("t", id), "completed", "failed")
    local done = (tonumber(counts[1]) or 0) + (tonumber(counts[2]) or 0)
    redis.call("HSET", k("t", id), "runningAt", now, "runningDone", done)
  end
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

-- Takes what one group has due (up to the limit), its tenants taking turns.
local function takeGroup(group)
  local tenants, byTenant = {}, {}
  for _, entry in ipairs(group) do
    if byTenant[entry.tenant] == nil then
      byTenant[entry.tenant] = {}
      tenants[#tenants + 1] = entry.tenant
    end
    byTenant[entry.tenant][#byTenant[entry.tenant] + 1] = entry.id
  end
  local active = true
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
end

-- Each priority's batches cut into groups in key order; the n-th groups of all priorities are served
-- together, n-th, so the order holds within a priority and the scheduler decides between priorities.
local groups, rank, edge = {}, {}, {}
for _, entry in ipairs(entries) do
  local p = entry.priority
  if rank[p] == nil or entry.key > edge[p] then
    rank[p] = (rank[p] or 0) + 1
    edge[p] = entry.key + tieMs
  end
  groups[rank[p]] = groups[rank[p]] or {}
  table.insert(groups[rank[p]], entry)
end
for r = 1, #groups do
  if taken >= limit then break end
  takeGroup(groups[r])
end
local nextDue = -1
for _, entry in ipairs(entries) do
  local first = redis.call("ZRANGE", k("rd", entry.id), 0, 0, "WITHSCORES")
  if #first > 0 then
    local at = tonumber(first[2])
    if at > now and (nextDue == -1 or at < nextDue) then nextDue = at end
  end
end
out[1] = nextDue
return out
