-- GCRA (generic cell rate algorithm): the token bucket's admissions, stored as one theoretical arrival time (TAT).
-- KEYS[i]: one string per limit, "<tat us>" or "<tat us>:<fraction>", the fraction in 1/rate microseconds so the
-- emission interval period/capacity stays an exact integer number of ticks.
-- ARGV per limit: interval (ticks per permit, period/g), rate (ticks per us, capacity/g) and window
-- (capacity * interval, the ticks of a full burst), with g = gcd(capacity, period in us).
-- Waits are computed from how far the TAT is ahead of now (us) and its fraction, never from ahead * rate, so a TAT
-- from the future (the clock stepped back) reads as an empty bucket whose waits stay exact. A reservation may push
-- the TAT up to a debt beyond a period ahead.

local result, aheads, fractions = {0, 0, 0, 0, 0}, {}, {} -- five entries per limit, sized for one
local admitted = true
-- a lease evaluates twice: pass 1 reads what is available, pass 2 takes the grant; a reservation too: pass 1 finds
-- when the permits are due
for pass = (lease or reserve > 0) and 1 or 2, 2 do
  for i = 1, #KEYS do
    local interval, rate, window = ARGV[3 * i] + 0, ARGV[3 * i + 1] + 0, ARGV[3 * i + 2] + 0
    local period, capacity = window / rate, window / interval
    local ahead, fraction = 0, 0
    local tat = redis.call('GET', KEYS[i])
    if tat then
      local colon = string.find(tat, ':', 1, true)
      if colon then
        ahead, fraction = string.sub(tat, 1, colon - 1) - now, string.sub(tat, colon + 1) + 0
      else
        ahead = tat - now
      end
      if ahead < 0 then ahead, fraction = 0, 0 end
    end
    -- the ticks of the burst in use, beyond it when in debt (at most a period's, fewer where a full bucket and a
    -- period of debt would leave the integers held exactly); a TAT further ahead than any debt reaches is all debt.
    -- The debt is computed only when needed: a TAT a period ahead, or a reservation
    local used, debt = ahead * rate + fraction, nil
    if ahead >= period then
      debt = period
      if (9007199254740992 - window) / rate < debt then debt = floor((9007199254740992 - window) / rate) end
      if ahead >= period + debt then used = window + debt * rate end
    end
    local need = permits * interval
    local allowed = used <= window - need
    local retry = 0
    if not allowed then
      retry = ahead + ceil((fraction + need - window) / rate)
      -- a reservation also admits permits due within its wait and the debt; retry is then when they are due
      if reserve > 0 then
        if not debt then
          debt = period
          if (9007199254740992 - window) / rate < debt then debt = floor((9007199254740992 - window) / rate) end
        end
        allowed = retry <= reserve and retry <= debt
      end
      if not allowed then admitted = false end
    end
    if allowed and consume then
      -- taken as at now + due: from a TAT no earlier than then
      if used < due * rate then used = due * rate end
      used = used + need
      ahead = floor(used / rate)
      fraction = used - ahead * rate
    end
    aheads[i], fractions[i] = ahead, fraction
    local remaining = floor((window - used) / interval)
    if remaining < 0 then remaining = 0 end
    local next = 0
    if remaining < capacity then next = ahead + ceil((fraction + (remaining + 1) * interval - window) / rate) end
    result[5 * i - 4], result[5 * i - 3], result[5 * i - 2], result[5 * i - 1], result[5 * i] =
      allowed and 1 or 0, remaining, retry, ahead + ceil(fraction / rate), next
  end
  if pass == 1 then
    grant(result)
    admitted = true
  end
end

if admitted and consume then
  for i = 1, #KEYS do
    local tat = now + aheads[i]
    if fractions[i] > 0 then tat = string.format('%d:%d', tat, fractions[i]) end
    redis.call('SET', KEYS[i], tat, 'PX', ceil(result[5 * i - 1] / 1000))
  end
end
if lease then
  result[#result + 1] = granted
  result[#result + 1] = now
end
return result
