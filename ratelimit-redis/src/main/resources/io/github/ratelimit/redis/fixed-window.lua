-- Fixed window: a counter per window of one period, windows aligned to the Unix epoch.
-- KEYS[i]: one string per limit, "<window index>:<count>", expiring when its window ends.
-- ARGV per limit: capacity, period (us).

local result, states, ttls = {0, 0, 0, 0}, {}, {} -- four entries per limit, sized for one
local admitted = true
for i = 1, #KEYS do
  local capacity, period = ARGV[2 * i + 1] + 0, ARGV[2 * i + 2] + 0
  local window = floor(now / period)
  local left = (window + 1) * period - now
  -- the window's first write sets the TTL (ms), later ones keep it
  local count, ttl = 0, ceil(left / 1000)
  local state = redis.call('GET', KEYS[i])
  if state then
    local colon = string.find(state, ':', 1, true)
    if colon and string.sub(state, 1, colon - 1) + 0 == window then
      count, ttl = string.sub(state, colon + 1) + 0, false
    end
  end
  local allowed = count + permits <= capacity
  if not allowed then
    admitted = false
  elseif consume then
    count = count + permits
    states[i] = string.format('%d:%d', window, count)
  end
  local remaining = capacity - count
  if remaining < 0 then remaining = 0 end
  ttls[i] = ttl
  result[4 * i - 3], result[4 * i - 2], result[4 * i - 1], result[4 * i] =
    allowed and 1 or 0, remaining, allowed and 0 or left, count > 0 and left or 0
end

if admitted and consume then
  for i = 1, #KEYS do
    if ttls[i] then
      redis.call('SET', KEYS[i], states[i], 'PX', ttls[i])
    else
      redis.call('SET', KEYS[i], states[i], 'KEEPTTL')
    end
  end
end
return result
