-- The rollback runtime. Go renders it onto one line (comment lines dropped,
-- lines joined by spaces), so no statement may rely on a line break, no line
-- may start with "(" and comments must stand on lines of their own.
--
-- Sections between "--@ <handler> <COMMAND>..." and "--@ end" are kept only
-- when the guarded code names one of their commands; "--@ reader" sections
-- remember what a read returned. __W__ becomes the table of the commands
-- the code names (see prelude.go); its values:
--   false   not a write, or no keys
--   'r'     a read whose reply R[cmd] remembers
--   a function  the write's handler, which journals an inverse
--   1       one key, the first argument: snapshot it
--   {f, l, s} keys from argument f to l (negative: from the end) step s
--   'g'     ask COMMAND GETKEYS (movable keys, containers, unknown commands)
--   'c'     COPY: refused with a DB option, else like {1, 2, 1}
--   'x'     refused: its effect cannot be journaled per key
-- __PROXY__ becomes the statement that makes the table the code sees as
-- redis.
--
-- While FUNCTION LOAD runs a library, the globals hold only a reduced
-- redis table (no call) and nothing else, so nothing here reads a global
-- before it runs. Globals are not copied into locals either: each EVAL
-- creates every closure here again, and each captured local makes that
-- dearer (Lua 5.1 searches the open upvalues linearly) than the lookups
-- it would save.
-- log holds undo commands, newest last. seen: keys whose whole state is
-- journaled; timed: keys whose expiry is; sv, hv and zv: string values,
-- hash fields and sorted set scores as reads returned them, false for
-- absent.
local log, n, seen, timed, sv, hv, zv
local function remember(e)
  n = n + 1
  log[n] = e
  return e
end
local function forget(k)
  if sv then
    sv[k] = nil
  end
  if hv then
    hv[k] = nil
  end
  if zv then
    zv[k] = nil
  end
end
local function snap(k)
  seen[k] = true
  local at = redis.call('PEXPIRETIME', k)
  if at == -2 then
    remember({'DEL', k})
    return
  end
  local d = redis.call('DUMP', k)
  if at > 0 then
    remember({'RESTORE', k, at, d, 'REPLACE', 'ABSTTL'})
  else
    remember({'RESTORE', k, 0, d, 'REPLACE'})
  end
end
-- keepttl journals k's expiry before a write that may change it or delete
-- the key. Undone in order, the key exists again when it is restored.
local function keepttl(k)
  if timed[k] then
    return
  end
  timed[k] = true
  local at = redis.call('PEXPIRETIME', k)
  if at == -2 then
    seen[k] = true
    remember({'DEL', k})
  elseif at == -1 then
    remember({'PERSIST', k})
  else
    remember({'PEXPIREAT', k, at})
  end
end
local function refuse(cmd)
  error({err = 'ERR scriptgen transactional: ' .. cmd .. ' cannot be rolled back'})
end
-- chunked remembers a long undo in pieces: unpack and Redis's argument
-- count have limits that the write's own reply does not.
local function chunked(head, k, items)
  local m = #items
  for i = 1, m, 1000 do
    local e, last = {head, k}, i + 999
    if last > m then
      last = m
    end
    for j = i, last do
      e[j - i + 3] = items[j]
    end
    remember(e)
  end
