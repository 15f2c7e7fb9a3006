--!include fill.lua
-- Recovers one product after Redis forgot (docs/redis.md, "When Redis forgets"): merges what one
-- gateway instance remembers of the product into what Redis still holds of it (nothing after an
-- empty restart; an older copy after a failover to a replica that lacked the last writes), and
-- stamps it with the gateway's epoch, so the scripts decide on it again (fill.lua's stale). Each
-- instance runs it for every product it knows as soon as it sees a new epoch, and a script that
-- meets an unrecovered product asks for it first. So it runs several times per product, in any
-- order, and every merge only adds what is safe whichever arrives first:
--   the line      its head and the positions given up ahead of it, as the instance last read
--                 them; the ticket counter raised above the last ticket anyone may hold (the
--                 last one read, plus a margin for those taken in the moment before the loss):
--                 tickets taken from now on stand behind every place that may still come back.
--                 The counter's value then is the line's recovery floor ('rfloor'); once a new
--                 ticket is taken above it, the head and the floor stay where they are
--   the draw      its first and last tickets, its seed (derived again by the gateway, so it is
--                 the one committed to) and commitment; a sale past its opens-at whose draw was
--                 still open is closed at the floor: everyone before the loss is in the draw
--   the room      the operator's mode, drain and max-active, when this instance read them more
--                 recently than what is stored
--   sessions      those the instance knows are running, each until its end (the later end wins;
--                 one it only heard announced, until its arrival deadline: had its holder
--                 arrived, the instance that answered them knows the session's end),
--                 and those it heard end: removed, and never brought back by a token signed before
--   the rules     as a join stores them (fill.lua's store_rules)
-- Everyone in line then has a whole abandon-after to be seen again. Nobody is admitted here: the
-- gateway marks the product due, and the next promotion fills what is free.
--
-- KEYS  settings, active, seq (keys.lua)
-- ARGV  1 product id; then the route's rules as join.lua takes them (after their number of words;
--       none when the gateway has no route at hand); then pairs of a name and a value ('' = unknown):
--       now; idle (ms: how long the product's keys outlive their last visitor); until (epoch ms:
--       when the window for reclaiming places ends); adopt ('1' when no loss is being recovered:
--       the state is only stamped with the epoch); margin (tickets); head, last, left (the
--       positions given up ahead of the head, space-separated), draw_from, draw_to, seed,
--       commitment, opened, and invited_head, invited_last, invited_left, invited_draw_from,
--       invited_draw_to for the invited line; read_at (when the instance read the room's state),
--       mode (MODE), draining ('1'/'0'), max_override; sessions ('<user> <end> <admitted> ...', end
--       0 when unknown), ended ('<user> <when> ...')
-- Reply recovered (1 when this call merged what it was given, 0 when it only adopted the state),
--       floor (the main line's recovery floor, -1 when adopted)
local k = script_keys()
local given, at = counted_words(2)
local named = {}
for i = at, #ARGV do
    named[#named + 1] = ARGV[i]
end
local a = by_name(named)
local now = tonumber(a.now)
local c = settings_of(k)
local changes = {}
local first = c.epoch ~= k.epoch

local function set(field, value)
    c[field] = value
    changes[#changes + 1] = field
    changes[#changes + 1] = value
end

if first then
    set('epoch', k.epoch)
end
if a.adopt == '1' then
    if #changes > 0 then
        redis.call('HSET', k.settings, unpack(changes))
    end
    return { 'recovered', 0, 'floor', -1 }
end

-- The stock setting is stored as applied: the stock sold before the loss is not known, and stays
-- unknown until the shop or an operator says it.
store_rules(k, c, now, given, changes, false)

local margin = tonumber(a.margin) or 0

-- Splits a space-separated list.
local function words(text)
    local list = {}
    for word in string.gmatch(text, '%S+') do
        list[#list + 1] = word
    end
    return list
end

-- One line (lk, with its settings view lc): head, floor, draw and the places given up.
local function recover_line(lk, lc, head, last, left, draw_from, draw_to)
    local seq = last_ticket(lk)
    local floor = tonumber(lc.rfloor)
    if first or not floor or seq <= floor then
        -- No ticket was taken since this epoch's first recovery: the head and floor may still rise.
        local new_head = math.max(tonumber(lc.head) or 1, tonumber(head) or 1)
        floor = seq
        if last ~= '' then
            floor = math.max(seq, tonumber(last) + margin)
        end
        if floor > seq then
            redis.call('SET', lk.seq, floor)
        end
        lc.head, lc.rfloor = tostring(new_head), tostring(floor)
        changes[#changes + 1] = lk.field.head
        changes[#changes + 1] = lc.head
        changes[#changes + 1] = lk.field.rfloor
        changes[#changes + 1] = lc.rfloor
        redis.call('ZREMRANGEBYSCORE', lk.left, '-inf', '(' .. new_head)
    end
    if draw_from ~= '' and not lc.draw_from then
        lc.draw_from = draw_from
        changes[#changes + 1] = lk.field.draw_from
        changes[#changes + 1] = draw_from
    end
    if draw_to ~= '' and lc.draw_from and not lc.draw_to then
        lc.draw_to = draw_to
        changes[#changes + 1] = lk.field.draw_to
        changes[#changes + 1] = draw_to
    end
    -- Places given up that the instance knew of: out of the line (a replica's copy may still hold
    -- them) and counted in the ranks behind them.
    local line_head = tonumber(lc.head) or 1
    local added = 0
    for _, word in ipairs(words(left)) do
        local position = tonumber(word)
        if position >= line_head and position <= floor then
            local ticket = ticket_at(position, lc)
            local page = page_of(lk, ticket)
            local uid = redis.call('HGET', page, ticket)
            if uid then
                redis.call('HDEL', page, ticket)
                if tonumber(redis.call('HGET', bucket_of(lk, uid), uid)) == ticket then
                    redis.call('HDEL', bucket_of(lk, uid), uid)
                end
            end
            added = added + redis.call('ZADD', lk.left, position, ticket)
        end
    end
    if added > 0 then
        redis.call('HINCRBY', k.settings, lk.field.left_v, 1)
    end
end

-- The draw's seed comes first: the places given up in a closed draw are placed by it.
if a.seed ~= '' and a.draw_from ~= '' and (not c.seed or c.commitment_draw ~= (c.draw_from or a.draw_from)) then
    if not c.draw_from or c.draw_from == a.draw_from then
        set('seed', a.seed)
        set('commitment', a.commitment)
        set('commitment_draw', a.draw_from)
    end
end
recover_line(k, c, a.head, a.last, a.left, a.draw_from, a.draw_to)
if c.invited or a.invited_head ~= '' or a.invited_last ~= '' then
    if not c.invited then
        set('invited', '1')
    end
    local ki, ci = invited_line(k, c)
    recover_line(ki, ci, a.invited_head, a.invited_last, a.invited_left, a.invited_draw_from, a.invited_draw_to)
end
if a.opened ~= '' and not c.opened then
    set('opened', a.opened)
end

-- The room as the operators left it, when this instance read it last.
local read_at = tonumber(a.read_at)
if read_at and read_at > (tonumber(c.room_read_at) or 0) then
    set('room_read_at', a.read_at)
    if a.mode == '' or a.mode == MODE.QUEUE then
        redis.call('HDEL', k.settings, 'mode')
        c.mode = false
    else
        set('mode', a.mode)
    end
    if a.draining == '1' then
        set('draining', '1')
    else
        redis.call('HDEL', k.settings, 'draining')
        c.draining = false
    end
    if a.max_override == '' then
        redis.call('HDEL', k.settings, 'max_override')
        c.max_override = false
    else
        set('max_override', a.max_override)
    end
end

-- Sessions heard to end first, so a session is never brought back by one instance after another
-- heard it end.
local ended = words(a.ended)
for i = 1, #ended - 1, 2 do
    local uid, at = ended[i], tonumber(ended[i + 1])
    local honoured = tonumber(redis.call('HGET', k.honoured, uid))
    if not honoured or honoured < at then
        redis.call('ZREM', k.active, uid)
        redis.call('DEL', k:slot(uid), k:completing(uid))
        redis.call('HSET', k.honoured, uid, at)
    end
end
local ttl, arrival = tonumber(rule(c, 'session-ttl')), tonumber(rule(c, 'arrival-ttl'))
local sessions = words(a.sessions)
for i = 1, #sessions - 2, 3 do
    local uid, ends, admitted = sessions[i], tonumber(sessions[i + 1]), tonumber(sessions[i + 2])
    if ends == 0 and ttl then
        ends = admitted + math.min(arrival or ttl, ttl)
    end
    local honoured = tonumber(redis.call('HGET', k.honoured, uid))
    if ends > now and not (honoured and honoured >= admitted) then
        local score = tonumber(redis.call('ZSCORE', k.active, uid))
        if not score or score < ends then
            redis.call('ZADD', k.active, ends, uid)
            if rule(c, 'promotion') == 'keyspace' then
                redis.call('SET', k:slot(uid), '1', 'PX', ends - now)
            end
        end
        -- Through, so not in line: a replica's copy may still hold the place they were admitted from.
        give_up(k, uid, c)
    end
end

-- A sale past its opening: its draw closes now, at the floor, if the loss came before it closed.
opened(k, now, c, true)
set('seen_since', tostring(now))
set('kept_at', tostring(now))
local until_at = math.max(tonumber(a['until']) or now, tonumber(c.recover_until) or 0)
set('recover_until', tostring(until_at))
redis.call('HSET', k.settings, unpack(changes))

local idle = tonumber(a.idle)
for _, key in ipairs({ k.settings, k.active, k.seq, k.arriving, k.left, k.returning, k.honoured, k.reclaimed }) do
    redis.call('PEXPIRE', key, idle)
end
if c.invited then
    for _, key in ipairs({ k.invited.seq, k.invited.left, k.invited.reclaimed }) do
        redis.call('PEXPIRE', key, idle)
    end
end
return { 'recovered', 1, 'floor', tonumber(c.rfloor) or -1 }
