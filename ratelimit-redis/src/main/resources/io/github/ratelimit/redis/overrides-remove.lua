-- Removes one client's override from the hash of every override (KEYS[1]), atomically (see overrides-set.lua).
-- ARGV: field. Returns {now (ms, Redis' clock), the value removed} or {now} when there was none.

local clock = redis.call('TIME')
local now = clock[1] * 1000 + math.floor(clock[2] / 1000)
local removed = redis.call('HGET', KEYS[1], ARGV[1])
if removed then
  redis.call('HDEL', KEYS[1], ARGV[1])
  redis.call('HINCRBY', KEYS[1], '#version', 1)
end
return {now, removed}
