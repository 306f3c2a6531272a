-- Shared by every batch script (see ../keys.ts for every key and its type).
-- ARGV[1] = the key prefix; every key is built from it, so in Redis Cluster the prefix must carry a
-- hash tag ("{llm}:") to keep them all in one slot.
local P = ARGV[1] .. "b:"

local function k(kind, id)
  return P .. kind .. ":" .. id
end

local BATCH_KINDS = { "t", "i", "c", "a", "r", "f", "m", "rd" }

-- A finished batch leaves the open set (it may be there since its creation) and its keys expire.
local function expireBatch(id, ttl)
  redis.call("ZREM", P .. "open", id)
  for _, kind in ipairs(BATCH_KINDS) do redis.call("PEXPIRE", k(kind, id), ttl) end
end

local function persistBatch(id)
  for _, kind in ipairs(BATCH_KINDS) do redis.call("PERSIST", k(kind, id)) end
end

local function batchFields(id)
  return redis.call("HGETALL", k("t", id))
end

-- The claims of one batch in the `run` set: members `<id>|<index>|<token>` (the set holds only what
-- instances are running now, so it stays small).
local function claimsOf(id)
  local found = {}
  local head = id .. "|"
  for _, member in ipairs(redis.call("ZRANGE", P .. "run", 0, -1)) do
    if string.sub(member, 1, #head) == head then found[#found + 1] = member end
  end
  return found
end

-- Every item of an open batch not yet final (queued or claimed) ends with `errorJson`; the batch gets
-- `status` and the timestamps in `stamps`, leaves the open set, and its keys expire after `ttl`.
local function endOpen(id, now, errorJson, status, stamps, ttl)
  local open = redis.call("ZRANGE", k("rd", id), 0, -1)
  redis.call("DEL", k("rd", id))
  for _, member in ipairs(claimsOf(id)) do
    redis.call("ZREM", P .. "run", member)
    open[#open + 1] = string.match(member, "|(%d+)|")
  end
  for _, index in ipairs(open) do
    local customId = redis.call("HGET", k("c", id), index) or ""
    local result = '{"customId":' .. cjson.encode(customId) .. ',"response":null,"error":' .. errorJson .. "}"
    redis.call("HSET", k("r", id), index, result)
    redis.call("SADD", k("f", id), index)
  end
  redis.call("DEL", k("m", id)) -- attempt counts exist only for items that were still open
  redis.call("HINCRBY", k("t", id), "failed", #open)
  redis.call("HSET", k("t", id), "status", status)
  for _, field in ipairs(stamps) do redis.call("HSET", k("t", id), field, now) end
  redis.call("ZREM", P .. "open", id)
  expireBatch(id, ttl)
end

-- Input files: `fx` ZSET file id -> expiry (ms), `fo` HASH file id -> tenant, `fb` HASH file id -> bytes
-- reserved, `fu:<tenant>` HASH `files` and `bytes` kept by the tenant (see ../keys.ts).

-- Deletes a kept file and gives its place and bytes back to its tenant, once; false when not kept.
local function dropFile(id)
  local tenant = redis.call("HGET", P .. "fo", id)
  if not tenant then return false end
  local usage = k("fu", tenant)
  if redis.call("HINCRBY", usage, "files", -1) <= 0 then
    redis.call("DEL", usage)
  else
    redis.call("HINCRBY", usage, "bytes", 0 - tonumber(redis.call("HGET", P .. "fb", id) or "0")) -- never "-0"
  end
  redis.call("HDEL", P .. "fo", id)
  redis.call("HDEL", P .. "fb", id)
  redis.call("ZREM", P .. "fx", id)
  redis.call("DEL", k("file", id), k("lines", id))
  return true
end

-- Deletes at most `limit` files expired by `now`.
local function purgeFiles(now, limit)
  for _, id in ipairs(redis.call("ZRANGEBYSCORE", P .. "fx", "-inf", now, "LIMIT", 0, limit)) do
    dropFile(id)
  end
end
