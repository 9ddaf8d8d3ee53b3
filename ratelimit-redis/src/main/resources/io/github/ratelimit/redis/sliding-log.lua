-- Sliding log (exact): one sorted-set member per admitted permit, scored by its time; a request is admitted when the
-- permits of the last period plus its own fit in the capacity. Memory and work grow with the capacity, which Policy
-- bounds (MAX_SLIDING_LOG_CAPACITY).
-- KEYS[i]: one sorted set per limit, members "<time us>:<n>" scored by their time, n counting on from the permits
-- still logged so that members of one microsecond stay distinct. Permits are logged at the newest time already logged
-- when the clock has stepped back behind it, so no permit expires earlier than the clock it was admitted by says.
-- ARGV per limit: capacity, period (us).

local result, counts, periods, stamps = {0, 0, 0, 0, 0}, {}, {}, {} -- five entries per limit, sized for one
local admitted = true
for i = 1, #KEYS do
  local key, capacity, period = KEYS[i], ARGV[2 * i + 1] + 0, ARGV[2 * i + 2] + 0
  -- a permit logged at t counts while now < t + period
  local since = string.format('(%d', now - period)
  local count = redis.call('ZCOUNT', key, since, '+inf')
  local allowed = count <= capacity - permits
  local retry, newest, oldest, stamp = 0, now, now, now
  if count > 0 then
    newest = redis.call('ZRANGE', key, -1, -1, 'WITHSCORES')[2] + 0
    oldest = redis.call('ZRANGEBYSCORE', key, since, '+inf', 'WITHSCORES', 'LIMIT', 0, 1)[2] + 0
    if newest > now then stamp = newest end
  end
  local after = count
  if not allowed then
    admitted = false
    -- refused with permits <= capacity: more than capacity - permits are logged, so that one exists
    retry = redis.call('ZRANGEBYSCORE', key, since, '+inf', 'WITHSCORES', 'LIMIT', count + permits - capacity - 1, 1)[2]
      + period - now
  elseif consume then
    after = count + permits
    newest = stamp
    if count == 0 then oldest = stamp end
  end
  local reset, next = 0, 0
  if after > 0 then reset, next = newest + period - now, oldest + period - now end
  counts[i], periods[i], stamps[i] = count, period, stamp
  result[5 * i - 4], result[5 * i - 3], result[5 * i - 2], result[5 * i - 1], result[5 * i] =
    allowed and 1 or 0, capacity - after, retry, reset, next
end

if admitted and consume then
  for i = 1, #KEYS do
    local key, stamp = KEYS[i], stamps[i]
    local member = string.format('%d', stamp) .. ':'
    redis.call('ZREMRANGEBYSCORE', key, '-inf', now - periods[i])
    -- after that removal the set holds exactly the permits counted above
    local entries = {}
    for p = 1, permits do
      entries[#entries + 1] = stamp
      entries[#entries + 1] = member .. (counts[i] + p)
      if #entries == 1000 or p == permits then
        redis.call('ZADD', key, unpack(entries))
        entries = {}
      end
    end
    redis.call('PEXPIRE', key, ceil(result[5 * i - 1] / 1000))
  end
end
return result
