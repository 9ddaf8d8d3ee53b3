-- Token bucket: `capacity` tokens, refilled continuously at `capacity` per `period`.
-- KEYS[i]: one hash per limit {level, time}: the level in integer units, measured at that time (us).
-- ARGV per limit: unit (units per token, period/g), rate (units refilled per us, capacity/g) and full (capacity * unit),
-- with g = gcd(capacity, period in us), so refills never drift.

local result, levels = {0, 0, 0, 0}, {} -- four entries per limit, sized for one
local admitted = true
for i = 1, #KEYS do
  local unit, rate, full = ARGV[3 * i] + 0, ARGV[3 * i + 1] + 0, ARGV[3 * i + 2] + 0
  local level = full
  local state = redis.call('HMGET', KEYS[i], 'level', 'time')
  if state[1] then
    level = state[1] + 0
    local elapsed = now - state[2]
    if elapsed > 0 then level = level + elapsed * rate end
    if level > full then level = full end
  end
  local need = permits * unit
  local allowed = level >= need
  local retry = 0
  if not allowed then
    admitted = false
    retry = ceil((need - level) / rate)
  elseif consume then
    level = level - need
  end
  levels[i] = level
  result[4 * i - 3], result[4 * i - 2], result[4 * i - 1], result[4 * i] =
    allowed and 1 or 0, floor(level / unit), retry, ceil((full - level) / rate)
end

if admitted and consume then
  for i = 1, #KEYS do
    redis.call('HSET', KEYS[i], 'level', levels[i], 'time', now)
    redis.call('PEXPIRE', KEYS[i], ceil(result[4 * i] / 1000))
  end
end
return result
