-- Sliding log (exact): one sorted-set member per admitted permit, scored by its time; a request is admitted when the
-- permits of the last period plus its own fit in the capacity. Memory grows with the capacity: for small limits.
-- KEYS[i]: one sorted set per limit. Appended to common.lua.
-- Time is Redis' own clock in microseconds.

local stamp = string.format('%.0f', now)

local result, periods, resets = {}, {}, {}
local admitted = true
for i, key in ipairs(KEYS) do
  local capacity, period = capacity_of(i), period_of(i)
  -- a permit logged at t counts while now < t + period
  local since = '(' .. string.format('%.0f', now - period)
  local count = redis.call('ZCOUNT', key, since, '+inf')
  local allowed = count + permits <= capacity
  local after = count
  local retry = 0
  if allowed then
    if consume then after = count + permits end
  elseif permits <= capacity then
    local oldest = redis.call('ZRANGEBYSCORE', key, since, '+inf', 'WITHSCORES', 'LIMIT', count + permits - capacity - 1, 1)
    retry = tonumber(oldest[2]) + period - now
  end
  local reset = 0
  if allowed and consume then
    reset = period
  elseif count > 0 then
    local newest = redis.call('ZREVRANGEBYSCORE', key, '+inf', since, 'WITHSCORES', 'LIMIT', 0, 1)
    reset = tonumber(newest[2]) + period - now
  end
  admitted = admitted and allowed
  periods[i], resets[i] = period, reset
  local base = 4 * (i - 1)
  result[base + 1] = allowed and 1 or 0
  result[base + 2] = capacity - after
  result[base + 3] = retry
  result[base + 4] = reset
end

if admitted and consume then
  for i, key in ipairs(KEYS) do
    redis.call('ZREMRANGEBYSCORE', key, '-inf', string.format('%.0f', now - periods[i]))
    local base = redis.call('ZCARD', key)
    local entries = {}
    for p = 1, permits do
      entries[#entries + 1] = stamp
      entries[#entries + 1] = stamp .. ':' .. (base + p)
      if #entries == 1000 or p == permits then
        redis.call('ZADD', key, unpack(entries))
        entries = {}
      end
    end
    redis.call('PEXPIRE', key, math.max(1, ceildiv(resets[i], 1000)))
  end
end
return result
