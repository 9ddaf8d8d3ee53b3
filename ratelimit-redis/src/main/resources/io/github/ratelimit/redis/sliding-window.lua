-- Sliding window (approximate): the current epoch-aligned window's count plus the previous window's count weighted
-- by the share of it that still lies within the last period: estimate = previous * (period - elapsed) / period + current.
-- It assumes the previous window's requests were evenly spread; it never admits more than capacity per window.
-- KEYS[i]: one hash per limit {window, current, previous}, expiring when the window after its own ends: set by its
-- window's first write, kept by the others, which change only `current`. A window from the future (the clock stepped
-- back) stays the current one, its previous window weighted in full, until it begins.
-- ARGV per limit: capacity, period (us). Comparisons are done multiplied by the period, in integers: Policy bounds
-- capacity * period by 2^53, and sides are compared rather than summed, so every product is exact; divisions check
-- their floor all the same.

local function floordiv(a, b)
  local q = floor(a / b)
  if q * b > a then q = q - 1 elseif (q + 1) * b <= a then q = q + 1 end
  return q
end

-- time into a window at which `count` earlier requests, weighted, leave room for `room` more: count*(period-t) <= room*period
local function room_at(count, room, period)
  if count == 0 then return 0 end
  local t = period - floordiv(room * period, count)
  if t < 0 then return 0 end
  return t
end

-- time from now until the counts leave room for `wanted` permits: in this window once the previous one's weight has
-- shrunk enough, or else in the next, once this one's weight has; `offset` is now's time into the window
local function wait(current, previous, wanted, capacity, period, offset)
  if current <= capacity - wanted then
    return room_at(previous, capacity - current - wanted, period) - offset
  end
  return (period - offset) + room_at(current, capacity - wanted, period)
end

local result, windows, currents, previouses = {0, 0, 0, 0, 0}, {}, {}, {} -- five entries per limit, sized for one
local continued = {} -- whether the key already holds this window
local admitted = true
for i = 1, #KEYS do
  local capacity, period = ARGV[2 * i + 1] + 0, ARGV[2 * i + 2] + 0
  local window = floor(now / period)
  local current, previous = 0, 0
  continued[i] = false
  local state = redis.call('HMGET', KEYS[i], 'window', 'current', 'previous')
  if state[1] then
    local stored = state[1] + 0
    if stored >= window then
      window, current, previous, continued[i] = stored, state[2] + 0, state[3] + 0, true
    elseif stored == window - 1 then
      previous = state[2] + 0
    end
  end
  -- negative while a window from the future has not begun
  local offset = now - window * period
  local elapsed = offset
  if elapsed < 0 then elapsed = 0 end
  local weighted = previous * (period - elapsed)
  local allowed = current <= capacity - permits and weighted <= (capacity - current - permits) * period
  local retry = 0
  if allowed then
    if consume then current = current + permits end
  else
    admitted = false
    retry = wait(current, previous, permits, capacity, period, offset)
  end
  local reset = 0
  if current > 0 then reset = (period - offset) + period elseif previous > 0 then reset = period - offset end
  local remaining = floordiv((capacity - current) * period - weighted, period)
  if remaining < 0 then remaining = 0 end
  local next = 0
  if remaining < capacity then next = wait(current, previous, remaining + 1, capacity, period, offset) end
  windows[i], currents[i], previouses[i] = window, current, previous
  result[5 * i - 4], result[5 * i - 3], result[5 * i - 2], result[5 * i - 1], result[5 * i] =
    allowed and 1 or 0, remaining, retry, reset, next
end

if admitted and consume then
  for i = 1, #KEYS do
    if continued[i] then
      redis.call('HSET', KEYS[i], 'current', currents[i])
    else
      redis.call('HSET', KEYS[i], 'window', windows[i], 'current', currents[i], 'previous', previouses[i])
      redis.call('PEXPIRE', KEYS[i], ceil(result[5 * i - 1] / 1000))
    end
  end
end
return result
