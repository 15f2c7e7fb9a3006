-- wrk script for holders of tokens: cycles through "user token" pairs, one a line, read from the
-- file named by the first script argument. Each thread starts at its own offset.
local users, tokens = {}, {}
local n, i = 0, 0
local threads = 0

function setup(thread)
    threads = threads + 1
    thread:set("id", threads)
end

function init(args)
    for line in io.lines(args[1]) do
        local user, token = line:match("^(%S+) (%S+)$")
        if user then
            n = n + 1
            users[n] = user
            tokens[n] = token
        end
    end
    i = ((id or 1) - 1) * math.floor(n / 2)
end

function request()
    i = i % n + 1
    return wrk.format("GET", nil, { ["X-User-Id"] = users[i], ["Queue-Token"] = tokens[i],
        ["Accept"] = "application/json" })
end
