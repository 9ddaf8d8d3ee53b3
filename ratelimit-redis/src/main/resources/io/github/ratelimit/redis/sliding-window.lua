-- Sliding window (approximate): the current epoch-aligned window's count plus the previous window's count weighted
-- by the share of it that still lies within the last period: estimate = previous * (period - elapsed) / period + current.
-- It assumes the previous window's requests were evenly spread; it never admits more than capacity per window.
-- KEYS[i]: one hash per limit {window, current, previous}, expiring when the window after its own ends: set by its
-- window's first write, kept by the others, which change only `current`.
-- ARGV per limit: capacity, period (us). Comparisons are done multiplied by the period, in integers; those products
-- may pass 2^53, so divisions here check their floor.

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

local result, windows, currents, previouses = {0, 0, 0, 0}, {}, {}, {} -- four entries per limit, sized for one
local continued = {} -- whether the key already holds this window
local admitted = true
for i = 1, #KEYS do
  local capacity, period = ARGV[2 * i + 1] + 0, ARGV[2 * i + 2] + 0
  local window = floor(now / period)
  local elapsed = now - window * period
  local current, previous = 0, 0
  continued[i] = false
  local state = redis.call('HMGET', KEYS[i], 'window', 'current', 'previous')
  if state[1] then
    local stored = state[1] + 0
    if stored == window then
      current, previous, continued[i] = state[2] + 0, state[3] + 0, true
    elseif stored == window - 1 then
      previous = state[2] + 0
    end
  end
  local weighted = previous * (period - elapsed)
  local allowed = weighted + (current + permits) * period <= capacity * period
  local retry = 0
  if allowed then
    if consume then current = current + permits end
  else
    admitted = false
    if current + permits <= capacity then
      retry = room_at(previous, capacity - current - permits, period) - elapsed
    else
      retry = (period - elapsed) + room_at(current, capacity - permits, period)
    end
    if retry < 1 then retry = 1 end
  end
  local reset = 0
  if current > 0 then reset = (period - elapsed) + period elseif previous > 0 then reset = period - elapsed end
  local remaining = floordiv(capacity * period - weighted - current * period, period)
  if remaining < 0 then remaining = 0 end
  windows[i], currents[i], previouses[i] = window, current, previous
  result[4 * i - 3], result[4 * i - 2], result[4 * i - 1], result[4 * i] =
    allowed and 1 or 0, remaining, retry, reset
end

if admitted and consume then
  for i = 1, #KEYS do
    if continued[i] then
      redis.call('HSET', KEYS[i], 'current', currents[i])
    else
      redis.call('HSET', KEYS[i], 'window', windows[i], 'current', currents[i], 'previous', previouses[i])
      redis.call('PEXPIRE', KEYS[i], ceil(result[4 * i] / 1000))
    end
  end
end
return result
