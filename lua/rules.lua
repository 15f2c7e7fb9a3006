-- A route's rules in Redis (docs/redis.md, the settings hash), read by name.
--
-- The rules that the scripts obey (config/RouteFields, AppliedBy.SCRIPTS) come with every join and
-- recovery as one list of names and values, made by store/ProductRules.wire(): each route field
-- as the configuration spells it ('max-active', 'session-ttl', 'promotion', 'opens-at', ...),
-- then its value as the scripts read it (a duration or an instant in ms, '' for none). fill.lua's
-- store_rules keeps each in the product's settings hash under RULE .. name ('rule:max-active'),
-- whatever the field, so a new rule needs no Lua to be stored; the prefix keeps a rule's name
-- apart from the fields the scripts keep of their own (the stock left is 'stock'; the route's
-- stock setting is 'rule:stock'). Every script reads a rule with rule(c, name).
local RULE = 'rule:'

-- Where the release before this one kept the rules (max, ttl, strategy, ...). A product whose
-- settings only it wrote is still served by them during a rolling upgrade and after it: rule()
-- reads its fields while none of this release's is stored ('rule:max-active' is there whenever
-- they are, since max-active always has a value), so a rule a route of this release dropped
-- (opens-at, stock) never comes back from them. The first join of this release for the product (or
-- a recovery given its route) stores every rule under its own name; until then a leave, an expiry
-- or a promotion without a request reads these, which matters for the sessions the previous
-- release admitted, at most a session-ttl.
local PREVIOUS_RULE_FIELDS = { ['max-active'] = 'max', ['session-ttl'] = 'ttl', promotion = 'strategy',
    ['opens-at'] = 'opens', ['max-admit-per-minute'] = 'apm', ['abandon-after'] = 'abandon',
    ['arrival-ttl'] = 'arrival', ['units-per-shopper'] = 'units', stock = 'stock_set' }

-- Each rule's settings field, made once a call (building a string costs more than most commands).
local rule_fields = {}

local function rule_field(name)
    local field = rule_fields[name]
    if not field then
        field = RULE .. name
        rule_fields[name] = field
    end
    return field
end

-- The rule 'name' as the settings c hold it (the previous release's field while the rule's own
-- is absent); false when neither is there.
local function rule(c, name)
    local value = c[rule_field(name)]
    if value or c[rule_field('max-active')] then
        return value or false
    end
    local previous = PREVIOUS_RULE_FIELDS[name]
    return previous and c[previous] or false
end

-- A list of words that more arguments follow, as the gateway sends it: ARGV[at] is how many, the
-- words come next. Returns them and the index of the next argument.
local function counted_words(at)
    local n = tonumber(ARGV[at])
    if not n or n < 0 or n % 1 ~= 0 then
        error('ARGV[' .. at .. '] must count the words that follow, not ' .. tostring(ARGV[at]))
    end
    local words = {}
    for i = 1, n do
        words[i] = ARGV[at + i]
    end
    return words, at + n + 1
end

-- Names and values as a table by name; a name not given reads as ''.
local function by_name(words)
    local named = setmetatable({}, { __index = function()
        return ''
    end })
    for i = 1, #words - 1, 2 do
        named[words[i]] = words[i + 1]
    end
    return named
end
