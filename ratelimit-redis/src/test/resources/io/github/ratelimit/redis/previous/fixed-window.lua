-- Fixed window: a counter per window of one period, windows aligned to the Unix epoch.
-- KEYS[i]: one string per limit, "<window index>:<count>", expiring when its window ends.

local result, windows, counts, ends = {}, {}, {}, {}
local admitted = true
for i, key in ipairs(KEYS) do
  local capacity, period = capacity_of(i), period_of(i)
  local window = floordiv(now, period)
  local left = (window + 1) * period - now
  local count = 0
  local state = redis.call('GET', key)
  if state then
    local stored, stored_count = string.match(state, '^(%d+):(%d+)$')
    if tonumber(stored) == window then count = tonumber(stored_count) end
  end
  local allowed = count + permits <= capacity
  local after = count
  if allowed and consume then after = count + permits end
  admitted = admitted and allowed
  windows[i], counts[i], ends[i] = window, after, left
  local base = 4 * (i - 1)
  result[base + 1] = allowed and 1 or 0
  result[base + 2] = math.max(0, capacity - after)
  result[base + 3] = allowed and 0 or left
  result[base + 4] = (after > 0) and left or 0
end

if admitted and consume then
  for i, key in ipairs(KEYS) do
    local state = string.format('%.0f', windows[i]) .. ':' .. string.format('%.0f', counts[i])
    redis.call('SET', key, state, 'PX', math.max(1, ceildiv(ends[i], 1000)))
  end
end
return result
