--!include fill.lua
-- What a gateway instance needs to answer a waiting shopper's poll from its own memory: the moving
-- parts of the product's line (the head, the last ticket, the places given up ahead), a sale's
-- draw once it may be shown, the room's mode and the admission rate. Every instance reads it for
-- the products it serves at least every second, so its answers are at most that stale; with the
-- version of the places given up it already holds, the list itself is sent only when it changed,
-- and never when it is longer than LEFT_VIEW_MAX (a crowd of leavers the head has not reached: the
-- instance then asks Redis about everyone in line, as it would without a view). Read-only.
--
-- KEYS  settings, active, seq (keys.lua)
-- ARGV  1 product id   2 the version of the places given up the caller holds ('' = none)
--       3 how many it holds (-1 = none)   4, 5 the same for the invited line (invites: priority)
-- Reply known (1 when the product has state), head, last (the last ticket), left_version,
--       left_count, left_changed (1 when 'left' is sent), left (the positions of the places given
--       up ahead of the head, ascending; empty unless left_changed), left_complete (0 when there
--       are more than LEFT_VIEW_MAX and none are sent), draw_from, draw_to (-1 when
--       none), seed (the draw's seed once it is closed, else ''), commitment (the commitment to
--       the seed of the last draw, '' when none), opens, opened (epoch ms, -1 when none), mode
--       (MODE), draining (1 or 0), rate, rate_at, rate_since, rate_gap (the admission rate's state,
--       for the estimate; -1 when none, rate_gap 0), abandon (ms), invited (1 when the product has
--       an invited line),
--       then its head, last, left_version, left_count, left_changed, left, left_complete,
--       draw_from and draw_to under the same names prefixed 'invited_' (as for an empty line when
--       there is none), returning (how many places reclaimed after a loss wait ahead of both
--       lines), max_override (the operator's max-active, -1 when unset), epoch (the epoch the
--       gateway read it in), draw_opens (the opens-at the last draw was opened for, -1 when
--       none: its seed is derived from it), stock (units left, -1 while unknown), units
--       (units-per-shopper), admitted (sessions held, expired ones not yet dropped included: a
--       place within the stock is never promised too early), sold_out_at (epoch ms, -1 unless sold
--       out). A product whose state
--       must be recovered first (fill.lua's stale) reads as unknown: its shoppers are answered by
--       Redis, which recovers it.
local LEFT_VIEW_MAX = 10000
local k = script_keys()
local c = settings_of(k)
if stale(k, c) then
    c = setmetatable({}, { __index = function()
        return false
    end })
end

-- One line's moving parts, given the version and count of its places given up the caller holds.
local function line_view(lk, lc, held_version, held_count)
    local version = lc.left_v or '0'
    local count = redis.call('ZCARD', lk.left)
    local changed = held_version ~= version or tonumber(held_count) ~= count
    local complete = count <= LEFT_VIEW_MAX
    local left = {}
    if changed and complete and count > 0 then
        local entries = redis.call('ZRANGE', lk.left, 0, -1, 'WITHSCORES')
        for i = 2, #entries, 2 do
            left[#left + 1] = tonumber(entries[i])
        end
    end
    return { head = tonumber(lc.head) or 1, last = last_ticket(lk), left_version = tonumber(version), left_count = count,
        left_changed = changed and 1 or 0, left = left, left_complete = complete and 1 or 0,
        draw_from = tonumber(lc.draw_from) or -1, draw_to = tonumber(lc.draw_to) or -1 }
end

local main = line_view(k, c, ARGV[2], ARGV[3])
local invited = { head = 1, last = 0, left_version = 0, left_count = 0, left_changed = 0, left = {}, left_complete = 1,
    draw_from = -1, draw_to = -1 }
if c.invited then
    local ki, ci = invited_line(k, c)
    invited = line_view(ki, ci, ARGV[4] or '', ARGV[5] or '-1')
end
local revealed = c.draw_to and true or false
return { 'known', rule(c, 'max-active') and 1 or 0, 'head', main.head, 'last', main.last,
    'left_version', main.left_version, 'left_count', main.left_count, 'left_changed', main.left_changed,
    'left', main.left, 'left_complete', main.left_complete,
    'draw_from', main.draw_from, 'draw_to', main.draw_to,
    'seed', revealed and c.seed or '', 'commitment', commitment_of(c), 'opens', tonumber(rule(c, 'opens-at')) or -1,
    'opened', tonumber(c.opened) or -1,
    'mode', c.mode or MODE.QUEUE, 'draining', c.draining == '1' and 1 or 0,
    'rate', c.rate or '-1', 'rate_at', tonumber(c.rate_at) or -1, 'rate_since', tonumber(c.rate_since) or -1,
    'rate_gap', tonumber(c.rate_gap) or 0,
    'abandon', tonumber(rule(c, 'abandon-after')) or 0, 'invited', c.invited and 1 or 0,
    'invited_head', invited.head, 'invited_last', invited.last, 'invited_left_version', invited.left_version,
    'invited_left_count', invited.left_count, 'invited_left_changed', invited.left_changed,
    'invited_left', invited.left, 'invited_left_complete', invited.left_complete,
    'invited_draw_from', invited.draw_from, 'invited_draw_to', invited.draw_to,
    'returning', returning_count(k, c), 'max_override', tonumber(c.max_override) or -1, 'epoch', k.epoch,
    'draw_opens', tonumber(c.draw_opens) or -1, 'stock', stock_reply(c), 'units', units_of(c),
    'admitted', c.stock and redis.call('ZCARD', k.active) or 0, 'sold_out_at', tonumber(c.sold_out_at) or -1 }
