-- Removes one client's override from the hash of every override (KEYS[1]), atomically, and changes its version as
-- overrides-set.lua does.
-- ARGV: field. Returns {now (ms, Redis' clock), the value removed} or {now} when there was none.

local clock = redis.call('TIME')
local now = clock[1] * 1000 + math.floor(clock[2] / 1000)
local removed = redis.call('HGET', KEYS[1], ARGV[1])
if removed then
  redis.call('HDEL', KEYS[1], ARGV[1])
  local version = math.max((tonumber(redis.call('HGET', KEYS[1], '#version')) or 0) + 1,
    clock[1] * 1000000 + clock[2])
  redis.call('HSET', KEYS[1], '#version', string.format('%d', version))
end
return {now, removed}
