--[[ file-delete: deletes an input file and gives its place and bytes back to its tenant (once).
KEYS: none (built from the prefix, see keys.ts)
ARGV: 1 prefix, 2 file id
Returns: 1 when a file was deleted, else 0
]]
--@include lib
local id = ARGV[2]
if dropFile(id) then return 1 end
return math.min(1, redis.call("DEL", k("file", id), k("lines", id))) -- a file kept before quotas
