-- wrk script for a signed-in shopper: every request carries the same bearer JWT, read from the file
-- named by the first script argument, and the same other headers as headers.lua.
local token = ""

function init(args)
    local file = io.open(args[1], "r")
    token = file:read("*l")
    file:close()
end

function request()
    return wrk.format("GET", nil, { ["Authorization"] = "Bearer " .. token, ["Accept"] = "application/json" })
end
