-- Sets one client's override in the hash of every override (KEYS[1]), on Redis' clock, atomically.
-- Each field is '<policy length>:<policy><key>'; each value '<limits>|<expires at ms, 0 for never>|<set at ms>|<set by>';
-- the field '#version' changes with every change, so that instances reload the hash only when it changed: it is the
-- time of the change in microseconds, or one more than the last version if that is later, so that a hash Redis lost
-- and wrote afresh never repeats a version an instance has seen.
-- ARGV: field, limits, expires in (ms, 0 for never), set by, the most overrides kept.
-- Drops expired overrides first; refuses a new one beyond the maximum.
-- Returns {1, set at, expires at} when set, {0, count} when the maximum is reached.

local clock = redis.call('TIME')
local now = clock[1] * 1000 + math.floor(clock[2] / 1000)
local field, expiresIn, maximum = ARGV[1], ARGV[3] + 0, ARGV[5] + 0
local all = redis.call('HGETALL', KEYS[1])
local count, exists = 0, false
for i = 1, #all, 2 do
  if all[i] ~= '#version' then
    local expiresAt = tonumber(string.match(all[i + 1], '^[^|]*|(%d+)|'))
    if expiresAt and expiresAt > 0 and expiresAt <= now then
      redis.call('HDEL', KEYS[1], all[i])
    else
      count = count + 1
      if all[i] == field then
        exists = true
      end
    end
  end
end
if not exists and count >= maximum then
  return {0, count}
end
local expiresAt = 0
if expiresIn > 0 then
  expiresAt = now + expiresIn
end
redis.call('HSET', KEYS[1], field, ARGV[2] .. '|' .. string.format('%d', expiresAt) .. '|' .. string.format('%d', now)
  .. '|' .. ARGV[4])
local version = math.max((tonumber(redis.call('HGET', KEYS[1], '#version')) or 0) + 1,
  clock[1] * 1000000 + clock[2])
redis.call('HSET', KEYS[1], '#version', string.format('%d', version))
return {1, now, expiresAt}
