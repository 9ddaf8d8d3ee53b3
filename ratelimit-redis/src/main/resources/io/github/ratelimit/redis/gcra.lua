-- GCRA (generic cell rate algorithm): the token bucket's admissions, stored as one theoretical arrival time (TAT).
-- KEYS[i]: one string per limit, "<tat us>" or "<tat us>:<fraction>", the fraction in 1/rate microseconds so the
-- emission interval period/capacity stays an exact integer number of ticks.
-- ARGV per limit: interval (ticks per permit, period/g), rate (ticks per us, capacity/g) and window
-- (capacity * interval, the ticks of a full burst), with g = gcd(capacity, period in us).

local result, aheads = {0, 0, 0, 0}, {} -- four entries per limit, sized for one
local admitted = true
for i = 1, #KEYS do
  local interval, rate, window = ARGV[3 * i] + 0, ARGV[3 * i + 1] + 0, ARGV[3 * i + 2] + 0
  -- ticks by which the TAT is ahead of now: the part of the burst already used
  local used = 0
  local tat = redis.call('GET', KEYS[i])
  if tat then
    local colon = string.find(tat, ':', 1, true)
    if colon then
      used = (string.sub(tat, 1, colon - 1) - now) * rate + string.sub(tat, colon + 1)
    else
      used = (tat - now) * rate
    end
    if used < 0 then used = 0 end
  end
  local need = permits * interval
  local allowed = used + need <= window
  local retry = 0
  if not allowed then
    admitted = false
    retry = ceil((used + need - window) / rate)
  elseif consume then
    used = used + need
  end
  aheads[i] = used
  result[4 * i - 3], result[4 * i - 2], result[4 * i - 1], result[4 * i] =
    allowed and 1 or 0, floor((window - used) / interval), retry, ceil(used / rate)
end

if admitted and consume then
  for i = 1, #KEYS do
    local rate = ARGV[3 * i + 1] + 0
    local whole = floor(aheads[i] / rate)
    local fraction = aheads[i] - whole * rate
    local tat = now + whole
    if fraction > 0 then tat = string.format('%d:%d', tat, fraction) end
    redis.call('SET', KEYS[i], tat, 'PX', ceil(result[4 * i] / 1000))
  end
end
return result
