-- wrk script for the paths without tokens (backend, plain route, RequestRateLimiter): the same
-- per-request work in wrk as the token paths (one wrk.format with the same headers), so every
-- path costs the load generator alike on a shared machine.
local user = "bench-user"

function init(args)
    if args[1] then user = args[1] end
end

function request()
    return wrk.format("GET", nil, { ["X-User-Id"] = user, ["Accept"] = "application/json" })
end
