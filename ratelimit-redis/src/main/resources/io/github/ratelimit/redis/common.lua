-- Shared by every algorithm's script, which is appended to it: the arguments every script takes, and the time of the
-- decision from Redis' own clock, in integer microseconds.
-- KEYS[i]: one key per limit. ARGV: permits, consume (1|0), then the same number of constants for each limit, computed
-- once per policy by LimitArguments.java; each script names its own.
-- A lease (token-bucket, gcra, fixed-window) sends 'L<maximum>' for consume, and permits is the minimum: the script
-- evaluates its limits twice, first without consuming (each limit's remaining is then what it has available now), then
-- taking the grant, the fewest available at most the maximum, if that is at least the minimum, else evaluating the
-- minimum (refused as tryAcquire would refuse it). The reply is followed by the grant (0 when refused) and now (us).
-- A reservation sends 'W<maximum wait>' for consume (see `reserve` below).
-- Each script returns, per limit: allowed (1|0), remaining, retry-after (us), reset-after (us) and next-permit (us: the
-- time until the limit has more than `remaining`, draft-10's t; 0 when full), and writes only if every limit allows and
-- consume is 1. The limiter never sends permits above the smallest capacity (it refuses them without calling Redis),
-- so every product below is bounded by what Policy validates.
-- A stored time or window from the future (Redis' clock stepped back, as after a failover) is treated as still
-- current: it never makes room that the clock it was written by had not made.
-- Every number decided on is an integer of at most 2^53, so IEEE doubles hold it exactly: math.floor(a / b) and
-- math.ceil(a / b) are exact (a correctly rounded quotient never lands on an integer it is not), numbers passed to
-- redis.call are sent as exact integers, and string.format('%d') writes them exactly.
-- Numbers are read from their strings by arithmetic (`s + 0`), which costs less than tonumber(s) and reads the same.

local floor, ceil = math.floor, math.ceil
local permits = ARGV[1] + 0
local mode = string.sub(ARGV[2], 1, 1)
local consume = mode == '1' or mode == 'W'
local lease = mode == 'L' and string.sub(ARGV[2], 2) + 0
-- a reservation (token-bucket, gcra) sends 'W<maximum wait, us>': it consumes, and also admits permits due within
-- that wait and within the limit's debt (how far ahead a limit may be taken: one period, or less where a full bucket
-- and a period of debt would leave the integers held exactly); an admitted limit's retry-after is then the time
-- until its permits are due. It evaluates its limits twice, as a lease does: first for `due`, the time until every
-- limit has the permits (the largest retry-after), then taking them as at now + due, so that no limit gives permits
-- before its state has them (a bucket full before then is taken from full).
local reserve = mode == 'W' and string.sub(ARGV[2], 2) + 0 or 0
local due = 0
local clock = redis.call('TIME')
local now = clock[1] * 1000000 + clock[2]

-- A lease's first pass has read what each limit has available (its remaining, the second of its five replies): the
-- grant is the fewest, at most the maximum, if at least the minimum; the second pass then takes it, or else evaluates
-- the minimum, which is refused as tryAcquire would refuse it.
local granted, grant = 0, nil
if reserve > 0 then
  grant = function(result)
    local latest = 0
    for i = 1, #result, 5 do
      if result[i] == 0 then return end
      if result[i + 2] > latest then latest = result[i + 2] end
    end
    due = latest
  end
elseif lease then
  grant = function(result)
    local available = lease
    for i = 2, #result, 5 do
      if result[i] < available then available = result[i] end
    end
    if available >= permits then granted, permits = available, available end
    consume = true
  end
end
