-- wrk script for scripts/serve-load.sh: GET /search with a rotating set of queries, 50 rows each.
--   wrk -t2 -c64 -d20s --timeout 10s --latency -s scripts/serve-load.lua http://127.0.0.1:PORT -- [KEY]
-- The queries are fragments of 3 to 6 letters of the made-up words serve-load.sh writes (its
-- syllables), from broad to narrow: over 1,000,000 records they match 1,664 to 541,130 records,
-- median 41,163 (as `scripts/serve-load.sh .build/release/sift` prints them).
-- KEY, if given, goes out as `Authorization: Bearer KEY`.

local queries = {
  "kal", "lom", "mir", "ras", "sen", "tuv", "voz", "zan", "pel", "dor",
  "qui", "bra", "kalo", "mira", "sent", "tuvo", "zanp", "peld", "dorq", "quib",
  "brak", "lomi", "rase", "vozan", "kalom", "miras", "sentu", "zanpe", "pelka", "dorqu",
  "quibr", "brase", "tuvol", "lomir", "ravo", "kamir", "sendor", "zanbra", "pelmi", "quilo",
  "tukal", "vodor", "braqu", "mizan", "losen", "rapel", "kaqui", "sentuv", "dorka", "zanlo",
}

local paths = {}
local counter = 0
local threads = 0

function setup(thread)
  thread:set("id", threads)
  threads = threads + 1
end

local function escape(text)
  return (text:gsub("[^%w%-%._~]", function(c) return string.format("%%%02X", string.byte(c)) end))
end

function init(args)
  for i, query in ipairs(queries) do
    paths[i] = "/search?q=" .. escape(query) .. "&limit=50"
  end
  if args[1] and args[1] ~= "" then
    wrk.headers["Authorization"] = "Bearer " .. args[1]
  end
  -- Threads start at different places in the list.
  counter = ((id or 0) * 17) % #paths
end

function request()
  counter = counter % #paths + 1
  return wrk.format("GET", paths[counter])
end

function done(summary, latency, requests)
  local seconds = summary.duration / 1e6
  local errors = summary.errors
  io.write(string.format(
    "serve-load: %d requests in %.1f s, %.0f requests/s; latency p50 %.2f ms, p90 %.2f ms, p99 %.2f ms, max %.2f ms; non-2xx %d, socket errors %d\n",
    summary.requests, seconds, summary.requests / seconds,
    latency:percentile(50) / 1000, latency:percentile(90) / 1000, latency:percentile(99) / 1000,
    latency.max / 1000, errors.status, errors.connect + errors.read + errors.write + errors.timeout))
end
