-- Every key and channel of one product, made from its id in this one place; the Java side's
-- QueueKeys makes the same names, and ScriptContractTest checks that both agree. Every key shares
-- the hash tag {pid}, so a script touches one Redis Cluster slot. Names are made when first asked
-- for: building a string costs Redis's main thread more than most commands do.
local PRODUCT_KEYS = {
    -- HASH: the product's rules as the last join stored them, the operator's levers, the head of
    -- the line, the admission rate, a sale's draw (see fill.lua)
    settings = 'settings',
    -- ZSET: admitted users, score = session expiry (epoch ms)
    active = 'active',
    -- STRING: the last ticket handed out
    seq = 'seq',
    -- ZSET: places given up ahead of the head, member ticket, score its position
    left = 'left',
    -- ZSET: admitted users who have not arrived yet, score = arrival deadline
    arriving = 'arriving',
    -- ZSET: places reclaimed after a loss that the line can no longer hold where they were (its
    -- head has passed them, or their ticket is taken), served before the line; score the place's
    -- position, the invited line's far below the main line's (see fill.lua's reclaim)
    returning = 'returning',
    -- HASH: user id -> a time (epoch ms): no session of the user's that a token signed before it
    -- names comes back (it was reclaimed then, or heard to end then) (recover.lua, fill.lua's reclaim)
    honoured = 'honoured',
    -- BITMAP, one per line: bit <ticket> set once a place reclaimed after a loss was honoured, so
    -- each ticket comes back once (fill.lua's reclaim)
    reclaimed = 'reclaimed',
    -- ZSET: places and sessions that ended (a sale, a leave), member the user id, score when it
    -- ended (epoch ms), kept while a token signed before the end may still be shown (leave.lua).
    -- Every gateway reads it when it starts and when Redis forgets, so a spent admission stays
    -- spent after a loss whichever instance heard the end (ended.lua)
    ended = 'ended',
}
local PRODUCT_CHANNELS = {
    -- admissions (space-separated user ids)
    admitted = 'qg:admitted:',
    -- completions and leaves (a user id, '*' for everyone)
    released = 'qg:released:',
    -- freed places (promotion: pubsub)
    slot_available = 'qg:slot-available:',
    -- places made in the invited line (invites: priority): how many, so gateways count them
    invited_joined = 'qg:invited:',
}
local KEY_MAKERS = {
    -- HASH: ticket -> user id, for the tickets n*PAGE to n*PAGE+PAGE-1 (line.lua)
    page = function(k, n)
        return k.prefix .. 'line:' .. n
    end,
    -- HASH: user id -> ticket, one of BUCKETS buckets by a hash of the user id (line.lua)
    bucket = function(k, b)
        return k.prefix .. 'tickets:' .. b
    end,
    -- BITMAP: bit (ticket mod SEEN_WRAP) set when its holder was seen in span n (line.lua)
    seen = function(k, span, n)
        return k.prefix .. 'seen:' .. span .. ':' .. n
    end,
    -- STRING with the session's TTL: one per admitted user (promotion: keyspace)
    slot = function(k, uid)
        return k.prefix .. 'slot:' .. uid
    end,
    -- STRING with the session's remaining TTL: the completion claim of a complete-on request
    completing = function(k, uid)
        return k.prefix .. 'completing:' .. uid
    end,
    -- STRING expiring with the invitation: how many places the invitation (its jti) has made here
    invite = function(k, id)
        return k.prefix .. 'invite:' .. id
    end,
    -- STRING that expires with a proof-of-work challenge: its solution was used (join.lua)
    challenge = function(k, mark)
        return k.prefix .. 'pow:' .. mark
    end,
}
-- The settings fields that belong to one line: the main line's keep the names of earlier
-- releases, the invited line's (invites: priority) are prefixed.
local MAIN_FIELDS = { head = 'head', draw_from = 'draw_from', draw_to = 'draw_to', left_v = 'left_v',
    seen_ttl = 'seen_ttl', rfloor = 'rfloor' }
local INVITED_FIELDS = { head = 'invited_head', draw_from = 'invited_draw_from', draw_to = 'invited_draw_to',
    left_v = 'invited_left_v', seen_ttl = 'invited_seen_ttl', rfloor = 'invited_rfloor' }
-- The keys of the line itself; the invited line has its own under 'qg:{pid}:invited:'.
local LINE_KEYS = { seq = true, left = true, reclaimed = true }
local LINE_MAKERS = { page = true, bucket = true, seen = true }

local KEYS_OF_A_PRODUCT

-- The invited line's keys: its own ticket counter, pages, buckets, places given up and seen
-- bitmaps; every other key (settings, active, the channels, ...) is the product's.
local function invited_keys(k)
    return setmetatable({ pid = k.pid, prefix = k.prefix .. 'invited:', field = INVITED_FIELDS }, {
        __index = function(ki, name)
            if LINE_MAKERS[name] then
                return KEY_MAKERS[name]
            end
            local value
            if LINE_KEYS[name] then
                value = ki.prefix .. PRODUCT_KEYS[name]
            elseif KEY_MAKERS[name] then
                value = function(_, ...)
                    return KEY_MAKERS[name](k, ...)
                end
            else
                value = k[name]
            end
            rawset(ki, name, value)
            return value
        end,
    })
end

KEYS_OF_A_PRODUCT = {
    __index = function(k, name)
        local maker = KEY_MAKERS[name]
        if maker then
            return maker
        end
        if name == 'invited' then
            local ki = invited_keys(k)
            rawset(k, name, ki)
            return ki
        end
        local value
        if PRODUCT_KEYS[name] then
            value = k.prefix .. PRODUCT_KEYS[name]
        elseif PRODUCT_CHANNELS[name] then
            value = PRODUCT_CHANNELS[name] .. k.pid
        else
            error('no key named ' .. tostring(name))
        end
        rawset(k, name, value)
        return value
    end,
}

-- The keys of one product: k.settings, k.active, ... and k:page(n), k:bucket(b), k:seen(span, n),
-- k:slot(uid), k:completing(uid), k:invite(id), k:challenge(mark); k.field names its line's
-- settings fields, and k.invited is the same table for the invited line.
local function product_keys(pid)
    return setmetatable({ pid = pid, prefix = 'qg:{' .. pid .. '}:', field = MAIN_FIELDS }, KEYS_OF_A_PRODUCT)
end

-- The keys of the product a product script is run for: ARGV[1] is the product id, KEYS[1] its
-- settings (Lettuce routes a script by its first key), KEYS[2] and KEYS[3] its active set and
-- ticket counter; the scripts reach the product's other keys through the table.
--
-- ARGV[2] is the gateway's epoch: the identity of the Redis data it checked when it connected
-- (docs/redis.md, "When Redis forgets"), with '*' appended while it recovers a loss. It is taken
-- out of ARGV here, so every script numbers its own arguments as if it were not there: k.epoch,
-- k.recovering.
local function script_keys()
    local k = product_keys(ARGV[1])
    if KEYS[1] ~= k.prefix .. PRODUCT_KEYS.settings then
        error('the keys given are not those of product ' .. ARGV[1])
    end
    local epoch, recovering = string.match(table.remove(ARGV, 2) or '', '^(%w*)(%*?)$')
    if not epoch or epoch == '' then
        error('product scripts are given the gateway epoch as their second argument')
    end
    rawset(k, 'settings', KEYS[1])
    rawset(k, 'active', KEYS[2])
    rawset(k, 'seq', KEYS[3])
    rawset(k, 'epoch', epoch)
    rawset(k, 'recovering', recovering == '*')
    return k
end
