-- Takes over stream events that another gateway instance read but never acknowledged (it died
-- between reading and promoting), and forgets consumers that are long gone and hold nothing.
--
-- KEYS  1 the slot-event stream
-- ARGV  1 consumer group   2 this consumer   3 min idle (ms) before an event is taken
--       4 batch size   5 idle (ms) after which an empty consumer is removed
-- Reply a plain list {event id, product id, event id, product id, ...} of the events now owned
--       by this consumer
local stream, group, me = KEYS[1], ARGV[1], ARGV[2]
local claimed = redis.call('XAUTOCLAIM', stream, group, me, ARGV[3], '0-0', 'COUNT', ARGV[4])
local out = {}
for _, entry in ipairs(claimed[2]) do
    local id, fields = entry[1], entry[2]
    if fields then
        for i = 1, #fields, 2 do
            if fields[i] == 'pid' then
                out[#out + 1] = id
                out[#out + 1] = fields[i + 1]
            end
        end
    end
end
local consumers = redis.call('XINFO', 'CONSUMERS', stream, group)
for _, consumer in ipairs(consumers) do
    local info = {}
    for i = 1, #consumer, 2 do
        info[consumer[i]] = consumer[i + 1]
    end
    if info['name'] ~= me and tonumber(info['pending']) == 0 and tonumber(info['idle']) > tonumber(ARGV[5]) then
        redis.call('XGROUP', 'DELCONSUMER', stream, group, info['name'])
    end
end
return out
