-- Every key and channel of one product, made from its id in this one place; the Java side's
-- QueueKeys makes the same names, and QueueKeysTest checks that both agree. Every key shares the
-- hash tag {pid}, so a script touches one Redis Cluster slot.
local function product_keys(pid)
    local prefix = 'qg:{' .. pid .. '}:'
    local k = {
        pid = pid,
        -- HASH: the product's rules as the last join stored them, the operator's levers, the
        -- head of the line, the admission rate, a sale's draw (see fill.lua)
        settings = prefix .. 'settings',
        -- ZSET: admitted users, score = session expiry (epoch ms)
        active = prefix .. 'active',
        -- STRING: the last ticket handed out
        seq = prefix .. 'seq',
        -- ZSET: places given up ahead of the head, member ticket, score its position
        left = prefix .. 'left',
        -- ZSET: admitted users who have not arrived yet, score = arrival deadline
        arriving = prefix .. 'arriving',
        -- channels: admissions (space-separated user ids), completions and leaves (a user id,
        -- '*' for everyone), and freed places (promotion: pubsub)
        admitted = 'qg:admitted:' .. pid,
        released = 'qg:released:' .. pid,
        slot_available = 'qg:slot-available:' .. pid,
    }
    -- HASH: ticket -> user id, for the tickets n*PAGE to n*PAGE+PAGE-1 (line.lua)
    function k.page(n)
        return prefix .. 'line:' .. n
    end
    -- HASH: user id -> ticket, one of BUCKETS buckets by a hash of the user id (line.lua)
    function k.bucket(b)
        return prefix .. 'tickets:' .. b
    end
    -- BITMAP: bit (ticket mod SEEN_WRAP) set when its holder was seen in span n (line.lua)
    function k.seen(span, n)
        return prefix .. 'seen:' .. span .. ':' .. n
    end
    -- STRING with the session's TTL: one per admitted user (promotion: keyspace)
    function k.slot(uid)
        return prefix .. 'slot:' .. uid
    end
    -- STRING with the session's remaining TTL: the completion claim of a complete-on request
    function k.completing(uid)
        return prefix .. 'completing:' .. uid
    end
    return k
end

-- The keys of the product a product script is run for: ARGV[1] is the product id, KEYS[1] its
-- settings (Lettuce routes a script by its first key), KEYS[2] and KEYS[3] its active set and
-- ticket counter; the scripts reach the product's other keys through the table.
local function script_keys()
    local k = product_keys(ARGV[1])
    if KEYS[1] ~= k.settings or KEYS[2] ~= k.active or KEYS[3] ~= k.seq then
        error('the keys given are not those of product ' .. ARGV[1])
    end
    return k
end
