-- Token bucket: `capacity` tokens, refilled continuously at `capacity` per `period`.
-- KEYS[i]: one hash per limit {level, time}. Appended to common.lua.
-- Levels are kept in integer units (one token = period/g units, refill = capacity/g units per microsecond, with
-- g = gcd(capacity, period)), so refills never drift. Time is Redis' own clock in microseconds.

local result, levels, resets = {}, {}, {}
local admitted = true
for i, key in ipairs(KEYS) do
  local capacity, period = capacity_of(i), period_of(i)
  local g = gcd(capacity, period)
  local rate, unit = capacity / g, period / g
  local full = capacity * unit
  local level = full
  local state = redis.call('HMGET', key, 'level', 'time')
  if state[1] then
    local elapsed = math.max(0, now - tonumber(state[2]))
    level = math.min(full, tonumber(state[1]) + elapsed * rate)
  end
  local need = permits * unit
  local allowed = level >= need
  local after = level
  local retry = 0
  if not allowed then retry = ceildiv(need - level, rate) elseif consume then after = level - need end
  admitted = admitted and allowed
  levels[i] = after
  resets[i] = ceildiv(full - after, rate)
  local base = 4 * (i - 1)
  result[base + 1] = allowed and 1 or 0
  result[base + 2] = floordiv(after, unit)
  result[base + 3] = retry
  result[base + 4] = resets[i]
end

if admitted and consume then
  for i, key in ipairs(KEYS) do
    redis.call('HSET', key, 'level', string.format('%.0f', levels[i]), 'time', string.format('%.0f', now))
    redis.call('PEXPIRE', key, math.max(1, ceildiv(resets[i], 1000)))
  end
end
return result
