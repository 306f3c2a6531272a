--[[ tick: the calling instance's heartbeat, run every min(pollMs, leaseMs / 3): renews its heartbeat
and the leases of its running tickets, drains its inbox of grants (the safety net under pub/sub), and
does the housekeeping (expired leases, dead instances) that frees slots even when nothing else happens.
KEYS: 1 state, 2 tw, 3 leases, 4 instances
ARGV: 1 prefix, 2 instance id, 3 now for aging ("" = Redis TIME), 4 leaseMs, 5.. ids of running tickets
Returns: { lost, counts, granted ids (new grants and the drained inbox), ids whose lease was gone,
  instances live now, { victim id, the arrival's priority } when a running ticket of the calling
  instance is the preemption victim now (else {}): the victim's instance learns it through its lease
  renewal even if the pub/sub message was lost }
  lost is 1 when the instance was not registered (Redis lost it or purged its queued tickets): the
  caller then re-sends its waiting tickets; or { -9 } when nothing is configured under this prefix
]]
--@include lib
local lease = tonumber(ARGV[4])
local lost = 0
if not registered() then lost = 1 end
register(lease)
if not begin() then return { -9 } end
local freed = upkeep()
local missing = {}
for i = 5, #ARGV do
  local id = ARGV[i]
  if leased(id) then
    redis.call("ZADD", K_LEASES, LEASE_NOW + lease, id)
  else
    missing[#missing + 1] = id
  end
end
local inbox = PREFIX .. "inbox:" .. ME
for _, id in ipairs(redis.call("LRANGE", inbox, 0, -1)) do MINE[#MINE + 1] = id end
redis.call("DEL", inbox)
if freed then pump() end
local counts = finish()
local victim = {}
if winding() and owner_of(S.pv) == ME and leased(S.pv) then victim = { S.pv, S.pp } end
return { lost, counts, MINE, missing, live_count(), victim }
