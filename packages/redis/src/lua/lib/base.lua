-- Shared by every script (included in this order: base, ring, upkeep, pick, finish).
-- Conventions: KEYS[1..6] = cfg, tw, state, tickets, leases, instances (see keys.ts);
-- ARGV[1] = key prefix, ARGV[2] = calling instance id, ARGV[3] = "now" for aging by the
-- scheduler's clock, or "" to use Redis TIME. Leases and heartbeats always use Redis TIME.
local PREFIX = ARGV[1]
local ME = ARGV[2]
local K_CFG, K_TW, K_STATE, K_TICKETS, K_LEASES, K_INSTANCES = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6]

-- Numbers are written with 17 significant digits so that pass, credit and time values read back as
-- the same doubles the in-memory store computes.
local function num(x)
  return string.format("%.17g", x)
end

local clock = redis.call("TIME")
local LEASE_NOW = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
local NOW = LEASE_NOW
if ARGV[3] ~= "" then NOW = tonumber(ARGV[3]) end

local CFG, G
local LANES = {}   -- configured priorities, in configuration order
local BY_NAME = {} -- every lane touched by this call, configured or not
local MINE = {}    -- ids granted to the calling instance, in grant order
local OTHERS = {}  -- instance -> ids granted to it
local OTHER_ORDER = {}
local TICKETS = {}
local WEIGHTS = {}

local function load_lane(name, conf)
  local v = redis.call("HMGET", PREFIX .. "lane:" .. name, "pass", "queued", "running", "cursor")
  return {
    name = name, conf = conf, pass = tonumber(v[1]) or 0, queued = tonumber(v[2]) or 0,
    running = tonumber(v[3]) or 0, cursor = v[4] or "",
  }
end

-- Loads the configuration, the totals and every configured lane; false when nothing is configured.
local function begin()
  local raw = redis.call("GET", K_CFG)
  if not raw then return false end
  CFG = cjson.decode(raw)
  local s = redis.call("HMGET", K_STATE, "running", "queued", "vt", "seq")
  G = { running = tonumber(s[1]) or 0, queued = tonumber(s[2]) or 0, vt = tonumber(s[3]) or 0, seq = tonumber(s[4]) or 0 }
  for i, conf in ipairs(CFG.p) do
    local lane = load_lane(conf.n, conf)
    LANES[i] = lane
    BY_NAME[conf.n] = lane
  end
  return true
end

-- A lane by name, also one that is no longer configured (its tickets can still leave or be released).
local function lane_of(name)
  local lane = BY_NAME[name]
  if lane == nil then
    lane = load_lane(name, nil)
    BY_NAME[name] = lane
  end
  return lane
end

-- True when an instance's heartbeat is current (it has not died, been purged or been forgotten).
local LIVE = {}
local function alive(instance)
  local live = LIVE[instance]
  if live == nil then
    local expiry = redis.call("ZSCORE", K_INSTANCES, instance)
    live = expiry ~= false and tonumber(expiry) >= LEASE_NOW
    LIVE[instance] = live
  end
  return live
end

local function registered()
  return alive(ME)
end

-- Renews the calling instance's heartbeat.
local function register(lease_ms)
  redis.call("ZADD", K_INSTANCES, LEASE_NOW + lease_ms, ME)
  LIVE[ME] = true
end

local function owner_of(id)
  return string.match(id, "^([^:]+):")
end

-- A ticket record is "cost at leaseMs len(priority) priority..tenant": any bytes in either name.
local function ticket(id)
  local t = TICKETS[id]
  if t ~= nil then return t end
  local raw = redis.call("HGET", K_TICKETS, id)
  if not raw then return nil end
  local cost, at, lease, plen, pos = string.match(raw, "^(%S+) (%S+) (%S+) (%d+) ()")
  plen = tonumber(plen)
  t = {
    id = id, cost = tonumber(cost), at = tonumber(at), lease = tonumber(lease),
    p = string.sub(raw, pos, pos + plen - 1), t = string.sub(raw, pos + plen),
  }
  TICKETS[id] = t
  return t
end

local function put_ticket(id, cost, at, lease, p, tenant)
  redis.call("HSET", K_TICKETS, id, num(cost) .. " " .. num(at) .. " " .. num(lease) .. " " .. string.len(p) .. " " .. p .. tenant)
  TICKETS[id] = { id = id, cost = cost, at = at, lease = lease, p = p, t = tenant }
end

local function drop_ticket(id)
  redis.call("HDEL", K_TICKETS, id)
  TICKETS[id] = nil
end

local function leased(id)
  return redis.call("ZSCORE", K_LEASES, id) ~= false
end
