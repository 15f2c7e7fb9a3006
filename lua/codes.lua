-- The result codes the scripts answer with, by name. The Java side mirrors each table with an
-- enum (ScriptCodes lists them) and ScriptContractTest checks that both sides hold the same codes.

-- Where a user stands (join.lua, status.lua).
local STATE = {
    ACTIVE = 'active',          -- holds a place: let through
    WAITING = 'waiting',        -- in line
    PRE_QUEUE = 'pre_queue',    -- in the pre-queue of a sale not open yet
    NOT_FOUND = 'not_found',    -- neither in line nor active
    DRAINING = 'draining',      -- the queue takes nobody new (an operator drains it)
    SALE_ENDED = 'sale_ended',  -- closes-at has passed and the user held no place
    ROOM_CLOSED = 'room_closed', -- an operator closed the room
    COMPLETING = 'completing',  -- active, but another request is completing the session
    INVITE_REQUIRED = 'invite_required', -- would take a new place, but brought no valid invitation
    INVITE_USED = 'invite_used', -- would take a new place, but the invitation has made all its places
    CHALLENGE_USED = 'challenge_used', -- the join's proof-of-work solution was used before
    SESSION_ENDED = 'session_ended', -- a completing request of someone who holds no place: no new one
    CHALLENGE_REQUIRED = 'challenge_required', -- would take a new place, which the request did not pay for
    JOIN_LIMITED = 'join_limited', -- would take a new place, beyond the caller's join limit
    SOLD_OUT = 'sold_out',      -- the stock is gone: nobody new is admitted, those in line keep their places
}

-- What a promotion pass did (fill, promote.lua, due.lua).
local PROMOTION = {
    MOVED = 'moved',            -- admitted at least one user
    FULL = 'full',              -- people wait, but no place is free or no admission is due
    EMPTY = 'empty',            -- nobody waits (or the product has no state)
    SKIPPED = 'skipped',        -- the product uses another strategy than the one asked for
}

-- What an expiry event did (expire.lua).
local EXPIRY = {
    EXPIRED = 'expired',        -- the session ended here, exactly once across all instances
    NEWER_SESSION = 'newer_session', -- the user holds a newer session: a stale event
    HANDLED = 'handled',        -- another instance handled it first, or the user left
}

-- The room modes an operator sets (admin.lua); 'queue' is stored as no mode at all.
local MODE = {
    QUEUE = 'queue',
    PASSTHROUGH = 'passthrough',
    QUEUE_ALL = 'queue-all',
    CLOSED = 'closed',
}

-- An operator's actions (admin.lua).
local ACTION = {
    MAX = 'max', MODE = 'mode', PAUSE = 'pause', RESUME = 'resume', DRAIN = 'drain', UNDRAIN = 'undrain',
    STOCK = 'stock',
}
