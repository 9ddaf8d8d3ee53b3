-- Token bucket: `capacity` tokens, refilled continuously at `capacity` per `period`.
-- KEYS[i]: one hash per limit {level, time}: the level in integer units, measured at that time (us). A time from the
-- future refills nothing until the clock passes it. A reservation may take the level below empty, by up to a debt's
-- refill.
-- ARGV per limit: unit (units per token, period/g), rate (units refilled per us, capacity/g) and full (capacity * unit),
-- with g = gcd(capacity, period in us), so refills never drift.

local result, levels = {0, 0, 0, 0, 0}, {} -- five entries per limit, sized for one
local admitted = true
-- a lease evaluates twice: pass 1 reads what is available, pass 2 takes the grant; a reservation too: pass 1 finds
-- when the permits are due
for pass = (lease or reserve > 0) and 1 or 2, 2 do
  for i = 1, #KEYS do
    local unit, rate, full = ARGV[3 * i] + 0, ARGV[3 * i + 1] + 0, ARGV[3 * i + 2] + 0
    local capacity = full / unit
    local level = full
    -- how long before the stored time now is, when the clock stepped back: refilling starts only then
    local gap = 0
    local state = redis.call('HMGET', KEYS[i], 'level', 'time')
    if state[1] then
      level = state[1] + 0
      local elapsed = now - state[2]
      -- compared before multiplying, so elapsed * rate stays below the missing units
      if elapsed >= ceil((full - level) / rate) then
        level = full
      elseif elapsed > 0 then
        level = level + elapsed * rate
      else
        gap = -elapsed
      end
    end
    local need = permits * unit
    local allowed = level >= need
    local retry = 0
    if not allowed then
      retry = gap + ceil((need - level) / rate)
      -- a reservation also admits permits due within its wait and the debt (never across a clock stepped back);
      -- retry is then when they are due
      if reserve > 0 and gap == 0 then
        local debt = full / rate
        if (9007199254740992 - full) / rate < debt then debt = floor((9007199254740992 - full) / rate) end
        allowed = retry <= reserve and retry <= debt
      end
      if not allowed then admitted = false end
    end
    if allowed and consume then
      -- taken as at now + due: from a bucket no fuller than full then
      if level > full - due * rate then level = full - due * rate end
      level, gap = level - need, 0
    end
    levels[i] = level
    local remaining = floor(level / unit)
    if remaining < 0 then remaining = 0 end
    local next = 0
    if remaining < capacity then next = gap + ceil(((remaining + 1) * unit - level) / rate) end
    result[5 * i - 4], result[5 * i - 3], result[5 * i - 2], result[5 * i - 1], result[5 * i] =
      allowed and 1 or 0, remaining, retry, gap + ceil((full - level) / rate), next
  end
  if pass == 1 then
    grant(result)
    admitted = true
  end
end

if admitted and consume then
  for i = 1, #KEYS do
    redis.call('HSET', KEYS[i], 'level', levels[i], 'time', now)
    redis.call('PEXPIRE', KEYS[i], ceil(result[5 * i - 1] / 1000))
  end
end
if lease then
  result[#result + 1] = granted
  result[#result + 1] = now
end
return result
