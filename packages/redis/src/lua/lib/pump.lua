-- Grants slots while something waits that fits; nothing while recovering from a loss of state. A
-- preemption victim's slot freed in this call goes to its arrival first (hand_over in preempt.lua).
local function pump()
  if HANDOVER then hand_over() end
  if RECOVERING then return end
  while G.queued > 0 and G.running < CFG.max do
    local lane, id, aged = pick()
    if lane == nil then break end
    start(lane, id, aged)
  end
end
