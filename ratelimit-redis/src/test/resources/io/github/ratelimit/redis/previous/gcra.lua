-- GCRA (generic cell rate algorithm): the token bucket's admissions, stored as one theoretical arrival time (TAT).
-- KEYS[i]: one string per limit, "<tat us>" or "<tat us>:<fraction>", the fraction in 1/(capacity/g) microseconds
-- (g = gcd(capacity, period)) so the emission interval period/capacity stays an exact integer number of ticks.

local result, ahead, resets, rates = {}, {}, {}, {}
local admitted = true
for i, key in ipairs(KEYS) do
  local capacity, period = capacity_of(i), period_of(i)
  local g = gcd(capacity, period)
  local rate, interval = capacity / g, period / g
  local window = capacity * interval
  -- ticks by which the TAT is ahead of now: the part of the burst already used
  local used = 0
  local tat = redis.call('GET', key)
  if tat then
    local micros, fraction = string.match(tat, '^(%d+):?(%d*)$')
    used = math.max(0, (tonumber(micros) - now) * rate + (tonumber(fraction) or 0))
  end
  local need = permits * interval
  local allowed = used + need <= window
  local after = used
  local retry = 0
  if not allowed then retry = ceildiv(used + need - window, rate) elseif consume then after = used + need end
  admitted = admitted and allowed
  ahead[i] = after
  rates[i] = rate
  resets[i] = ceildiv(after, rate)
  local base = 4 * (i - 1)
  result[base + 1] = allowed and 1 or 0
  result[base + 2] = floordiv(window - after, interval)
  result[base + 3] = retry
  result[base + 4] = resets[i]
end

if admitted and consume then
  for i, key in ipairs(KEYS) do
    local whole = floordiv(ahead[i], rates[i])
    local fraction = ahead[i] - whole * rates[i]
    local tat = string.format('%.0f', now + whole)
    if fraction > 0 then tat = tat .. ':' .. string.format('%.0f', fraction) end
    redis.call('SET', key, tat, 'PX', math.max(1, ceildiv(resets[i], 1000)))
  end
end
return result
