-- wrk script: single-record upserts (PUT /records) against `sift serve`, one new id a request.
--
--     SIFT_ADMIN_KEY=KEY wrk -t2 -c32 -d10s -s scripts/serve-edits.lua http://127.0.0.1:PORT
--
-- The server needs --admin-key KEY and --data-dir DIR: each edit is written to the edit log and
-- fsynced before it is acknowledged, so wrk's Requests/sec is acknowledged edits a second. The
-- record carries the fields SIFT_EDIT_FIELDS names (comma-separated; default "name,place", those
-- of servebench's generated records). Each thread numbers its own ids ("wrk-THREAD-N"), so no
-- two requests write the same record. At the end the script prints the latency percentiles and
-- how many answers were not 200.

local threads = {}
local next_thread = 0

function setup(thread)
   thread:set("thread_number", next_thread)
   next_thread = next_thread + 1
   table.insert(threads, thread)
end

function init(args)
   counter = 0
   failures = 0
   local key = os.getenv("SIFT_ADMIN_KEY") or "servebench"
   headers = { ["Authorization"] = "Bearer " .. key, ["Content-Type"] = "application/json" }
   fields = {}
   for name in string.gmatch(os.getenv("SIFT_EDIT_FIELDS") or "name,place", "[^,]+") do
      table.insert(fields, name)
   end
end

function request()
   counter = counter + 1
   local id = string.format("wrk-%d-%d", thread_number, counter)
   local values = {}
   for i, name in ipairs(fields) do
      values[i] = string.format('"%s":"Edit %d of thread %d %s"', name, counter, thread_number, name)
   end
   local body = string.format('[{"id":"%s","fields":{%s}}]', id, table.concat(values, ","))
   return wrk.format("PUT", "/records", headers, body)
end

function response(status, headers, body)
   if status ~= 200 then
      failures = failures + 1
      if failures == 1 then
         io.stderr:write(string.format("first failure: %d %s\n", status, body))
      end
   end
end

function done(summary, latency, requests)
   local failed = 0
   for _, thread in ipairs(threads) do
      failed = failed + (thread:get("failures") or 0)
   end
   local seconds = summary.duration / 1e6
   io.write(string.format("edits: %d answered in %.1f s, %d not 200 (%d socket errors)\n",
      summary.requests, seconds, failed,
      summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout))
   io.write(string.format("acknowledged edits a second: %.0f\n", (summary.requests - failed) / seconds))
   io.write(string.format("latency: p50 %.2f ms, p90 %.2f ms, p99 %.2f ms, max %.2f ms\n",
      latency:percentile(50) / 1000, latency:percentile(90) / 1000,
      latency:percentile(99) / 1000, latency.max / 1000))
end
