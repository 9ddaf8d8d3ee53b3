-- Sliding window (approximate): the current epoch-aligned window's count plus the previous window's count weighted
-- by the share of it that still lies within the last period: estimate = previous * (period - elapsed) / period + current.
-- It assumes the previous window's requests were evenly spread; it never admits more than capacity per window.
-- KEYS[i]: one hash per limit {window, current, previous}. Appended to common.lua. Comparisons are done multiplied by
-- the period, in integers.

-- time into a window at which `count` earlier requests, weighted, leave room for `room` more: count*(period-t) <= room*period
local function room_at(count, room, period)
  if count == 0 then return 0 end
  return math.max(0, period - floordiv(room * period, count))
end

local result, windows, currents, previouses, resets = {}, {}, {}, {}, {}
local admitted = true
for i, key in ipairs(KEYS) do
  local capacity, period = capacity_of(i), period_of(i)
  local window = floordiv(now, period)
  local elapsed = now - window * period
  local current, previous = 0, 0
  local state = redis.call('HMGET', key, 'window', 'current', 'previous')
  if state[1] then
    local stored = tonumber(state[1])
    if stored == window then
      current, previous = tonumber(state[2]), tonumber(state[3])
    elseif stored == window - 1 then
      previous = tonumber(state[2])
    end
  end
  local weighted = previous * (period - elapsed)
  local allowed = weighted + (current + permits) * period <= capacity * period
  local after = current
  local retry = 0
  if allowed then
    if consume then after = current + permits end
  elseif current + permits <= capacity then
    retry = room_at(previous, capacity - current - permits, period) - elapsed
  else
    retry = (period - elapsed) + room_at(current, capacity - permits, period)
  end
  admitted = admitted and allowed
  windows[i], currents[i], previouses[i] = window, after, previous
  if after > 0 then resets[i] = (period - elapsed) + period
  elseif previous > 0 then resets[i] = period - elapsed
  else resets[i] = 0 end
  local base = 4 * (i - 1)
  result[base + 1] = allowed and 1 or 0
  result[base + 2] = math.max(0, floordiv(capacity * period - previous * (period - elapsed) - after * period, period))
  result[base + 3] = math.max(retry, allowed and 0 or 1)
  result[base + 4] = resets[i]
end

if admitted and consume then
  for i, key in ipairs(KEYS) do
    redis.call('HSET', key, 'window', string.format('%.0f', windows[i]), 'current', currents[i], 'previous', previouses[i])
    redis.call('PEXPIRE', key, math.max(1, ceildiv(resets[i], 1000)))
  end
end
return result
