-- hourglass: the only writer of a game's event stream.
-- KEYS[1] events stream   hg:{<id>}:events
-- KEYS[2] idempotency hash hg:{<id>}:idem
-- KEYS[3] meta hash        hg:{<id>}:meta
-- ARGV[1] base version: the seq the batch was computed against (entries follow it)
-- ARGV[2] idempotency key, or "" for none
-- ARGV[3] request fingerprint (sha256 of the canonical command and actor)
-- ARGV[4] result JSON to store under the key and return
-- ARGV[5] number m of meta field/value pairs to HSET on success, then 2*m values
-- then triples: entry id, entry JSON, entry hash
-- Returns {"ok", result} | {"replay", stored result} | {"conflict", ""} | {"stale", current version}
--       | {"expired", ""} (the game was abandoned and expired: core.retention)
local key = ARGV[2]
if key ~= "" then
  local stored = redis.call("HGET", KEYS[2], key)
  if stored then
    local cut = string.find(stored, "\n", 1, true)
    if string.sub(stored, 1, cut - 1) == ARGV[3] then
      return {"replay", string.sub(stored, cut + 1)}
    end
    return {"conflict", ""}
  end
end
if redis.call("HGET", KEYS[3], "status") == "expired" then
  return {"expired", ""}
end
local version = 0
local last = redis.call("XREVRANGE", KEYS[1], "+", "-", "COUNT", 1)
if #last > 0 then
  version = tonumber(string.match(last[1][1], "^(%d+)-"))
end
if version ~= tonumber(ARGV[1]) then
  return {"stale", tostring(version)}
end
local m = tonumber(ARGV[5])
local first = 6 + 2 * m
for i = first, #ARGV, 3 do
  redis.call("XADD", KEYS[1], ARGV[i], "entry", ARGV[i + 1], "hash", ARGV[i + 2])
end
for i = 6, first - 1, 2 do
  redis.call("HSET", KEYS[3], ARGV[i], ARGV[i + 1])
end
if key ~= "" then
  redis.call("HSET", KEYS[2], key, ARGV[3] .. "\n" .. ARGV[4])
end
return {"ok", ARGV[4]}
