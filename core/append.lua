-- hourglass: the only writer of a game's event stream.
-- KEYS[1] events stream    hg:{<id>}:events
-- KEYS[2] idempotency hash hg:{<id>}:idem
-- KEYS[3] meta hash        hg:{<id>}:meta
-- KEYS[4] rate window      the requester's window, hg:rl:{<requester>}:<number> (touched only when
--                          ARGV[7] > 0; on a Redis Cluster it is counted apart, core/store.py)
-- KEYS[5] state snapshot   hg:{<id>}:snap (written only when ARGV[9] is not "")
-- ARGV[1] base version: the seq the batch was computed against (entries follow it)
-- ARGV[2] idempotency key, or "" for none
-- ARGV[3] request fingerprint (sha256 of the canonical command and actor)
-- ARGV[4] result JSON to store under the key and return
-- ARGV[5] meta field of the caller's token ("token:<sha256>"), or "" when not checked here
-- ARGV[6] the seat that field must hold
-- ARGV[7] rate limit: requests per window for the requester (0: not counted here)
-- ARGV[8] the window key's TTL in seconds
-- ARGV[9] the state snapshot to keep after this batch (JSON), or ""
-- ARGV[10] number m of meta field/value pairs to HSET on success, then 2*m values
-- then n, the number of further batches appended in this call (a worker's run of machine steps,
--   core/commands.py), then n triples: the batch's idempotency key, fingerprint and result JSON
--   (stored like ARGV[2..4] on success; ARGV[2..4] name the first batch)
-- then triples: entry id, entry JSON, entry hash
-- Returns {status, payload, count}: count is the token's window count (0 when not counted), status
--   "ok" (payload: the result) | "replay" (the stored result) | "conflict" | "stale" (the current
--   version, and as a fourth element the entries after the base version when there are at most
--   TAIL_MAX of them: the writer catches up without reading them) | "expired" (the game was
--   abandoned and expired: core.retention) | "auth" (the token is not that seat's: nothing
--   counted) | "limited" (over the rate limit: nothing appended).
-- Order: token, rate window, idempotency key, expiry, version: a retry of an applied request gets
-- its stored result although its base version is now stale.
local TAIL_MAX = 256
if ARGV[5] ~= "" and redis.call("HGET", KEYS[3], ARGV[5]) ~= ARGV[6] then
  return {"auth", "", 0}
end
local count = 0
local limit = tonumber(ARGV[7])
if limit > 0 then
  count = redis.call("INCR", KEYS[4])
  redis.call("EXPIRE", KEYS[4], ARGV[8])
  if count > limit then
    return {"limited", "", count}
  end
end
local key = ARGV[2]
if key ~= "" then
  local stored = redis.call("HGET", KEYS[2], key)
  if stored then
    local cut = string.find(stored, "\n", 1, true)
    if string.sub(stored, 1, cut - 1) == ARGV[3] then
      return {"replay", string.sub(stored, cut + 1), count}
    end
    return {"conflict", "", count}
  end
end
if redis.call("HGET", KEYS[3], "status") == "expired" then
  return {"expired", "", count}
end
local version = 0
local last = redis.call("XREVRANGE", KEYS[1], "+", "-", "COUNT", 1)
if #last > 0 then
  version = tonumber(string.match(last[1][1], "^(%d+)-"))
end
if version ~= tonumber(ARGV[1]) then
  local behind = version - tonumber(ARGV[1])
  if behind > 0 and behind <= TAIL_MAX then
    return {"stale", tostring(version), count, redis.call("XRANGE", KEYS[1], (tonumber(ARGV[1]) + 1) .. "-0", "+")}
  end
  return {"stale", tostring(version), count}
end
local m = tonumber(ARGV[10])
local more = 11 + 2 * m
local n = tonumber(ARGV[more])
local first = more + 1 + 3 * n
for i = more + 1, first - 1, 3 do
  if redis.call("HEXISTS", KEYS[2], ARGV[i]) == 1 then
    return {"conflict", "", count}  -- a further batch's key was used: append nothing
  end
end
for i = first, #ARGV, 3 do
  redis.call("XADD", KEYS[1], ARGV[i], "entry", ARGV[i + 1], "hash", ARGV[i + 2])
end
for i = 11, more - 1, 2 do
  redis.call("HSET", KEYS[3], ARGV[i], ARGV[i + 1])
end
if key ~= "" then
  redis.call("HSET", KEYS[2], key, ARGV[3] .. "\n" .. ARGV[4])
end
for i = more + 1, first - 1, 3 do
  redis.call("HSET", KEYS[2], ARGV[i], ARGV[i + 1] .. "\n" .. ARGV[i + 2])
end
if ARGV[9] ~= "" then
  local ttl = redis.call("PTTL", KEYS[3])
  if ttl > 0 then
    redis.call("SET", KEYS[5], ARGV[9], "PX", ttl)
  else
    redis.call("SET", KEYS[5], ARGV[9])
  end
end
return {"ok", ARGV[4], count}
