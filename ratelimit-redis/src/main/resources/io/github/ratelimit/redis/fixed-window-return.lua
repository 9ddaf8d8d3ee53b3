-- Fixed window: gives a lease's unused permits back (RateLimiter.returnLeasedAsync). For each limit whose stored window
-- is still the one the lease was taken in and has not ended, its count goes down by the permits, not below 0, its TTL
-- kept; a later window (or none) takes nothing back, so no window ever admits more than its capacity.
-- KEYS and ARGV as fixed-window.lua's, except ARGV[2]: when the lease was taken (us, by Redis' clock then).
-- Returns {the fewest permits any limit took back}.

local floor = math.floor
local permits, taken = ARGV[1] + 0, ARGV[2] + 0
local clock = redis.call('TIME')
local now = clock[1] * 1000000 + clock[2]
local result = {permits}
for i = 1, #KEYS do
  local period = ARGV[2 * i + 2] + 0
  local back = 0
  local state = redis.call('GET', KEYS[i])
  if state then
    local colon = string.find(state, ':', 1, true)
    if colon then
      local window, count = string.sub(state, 1, colon - 1) + 0, string.sub(state, colon + 1) + 0
      -- the key outlives its window by up to a millisecond (TTLs are whole ms): an ended window takes nothing
      if window == floor(taken / period) and floor(now / period) <= window then
        back = math.min(permits, count)
        redis.call('SET', KEYS[i], string.format('%d:%d', window, count - back), 'KEEPTTL')
      end
    end
  end
  if back < result[1] then result[1] = back end
end
return result
