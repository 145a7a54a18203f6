-- bench/wrk/scenario.lua - the one wrk script behind every row of bench/run's table.
--
-- Configured from the environment (bench/run sets these per scenario):
--   BENCH_PATHS   file with one request path per line (with query string), cycled (required)
--   BENCH_METHOD  GET (default), POST or PATCH
--   BENCH_BODY    none (default) | customer (a unique email per request) | comment |
--                 status (PATCH: each ticket's HumanTicketStatus PENDING, then OPEN, in turn) |
--                 status-if-match (the same with If-Match: the ETag of the ticket's last answer;
--                 a ticket not answered yet is fetched once with GET first; needs one thread,
--                 BENCH_THREADS=1, else two threads may race for one ticket and get 412) |
--                 if-none-match (GET; each line of BENCH_PATHS is "path etag", sent as
--                 If-None-Match: 304 is the expected answer) |
--                 upload (POST /api/v1/files, E13: the bytes of BENCH_BODY_FILE, their first
--                 48 bytes made unique per request, so that every upload stores new bytes) |
--                 bytes (GET of a file's bytes, E13, or of the static rung: the answer is not
--                 JSON; only its status is checked, by wrk itself: no response() is defined,
--                 so that wrk does not copy every 1 MiB body into Lua)
--   BENCH_BODY_FILE  upload: the file whose bytes are sent
--   BENCH_KEY     API key sent as x-api-key (empty: no key header)
--   BENCH_NONCE   unique per wrk invocation: keeps generated emails unique across runs
--   BENCH_IDEMPOTENCY  none (default) | fresh (a new Idempotency-Key on every request) |
--                 replay (one key and one body for the whole run: every request after the
--                 first gets the stored answer, extensions.md E2)
--
-- Counts, besides wrk's own socket errors, every non-2xx response and every 2xx response
-- whose body lacks "success":true (wrk's error count misses both), and prints one line
--   BENCH requests=N duration_us=N rps=X p50_us=N p90_us=N p99_us=N max_us=N
--         non2xx=N nosuccess=N connect=N read=N write=N timeout=N status=N
-- which bench/run parses.

local threads = {}
local thread_count = 0

function setup(thread)
    thread_count = thread_count + 1
    thread:set("tid", thread_count)
    table.insert(threads, thread)
end

-- Per thread (each wrk thread has its own Lua state).
non2xx = 0
nosuccess = 0
expect_304 = false
local paths = {}
local prepared = {}
local n = 0
local i = 0
local counter = 0
local method, body_kind, nonce, headers, idempotency
local upload_tail -- upload: BENCH_BODY_FILE's bytes after the first 48
local visits = {}  -- status*: how many times each path was sent
local etags = {}   -- status-if-match: ticket id -> the ETag of its last answer

function init(args)
    local file = os.getenv("BENCH_PATHS")
    assert(file and #file > 0, "BENCH_PATHS is not set")
    local f = assert(io.open(file, "r"))
    local tags = {}
    for line in f:lines() do
        if #line > 0 then
            local path, tag = string.match(line, "^(%S+) (%S+)$")
            table.insert(paths, path or line)
            table.insert(tags, tag)
        end
    end
    f:close()
    n = #paths
    assert(n > 0, "no paths in " .. file)

    method = os.getenv("BENCH_METHOD") or "GET"
    if method == "" then
        method = "GET"
    end
    body_kind = os.getenv("BENCH_BODY") or "none"
    if body_kind == "" then
        body_kind = "none"
    end
    nonce = os.getenv("BENCH_NONCE") or tostring(os.time())
    headers = {}
    local key = os.getenv("BENCH_KEY") or ""
    if #key > 0 then
        headers["x-api-key"] = key
    end
    if body_kind == "upload" then
        headers["Content-Type"] = "application/octet-stream"
        local f = assert(io.open(assert(os.getenv("BENCH_BODY_FILE"), "BENCH_BODY_FILE"), "rb"))
        upload_tail = f:read("a"):sub(49)
        f:close()
    elseif body_kind ~= "none" and body_kind ~= "bytes" then
        headers["Content-Type"] = "application/json"
    end
    idempotency = os.getenv("BENCH_IDEMPOTENCY") or "none"
    if idempotency == "" then
        idempotency = "none"
    end
    -- Threads start at different places of the path list.
    i = (((tid or 1) - 1) * 7919) % n
    if idempotency == "replay" then
        -- The same request every time, from every thread: one key, the first path, one body.
        headers["Idempotency-Key"] = "bench-replay-" .. nonce
        local body = string.format(
            '{"email":"bench-replay-%s@bench.example","first_name":"Bench","last_name":"User"}',
            nonce)
        for k = 1, n do
            prepared[k] = wrk.format(method, paths[1], headers, body)
        end
        body_kind = "none"
    elseif body_kind == "none" or body_kind == "bytes" then
        -- Requests without a body never change: format them once.
        for k = 1, n do
            prepared[k] = wrk.format(method, paths[k], headers, nil)
        end
    elseif body_kind == "if-none-match" then
        for k = 1, n do
            local h = {}
            for name, value in pairs(headers) do
                h[name] = value
            end
            h["If-None-Match"] = assert(tags[k], "no ETag on line " .. k .. " of " .. file)
            prepared[k] = wrk.format(method, paths[k], h, nil)
        end
        body_kind = "none"
        expect_304 = true
    end
    if body_kind == "bytes" then
        body_kind = "none"
    end
end

-- PATCH /api/v1/tickets/{id}: PENDING and OPEN in turn (both always allowed from the other), so
-- that every request changes the ticket.
local function status_request(k)
    local path = paths[k]
    visits[k] = (visits[k] or 0) + 1
    local status = (visits[k] % 2 == 1) and "PENDING" or "OPEN"
    local h = {}
    for name, value in pairs(headers) do
        h[name] = value
    end
    if body_kind == "status-if-match" then
        local id = string.match(path, "/tickets/(%d+)")
        if not etags[id] then
            visits[k] = visits[k] - 1
            return wrk.format("GET", path, { ["x-api-key"] = headers["x-api-key"] }, nil)
        end
        h["If-Match"] = etags[id]
    end
    return wrk.format(method, path, h, '{"HumanTicketStatus":"' .. status .. '"}')
end

function request()
    i = i % n + 1
    if body_kind == "none" then
        return prepared[i]
    end
    if body_kind == "status" or body_kind == "status-if-match" then
        return status_request(i)
    end
    counter = counter + 1
    if idempotency == "fresh" then
        headers["Idempotency-Key"] = string.format("bench-%s-%d-%d", nonce, tid or 1, counter)
    end
    local body
    if body_kind == "upload" then
        body = string.format("%-48s", string.format("bench %s-%d-%d", nonce, tid or 1, counter))
            .. upload_tail
    elseif body_kind == "customer" then
        body = string.format(
            '{"email":"bench-%s-%d-%d@bench.example","first_name":"Bench","last_name":"User",'
                .. '"storefront_id":%d}',
            nonce, tid or 1, counter, counter)
    else
        body = string.format(
            '{"text":"bench comment %s-%d-%d","isFromShop":false,"tags":["bench"]}',
            nonce, tid or 1, counter)
    end
    return wrk.format(method, paths[i], headers, body)
end

local function check_response(status, resp_headers, body)
    if body_kind == "status-if-match" and body then
        local id = string.match(body, '"ticket":{"id":"(%d+)"')
        local tag = resp_headers["ETag"] or resp_headers["etag"]
        if id and tag then
            etags[id] = tag
        end
    end
    if expect_304 then
        if status ~= 304 then
            non2xx = non2xx + 1
        end
    elseif status < 200 or status > 299 then
        non2xx = non2xx + 1
    elseif body == nil or not string.find(body, '"success":true', 1, true) then
        nosuccess = nosuccess + 1
    end
end

-- wrk hands every answer's body to response() only when the script defines one.
if os.getenv("BENCH_BODY") ~= "bytes" then
    response = check_response
end

function done(summary, latency, requests)
    local bad, empty = 0, 0
    for _, t in ipairs(threads) do
        bad = bad + (t:get("non2xx") or 0)
        empty = empty + (t:get("nosuccess") or 0)
    end
    local e = summary.errors
    if os.getenv("BENCH_BODY") == "bytes" then
        bad = bad + e.status -- no response(): wrk's own count of answers >= 400
    end
    local seconds = summary.duration / 1e6
    io.write(string.format(
        "BENCH requests=%d duration_us=%d rps=%.1f p50_us=%d p90_us=%d p99_us=%d max_us=%d "
            .. "non2xx=%d nosuccess=%d connect=%d read=%d write=%d timeout=%d status=%d\n",
        summary.requests, summary.duration, summary.requests / seconds,
        latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.max,
        bad, empty, e.connect, e.read, e.write, e.timeout, e.status))
end