end
--@ h_fields HSET HMSET HSETNX HINCRBY HINCRBYFLOAT HDEL
-- fields journals hash fields before a write: from what reads returned, or
-- with one HMGET of the others. A journaled field is marked true in hv: the
-- first undo of a field restores it, so later writes to it need none.
local function fields(k, fs)
  if sv then
    sv[k] = nil
  end
  if zv then
    zv[k] = nil
  end
  hv = hv or {}
  local h = hv[k]
  if not h then
    h = {}
    hv[k] = h
  end
  local miss = {}
  for i = 1, #fs do
    if h[fs[i]] == nil then
      miss[#miss + 1] = fs[i]
    end
  end
  if #miss > 0 then
    local old = redis.pcall('HMGET', k, unpack(miss))
    if old.err then
      return
    end
    for i = 1, #miss do
      h[miss[i]] = old[i]
    end
  end
  local set, del = {}, {}
  for i = 1, #fs do
    local f = fs[i]
    local v = h[f]
    if v ~= true then
      if v then
        set[#set + 1] = f
        set[#set + 1] = v
      else
        del[#del + 1] = f
      end
      h[f] = true
    end
  end
  chunked('HSET', k, set)
  chunked('HDEL', k, del)
end
local function h_fields(cmd, k, ...)
  local fs, c = {}, string.lower(cmd)
  if c == 'hset' or c == 'hmset' then
    for i = 1, select('#', ...), 2 do
      fs[#fs + 1] = select(i, ...)
    end
  elseif c == 'hdel' then
    keepttl(k)
    if seen[k] then
      return
    end
    fs = {...}
  else
    fs[1] = ...
  end
  fields(k, fs)
  return nil, true
end
--@ end
--@ h_expire EXPIRE PEXPIRE EXPIREAT PEXPIREAT PERSIST
-- An expiry that is already past deletes the key: that takes a snapshot.
-- Redis compares with its clock when the write runs, later than TIME here,
-- so a second of slack keeps a close call on the safe side.
local function h_expire(cmd, k, t)
  local c, at = string.lower(cmd), tonumber(t)
  if at and c ~= 'persist' then
    if c == 'expire' or c == 'pexpire' then
      if at <= 0 then
        return snap(k)
      end
    else
      if c == 'expireat' then
        at = at * 1000
      end
      local now = redis.call('TIME')
      if at <= tonumber(now[1]) * 1000 + tonumber(now[2]) / 1000 + 1000 then
        return snap(k)
      end
    end
  end
  keepttl(k)
end
--@ end
--@ h_set SET
-- SET replaces value and expiry: from a read's value and PEXPIRETIME, or
-- by a snapshot. A SET NX needs no read: its reply tells whether the key
-- was absent (undone by DEL) or nothing changed.
local function h_set(cmd, k, v, ...)
  local nx, get, keep
  for i = 1, select('#', ...) do
    local a = select(i, ...)
    if type(a) == 'string' then
      a = string.lower(a)
      if a == 'nx' then
        nx = true
      elseif a == 'get' then
        get = true
      elseif a == 'keepttl' then
        keep = true
      end
    end
  end
  if nx and not get then
    seen[k] = true
    remember({'DEL', k})
    return function(r)
      if not r then
        log[n], n, seen[k] = nil, n - 1, nil
      end
    end
  end
  local old = sv and sv[k]
  if old == false then
    seen[k] = true
    remember({'DEL', k})
    return
  end
  if old == nil then
    return snap(k)
  end
  if keep then
    remember({'SET', k, old, 'KEEPTTL'})
    return
  end
  seen[k] = true
  local at = redis.call('PEXPIRETIME', k)
  if at > 0 then
    remember({'SET', k, old, 'PXAT', at})
  else
    remember({'SET', k, old})
  end
end
--@ end
--@ h_incr INCR INCRBY DECR DECRBY INCRBYFLOAT
-- Counters keep their expiry: the old value is enough.
local function h_incr(cmd, k)
  local old = sv and sv[k]
  if old == nil then
    old = redis.pcall('GET', k)
    if type(old) == 'table' then
      return
    end
  end
  if old then
    remember({'SET', k, old, 'KEEPTTL'})
  else
    seen[k] = true
    remember({'DEL', k})
  end
end
--@ end
--@ h_zset ZADD ZINCRBY ZREM ZREMRANGEBYSCORE ZREMRANGEBYRANK
-- scores journals members' scores, from what reads returned or with one
-- ZMSCORE: absent ones are removed again, present ones get their old score
-- back.
local function scores(k, ms)
  local old
  local cache = zv and zv[k]
  if cache then
    old = {}
    for i = 1, #ms do
      local v = cache[ms[i]]
      if v == nil then
        old = nil
        break
      end
      old[i] = v
    end
  end
  if not old then
    old = redis.pcall('ZMSCORE', k, unpack(ms))
    if old.err then
      return
    end
  end
  local add, rem = {}, {}
  for i = 1, #ms do
    if old[i] then
      add[#add + 1] = old[i]
      add[#add + 1] = ms[i]
    else
      rem[#rem + 1] = ms[i]
    end
  end
  chunked('ZADD', k, add)
  chunked('ZREM', k, rem)
end
local zflags = {nx = true, xx = true, gt = true, lt = true, ch = true, incr = true}
local function h_zset(cmd, k, ...)
  local c, a = string.lower(cmd), {...}
  if c == 'zadd' then
    local i = 1
    while type(a[i]) == 'string' and zflags[string.lower(a[i])] do
      i = i + 1
    end
    local ms = {}
    for j = i + 1, #a, 2 do
      ms[#ms + 1] = a[j]
    end
    return scores(k, ms)
  elseif c == 'zincrby' then
    return scores(k, {a[2]})
  end
  keepttl(k)
  if seen[k] then
    return
  end
  if c == 'zrem' then
    return scores(k, a)
  end
  local r
  if c == 'zremrangebyscore' then
    r = redis.pcall('ZRANGEBYSCORE', k, a[1], a[2], 'WITHSCORES')
  else
    r = redis.pcall('ZRANGE', k, a[1], a[2], 'WITHSCORES')
  end
  if r.err then
    return
  end
  local add = {}
  for i = 1, #r, 2 do
    add[#add + 1] = r[i + 1]
    add[#add + 1] = r[i]
  end
  chunked('ZADD', k, add)
end
--@ end
--@ h_set_members SADD SREM
local function h_set_members(cmd, k, ...)
  local ms, add = {...}, string.lower(cmd) == 'sadd'
  if not add then
    keepttl(k)
    if seen[k] then
      return
    end
  end
  local old = redis.pcall('SMISMEMBER', k, ...)
  if old.err then
    return
  end
  local undo = {}
  for i = 1, #ms do
    if (old[i] == 1) ~= add then
      undo[#undo + 1] = ms[i]
    end
  end
  chunked(add and 'SREM' or 'SADD', k, undo)
end
--@ end
--@ h_push LPUSH RPUSH LPUSHX RPUSHX
-- A push is undone by popping as many from the same end: the reply of the
-- pop is not needed, so nothing is read before.
local function h_push(cmd, k, ...)
  local c = string.lower(cmd)
  remember({(c == 'lpush' or c == 'lpushx') and 'LPOP' or 'RPOP', k, select('#', ...)})
end
--@ end
--@ h_xadd XADD
-- An XADD without trimming is undone by XDEL of the new entry and XSETID
-- back to the stream's old last ID and counters, once anything was ever
-- deleted from the stream.
local function h_xadd(cmd, k, ...)
  for i = 1, select('#', ...) do
    local a = select(i, ...)
    if type(a) == 'string' then
      a = string.lower(a)
      if a == 'maxlen' or a == 'minid' or a == 'nomkstream' then
        return snap(k)
      end
    end
  end
  local info = redis.pcall('XINFO', 'STREAM', k)
  if info.err then
    if info.err == 'ERR no such key' then
      seen[k] = true
      remember({'DEL', k})
    end
    return
  end
  local f = {}
  for i = 1, #info, 2 do
    f[info[i]] = info[i + 1]
  end
  -- XSETID ignores a MAXDELETEDID of 0-0: only a snapshot brings it back.
  if f['max-deleted-entry-id'] == '0-0' then
    return snap(k)
  end
  remember({'XSETID', k, f['last-generated-id'], 'ENTRIESADDED', f['entries-added'], 'MAXDELETEDID', f['max-deleted-entry-id']})
  local e = remember({'XDEL', k, false})
  return function(id)
    e[3] = id
  end
end
--@ end
--@ reader r_get GET
local function r_get(r, k)
  if type(r) ~= 'table' then
    sv = sv or {}
    sv[k] = r
  end
end
--@ end
--@ reader r_score ZSCORE
-- Only RESP2's replies are kept: RESP3 turns a score into a table.
local function r_score(r, k, m)
  if type(r) == 'string' or r == false then
    zv = zv or {}
    local z = zv[k] or {}
    zv[k] = z
    z[m] = r
  end
end
--@ end
--@ reader r_fields HGET HMGET
local function r_fields(r, k, ...)
  if type(r) == 'table' and r.err then
    return
  end
  hv = hv or {}
  local h = hv[k] or {}
  hv[k] = h
  if type(r) ~= 'table' then
    h[...] = r
    return
  end
  for i = 1, #r do
    h[select(i, ...)] = r[i]
  end
end
--@ end
local W, R = __W__, __R__
local function kind(cmd)
  local w = W[cmd]
  if w ~= nil then
    return w
  end
  w = false
  if type(cmd) == 'string' then
    local l = string.lower(cmd)
    w = W[l]
    if w == nil then
      local info = redis.pcall('COMMAND', 'INFO', l)
      w = false
      info = type(info) == 'table' and info[1]
      if type(info) == 'table' then
        if type(info[10]) == 'table' and #info[10] > 0 then
          w = 'g'
        end
        for _, f in ipairs(info[3]) do
          if f == 'write' or type(f) == 'table' and f.ok == 'write' then
            w = 'g'
          end
        end
      end
      W[l] = w
    end
    R[cmd] = R[l]
    W[cmd] = w
  end
  return w
end
-- journal records how to undo the write cmd is about to make. It returns
-- a function to call with the write's reply, when the undo depends on it.
local function journal(w, cmd, ...)
  if type(w) == 'function' then
    local k = ...
    if k == nil or seen[k] then
      return
    end
    -- keep: the handler left what reads returned true of k.
    local fix, keep = w(cmd, ...)
    if not keep then
      forget(k)
    end
    return fix
  end
  if w == 1 then
    local k = ...
    if k ~= nil then
      forget(k)
      if not seen[k] then
        snap(k)
      end
    end
    return
  end
  local ks = {}
  if w == 'g' then
    ks = redis.pcall('COMMAND', 'GETKEYS', cmd, ...)
    if type(ks) ~= 'table' or ks.err then
      return
    end
  elseif w == 'x' then
    refuse(cmd)
  elseif w == 'c' then
    for i = 3, select('#', ...) do
      local a = select(i, ...)
      if type(a) == 'string' and string.lower(a) == 'db' then
        refuse('COPY ... DB')
      end
    end
    ks = {...}
    ks[3] = nil
  else
    local last = w[2]
    if last < 0 then
      last = select('#', ...) + 1 + last
    end
    for i = w[1], last, w[3] do
      ks[#ks + 1] = select(i, ...)
    end
  end
  for i = 1, #ks do
    local k = ks[i]
    forget(k)
    if not seen[k] then
      snap(k)
    end
  end
end
local function guarded(raise, cmd, ...)
  local f = raise and redis.call or redis.pcall
  local w = W[cmd]
  if w == nil then
    w = kind(cmd)
  end
  if not w then
    return f(cmd, ...)
  end
  if w == 'r' then
    local r = f(cmd, ...)
    R[cmd](r, ...)
    return r
  end
  local mark = n
  local fix = journal(w, cmd, ...)
  if n == mark then
    return f(cmd, ...)
  end
  local r = redis.pcall(cmd, ...)
  if type(r) == 'table' and r.err then
    -- A refused write changed nothing: its key needs no undo.
    for i = n, mark + 1, -1 do
      local k = log[i][2]
      seen[k], timed[k] = nil, nil
      forget(k)
      log[i] = nil
    end
    n = mark
    if raise then
      error(r)
    end
  elseif fix then
    fix(r)
  end
  return r
end
local function proxied_call(...)
  if not log then
    return redis.call(...)
  end
  return guarded(true, ...)
end
local function proxied_pcall(...)
  if not log then
    return redis.pcall(...)
  end
  return guarded(false, ...)
end
__PROXY__
local function pass(e)
  return e
end
local function run(body)
  log, n, seen, timed, sv, hv, zv = {}, 0, {}, {}, nil, nil, nil
  local ok, r = xpcall(body, pass)
  local l, c = log, n
  log, seen, timed, sv, hv, zv = nil, nil, nil, nil, nil, nil
  if ok then
    return r
  end
  local failed
  for i = c, 1, -1 do
    local u = redis.pcall(unpack(l[i]))
    if type(u) == 'table' and u.err and not failed then
      failed = u.err
    end
  end
  if failed then
    local msg = type(r) == 'table' and r.err or tostring(r)
    error({err = 'ERR scriptgen transactional: rollback failed (' .. failed .. ') after: ' .. tostring(msg)})
  end
  error(r, 0)
end
return proxy, run
