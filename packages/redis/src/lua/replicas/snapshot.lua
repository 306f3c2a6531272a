-- Shared by the ledger's scripts that report counts (prepended to each of them).
-- Redis time in ms.
local function nowMs()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end

-- Steps the pool's sequence (KEYS[seqAt]) and counts the live leases of KEYS[from..]. The sequence only
-- grows, also across a Redis restart (it starts at the time in ms), so an instance keeps the newest of
-- the snapshots it gets from replies and messages. Returns seq and a list of counts.
local function snapshot(seqAt, from, now)
  local seq = math.max(tonumber(redis.call('GET', KEYS[seqAt]) or '0') + 1, now)
  redis.call('SET', KEYS[seqAt], string.format('%d', seq), 'PX', 86400000)
  local counts = {}
  for i = from, #KEYS do counts[#counts + 1] = redis.call('ZCOUNT', KEYS[i], '(' .. now, '+inf') end
  return seq, counts
end

-- Publishes a snapshot on the pool's channel as JSON [seq, id, count, ...]; ids are ARGV[idsAt..].
local function publish(channel, seq, counts, idsAt)
  local message = { seq }
  for i = 1, #counts do
    message[#message + 1] = ARGV[idsAt + i - 1]
    message[#message + 1] = counts[i]
  end
  redis.call('PUBLISH', channel, cjson.encode(message))
end

-- The reply of a script: a head (granted or not) if any, seq, then the counts.
local function reply(head, seq, counts)
  local out = head
  out[#out + 1] = seq
  for i = 1, #counts do out[#out + 1] = counts[i] end
  return out
end
