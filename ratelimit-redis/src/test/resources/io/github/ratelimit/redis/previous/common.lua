-- Shared by every algorithm's script, which is appended to it: integer helpers, the arguments every script takes,
-- and the time of the decision from Redis' own clock, in integer microseconds.
-- KEYS[i]: one key per limit. ARGV: permits, consume (1|0), then capacity and period (us) per limit.
-- Each script returns, per limit: allowed (1|0), remaining, retry-after (us), reset-after (us), and writes only if every
-- limit allows and consume is 1.

-- floor(a / b) for integers below 2^53, exact even where the double quotient rounds up to the next integer
local function floordiv(a, b)
  local q = math.floor(a / b)
  if q * b > a then q = q - 1 elseif (q + 1) * b <= a then q = q + 1 end
  return q
end

local function ceildiv(a, b)
  local q = floordiv(a, b)
  if q * b < a then q = q + 1 end
  return q
end

local function gcd(a, b)
  while b ~= 0 do a, b = b, a % b end
  return a
end

local function capacity_of(i) return tonumber(ARGV[1 + 2 * i]) end
local function period_of(i) return tonumber(ARGV[2 + 2 * i]) end

local permits = tonumber(ARGV[1])
local consume = ARGV[2] == '1'
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000000 + tonumber(clock[2])
