-- The poll of every instance: the version of the hash of overrides (KEYS[1], see overrides-set.lua) and Redis' clock.
-- Returns {version, seconds, microseconds}, all as text; the version is 0 before the first change.

local clock = redis.call('TIME')
return {redis.call('HGET', KEYS[1], '#version') or '0', clock[1], clock[2]}
