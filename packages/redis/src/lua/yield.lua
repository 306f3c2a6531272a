--[[ yield: a preemption victim of the calling instance let go of its slot (its task stopped). The slot goes
to the victim's arrival first (or to the next owed arrival still waiting), when that one fits; then,
when the task runs again, its ticket waits again at the front of its tenant's queue and of its
priority's arrival order, with its arrival time, no admission check, and its start's charges (tokens,
fairness counter) given back; then what fits is granted and the owed arrivals may stop the next victim
(see lib/preempt.lua). A ticket whose lease has lapsed meanwhile only waits again.
KEYS: 1 state, 2 tw, 3 leases, 4 instances
ARGV: 1 prefix, 2 instance id, 3 now for aging ("" = Redis TIME), 4 leaseMs of the instance, 5 "1" when the
      ticket waits again, else "0", 6.. the ticket as enqueue.lua takes it (id, priority, tenant, cost,
      estimated tokens, retry, enqueuedAt by the scheduler's clock or "", age in ms)
Returns: { status, counts, granted ids of the calling instance }: status 0, or -7 when the ticket was to
  wait again but its priority is not configured in Redis, or -8 when the calling instance is not
  registered (it re-sends its waiting tickets); or { -9 } when nothing is configured under this prefix
]]
--@include lib
if not begin() then return { -9 } end
upkeep()
local id = ARGV[6]
local count = (tonumber(redis.call("HGET", PREFIX .. "pr:" .. id, "count")) or 0) + 1
free(id)
pump()
local status = 0
if ARGV[5] == "1" then
  local lane = BY_NAME[ARGV[7]]
  if not registered() then
    status = -8
  elseif lane == nil or lane.conf == nil then
    status = -7
  else
    local at = LEASE_NOW - tonumber(ARGV[13])
    if ARGV[12] ~= "" then at = tonumber(ARGV[12]) end
    requeue(id, ARGV[7], ARGV[8], tonumber(ARGV[9]), tonumber(ARGV[10]), at, tonumber(ARGV[4]), count)
    pump()
  end
end
return { status, finish(), MINE }
