-- Sliding log (exact): one sorted-set member per admitted permit, scored by its time; a request is admitted when the
-- permits of the last period plus its own fit in the capacity. Memory grows with the capacity: for small limits.
-- KEYS[i]: one sorted set per limit, members "<time us>:<n>" scored by their time, n counting on from the permits
-- still logged so that members of one microsecond stay distinct.
-- ARGV per limit: capacity, period (us).

local result, counts, periods = {0, 0, 0, 0}, {}, {} -- four entries per limit, sized for one
local admitted = true
for i = 1, #KEYS do
  local key, capacity, period = KEYS[i], ARGV[2 * i + 1] + 0, ARGV[2 * i + 2] + 0
  -- a permit logged at t counts while now < t + period
  local since = string.format('(%d', now - period)
  local count = redis.call('ZCOUNT', key, since, '+inf')
  local allowed = count + permits <= capacity
  local after = count
  local retry = 0
  if allowed then
    if consume then after = count + permits end
  else
    admitted = false
    if permits <= capacity then
      local oldest = redis.call('ZRANGEBYSCORE', key, since, '+inf', 'WITHSCORES', 'LIMIT', count + permits - capacity - 1, 1)
      retry = oldest[2] + period - now
    end
  end
  local reset = 0
  if allowed and consume then
    reset = period
  elseif count > 0 then
    local newest = redis.call('ZREVRANGEBYSCORE', key, '+inf', since, 'WITHSCORES', 'LIMIT', 0, 1)
    reset = newest[2] + period - now
  end
  counts[i], periods[i] = count, period
  result[4 * i - 3], result[4 * i - 2], result[4 * i - 1], result[4 * i] =
    allowed and 1 or 0, capacity - after, retry, reset
end

if admitted and consume then
  local stamp = string.format('%d', now)
  for i = 1, #KEYS do
    local key = KEYS[i]
    redis.call('ZREMRANGEBYSCORE', key, '-inf', now - periods[i])
    -- after that removal the set holds exactly the permits counted above
    local entries = {}
    for p = 1, permits do
      entries[#entries + 1] = now
      entries[#entries + 1] = stamp .. ':' .. (counts[i] + p)
      if #entries == 1000 or p == permits then
        redis.call('ZADD', key, unpack(entries))
        entries = {}
      end
    end
    redis.call('PEXPIRE', key, ceil(periods[i] / 1000))
  end
end
return result
