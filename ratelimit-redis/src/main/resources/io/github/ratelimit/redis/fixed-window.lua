-- Fixed window: a counter per window of one period, windows aligned to the Unix epoch.
-- KEYS[i]: one string per limit, "<window index>:<count>", expiring when its window ends. A window from the future
-- (the clock stepped back) stays the current one until it ends.
-- ARGV per limit: capacity, period (us).

local result, states, ttls = {0, 0, 0, 0, 0}, {}, {} -- five entries per limit, sized for one
local admitted = true
-- a lease evaluates twice: pass 1 reads what is available, pass 2 takes the grant
for pass = lease and 1 or 2, 2 do
  for i = 1, #KEYS do
    local capacity, period = ARGV[2 * i + 1] + 0, ARGV[2 * i + 2] + 0
    local window = floor(now / period)
    -- the window's first write sets the TTL (ms), later ones keep it
    local count, ttl = 0, true
    local state = redis.call('GET', KEYS[i])
    if state then
      local colon = string.find(state, ':', 1, true)
      if colon then
        local stored = string.sub(state, 1, colon - 1) + 0
        if stored >= window then
          window, count, ttl = stored, string.sub(state, colon + 1) + 0, false
        end
      end
    end
    local left = (window + 1) * period - now
    local allowed = count <= capacity - permits
    if not allowed then
      admitted = false
    elseif consume then
      count = count + permits
      states[i] = string.format('%d:%d', window, count)
    end
    ttls[i] = ttl and ceil(left / 1000)
    local waiting = count > 0 and left or 0
    result[5 * i - 4], result[5 * i - 3], result[5 * i - 2], result[5 * i - 1], result[5 * i] =
      allowed and 1 or 0, capacity - count, allowed and 0 or left, waiting, waiting
  end
  if pass == 1 then
    grant(result)
    admitted = true
  end
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
if lease then
  result[#result + 1] = granted
  result[#result + 1] = now
end
return result
