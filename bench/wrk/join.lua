-- wrk script for arrivals: every request is a new user without a token. User ids are
-- <prefix>-<thread>-<counter>; the prefix (first script argument) differs per run, so no id repeats.
local prefix = "j"
local k = 0
local threads = 0

function setup(thread)
    threads = threads + 1
    thread:set("id", threads)
end

function init(args)
    if args[1] then prefix = args[1] end
end

function request()
    k = k + 1
    return wrk.format("GET", nil, { ["X-User-Id"] = prefix .. "-" .. (id or 1) .. "-" .. k,
        ["Accept"] = "application/json" })
end
