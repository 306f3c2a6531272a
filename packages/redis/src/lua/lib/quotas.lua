-- Tenant quotas and the token budget, the same rules as core's memory/tenant-books.ts and
-- memory-store.ts (included after base). Configuration in the state hash: `bk` ("1" when some tenant
-- quota is finite: only then are tenants' books kept), `td` (tenantDefaults), `tqn` (how many tenants
-- have quotas of their own), `mt` (maxTokensInFlight, -1 = none), `fa` ("1" for fairness "tokens"),
-- `ow` (outputTokenWeight); counters: `tf` (estimated tokens in flight), `fl|<priority>` (fairness
-- "tokens": the counter of the last turn's start).
-- A quota is "maxConcurrency maxQueue tokensPerMinute burstTokens" (-1 = Infinity); tenants with an
-- entry of their own have it in the `tq` HASH. A tenant's books (the `tn` HASH, tenant -> record) are
-- "running queued inflight pending level refilledAt served throttled capped burst" (level and burst
-- "x" without a bucket); a record goes when the tenant is idle with a full bucket, and an idle one
-- still refilling waits in the `ti` ZSET (score: when its bucket is full) to be dropped then (one
-- holding more than its burst, after usage below the estimate, is dropped after KEEP_CREDIT_MS).
local MS_PER_MINUTE = 60000
-- An idle tenant whose bucket holds more than its burst (usage below the estimate) keeps it this long.
local KEEP_CREDIT_MS = 900000
local HUGE = 1 / 0 -- math is out of reach while Redis loads a function library

local function inf_of(value)
  local n = tonumber(value)
  if n == nil or n < 0 then return HUGE end
  return n
end

local function fin(value)
  if value == HUGE then return "x" end
  return num(value)
end

local function parse_quota(raw)
  local mc, mq, tpm, burst = string.match(raw, "^(%S+) (%S+) (%S+) (%S+)$")
  return { mc = inf_of(mc), mq = inf_of(mq), tpm = inf_of(tpm), burst = inf_of(burst) }
end

local function qconf()
  if Q == nil then
    Q = {
      books = S.bk == "1", tokens = S.fa == "1", budget = inf_of(S.mt), ow = tonumber(S.ow) or 2,
      tf = tonumber(S.tf) or 0,
    }
  end
  return Q
end

local function keeps_books()
  return qconf().books
end

local function fair_tokens()
  return qconf().tokens
end

local function quota_of(tenant)
  local q = QUOTAS[tenant]
  if q == nil then
    local raw = false
    if S.tqn ~= "0" then raw = redis.call("HGET", K_TQUOTA, tenant) end
    if not raw then raw = S.td or "-1 -1 -1 -1" end
    q = parse_quota(raw)
    QUOTAS[tenant] = q
  end
  return q
end

-- The tenant's books, read or created (full bucket at `now`). A quota changed since the record was
-- written applies as core's TenantBooks.configure does: a new bucket starts full, a smaller one clips.
local function book(tenant, now)
  local b = BOOKS[tenant]
  if b ~= nil then return b end
  local q = quota_of(tenant)
  local raw = redis.call("HGET", K_TBOOKS, tenant)
  if raw then
    local r, qd, f, p, lv, at, sv, th, cp, bs =
      string.match(raw, "^(%S+) (%S+) (%S+) (%S+) (%S+) (%S+) (%S+) (%S+) (%S+) (%S+)$")
    b = {
      running = tonumber(r), queued = tonumber(qd), inflight = tonumber(f), pending = tonumber(p),
      level = tonumber(lv) or HUGE, at = tonumber(at), served = tonumber(sv), throttled = tonumber(th),
      capped = cp == "1", was_idle = tonumber(r) == 0 and tonumber(qd) == 0,
    }
    b.burst = tonumber(bs) or HUGE
    if b.burst ~= q.burst then
      if b.burst == HUGE then b.level = q.burst else b.level = math.min(b.level, q.burst) end
    end
  else
    b = {
      running = 0, queued = 0, inflight = 0, pending = 0, level = q.burst, at = now, served = 0,
      throttled = 0, capped = false, was_idle = true, burst = q.burst,
    }
  end
  b.name, b.q = tenant, q
  BOOKS[tenant] = b
  BOOK_ORDER[#BOOK_ORDER + 1] = tenant
  return b
end

-- The bucket's level at `now` (refilled for the time since the last look).
local function refill(b, now)
  local tpm = b.q.tpm
  if tpm == HUGE then
    b.level = HUGE
    return HUGE
  end
  if now > b.at then
    local earned = ((now - b.at) * tpm) / MS_PER_MINUTE
    b.level = math.min(b.q.burst, b.level + earned)
  end
  b.at = math.max(b.at, now)
  return b.level
end

-- 0 when the bucket covers `tokens` on top of what already waits, else the ms until it will.
local function wait_for_tokens(b, tokens, now)
  local level = refill(b, now)
  if level == HUGE then return 0 end
  local target = math.min(tokens, b.q.burst) + b.pending
  if level >= target then return 0 end
  return ((target - level) * MS_PER_MINUTE) / b.q.tpm
end

-- Whether a ticket `t` passes the tenant's cap and the token budget (the other limits: see pick.lua).
-- A ticket larger than the whole budget starts only when nothing at all runs, and so runs alone.
local function quota_fits(t)
  local c = qconf()
  if c.budget ~= HUGE and c.tf + t.tokens > c.budget and G.running ~= 0 then return false end
  if c.books then
    local b = book(t.t, NOW)
    if b.running + t.cost > b.q.mc then return false end
  end
  return true
end

-- A ticket starts (or is re-registered running, `charge` false): the budget and its tenant's books.
local function quota_take(t, charge)
  local c = qconf()
  c.tf = c.tf + t.tokens
  if not c.books then return false end
  local b = book(t.t, NOW)
  b.running = b.running + t.cost
  b.inflight = b.inflight + t.tokens
  if charge then
    refill(b, NOW)
    b.level = b.level - t.tokens
    b.served = b.served + t.tokens
  end
  b.dirty = true
  return true
end

-- A ticket that held a slot gives it back; `booked`: its start was counted in its tenant's books.
local function quota_free(t)
  local c = qconf()
  c.tf = c.tf - t.tokens
  if not (c.books and t.booked) then return end
  local b = book(t.t, NOW)
  b.running = math.max(0, b.running - t.cost)
  b.inflight = math.max(0, b.inflight - t.tokens)
  b.dirty = true
end

-- A waiting ticket was admitted (true) or left the queue without a start (false).
local function quota_queue(t, joined)
  if not (qconf().books and t.booked) then return end
  local b = book(t.t, NOW)
  if joined then
    b.queued = b.queued + 1
    b.pending = b.pending + t.tokens
  else
    b.queued = math.max(0, b.queued - 1)
    b.pending = math.max(0, b.pending - t.tokens)
  end
  b.dirty = true
end

-- The tenant's own queue bound, then its bucket: nil when both let the ticket in, else the status
-- (-2 tenant full, or "-3 <retryAfterMs>"). A refusal counts as throttled.
local function quota_refusal(tenant, tokens, at)
  if not qconf().books then return nil end
  local b = book(tenant, at)
  local status = nil
  if b.queued >= b.q.mq then
    status = -2
  else
    local wait = wait_for_tokens(b, tokens, at)
    if wait > 0 then status = "-3 " .. num(wait) end
  end
  if status ~= nil then
    b.throttled = b.throttled + 1
    b.dirty = true
  end
  return status
end

-- Reported usage corrects the tenant's bucket and served count by the difference from the estimate.
local function quota_usage(tenant, tokens, used, weighted)
  if not qconf().books then return end
  local b = book(tenant, NOW)
  refill(b, NOW)
  b.level = b.level - (used - tokens)
  b.served = b.served + (weighted - tokens)
  b.dirty = true
end

-- Writes the books back (called by finish): drops idle records whose bucket is full, and those idle
-- ones whose bucket has filled since (a few per call).
local function save_quotas(fields)
  local c = qconf()
  fields[#fields + 1] = "tf"
  fields[#fields + 1] = num(c.tf)
  if not c.books or #BOOK_ORDER == 0 then return end
  for _, tenant in ipairs(redis.call("ZRANGEBYSCORE", K_TIDLE, "-inf", NOW, "LIMIT", 0, 8)) do
    if BOOKS[tenant] == nil then
      redis.call("ZREM", K_TIDLE, tenant)
      redis.call("HDEL", K_TBOOKS, tenant)
    end
  end
  for _, tenant in ipairs(BOOK_ORDER) do
    local b = BOOKS[tenant]
    if b.dirty then
      local idle = b.running == 0 and b.queued == 0
      local level = refill(b, NOW)
      if idle and level == b.q.burst then
        redis.call("HDEL", K_TBOOKS, tenant)
        if b.was_idle then redis.call("ZREM", K_TIDLE, tenant) end
      else
        local capped = "0"
        if b.capped then capped = "1" end
        redis.call("HSET", K_TBOOKS, tenant, b.running .. " " .. b.queued .. " " .. num(b.inflight) .. " "
          .. num(b.pending) .. " " .. fin(b.level) .. " " .. num(b.at) .. " " .. num(b.served) .. " "
          .. b.throttled .. " " .. capped .. " " .. fin(b.q.burst))
        if idle then
          local full_at = b.at + ((b.q.burst - level) * MS_PER_MINUTE) / b.q.tpm
          if level > b.q.burst then full_at = b.at + KEEP_CREDIT_MS end
          redis.call("ZADD", K_TIDLE, full_at, tenant)
        elseif b.was_idle then
          redis.call("ZREM", K_TIDLE, tenant)
        end
      end
    end
  end
end

-- configure: a tenant's books under its new quota, at once, as core's TenantBooks.configure does (a
-- new bucket starts full, any other is clipped to its burst); book() already did it if the burst changed.
local function reconfigure_book(tenant)
  local b = book(tenant, NOW)
  if b.burst == b.q.burst then
    if b.burst == HUGE then b.level = HUGE else b.level = math.min(b.level, b.q.burst) end
  end
  b.dirty = true
end
