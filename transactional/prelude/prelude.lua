-- The rollback runtime. Go renders it onto one line (comment lines dropped,
-- lines joined by spaces), so no statement may rely on a line break, no line
-- may start with "(" and comments must stand on lines of their own.
--
-- Sections between "--@ <handler> <COMMAND>..." and "--@ end" are kept only
-- when the guarded code names one of their commands; "--@ reader" sections
-- remember what a read returned; "--@ helper" sections are functions the
-- handlers of their commands share. __W__ becomes the table of the
-- commands the code names, as spelled there (see prelude.go); its values:
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
-- before it runs.
--
-- Cost. Under EVAL every function and table here is created again on each
-- call (Redis 7 leaves a script no place to keep them). Counted with
-- callgrind on redis-server 7.0.15, in instructions: a closure 400 to 700
-- (Lua 5.1 searches the open upvalues linearly for each one it captures),
-- an empty table about 600, xpcall 1,400, against about 7,000 for one
-- redis.call('TIME'). So: few closures, handlers rendered only for the
-- commands the code names, the journal's tables made at the first write,
-- log entries appended inline, and a read or a write to a key already
-- snapshotted costs one table lookup and one call more than Redis's own.
--
-- n counts the undo commands in log, newest last, and is nil outside a
-- run; log, seen (keys whose whole state is journaled) and timed (keys
-- whose expiry is) are made at the run's first write; sv, hv and zv:
-- string values, hash fields and sorted set scores as reads returned
-- them, false for absent. resp3: the script chose RESP3 (setresp), in
-- which the journal's own reads would come back in other shapes, so it
-- switches to RESP2 around them. gone: keys an EXISTS of the run found
-- absent, whose first write is undone by DEL without reading. wide:
-- handlers of writes to several keys, called while any key is not
-- journaled whole: they look at seen themselves.
local log, n, seen, timed, sv, hv, zv, resp3, gone, wide, pend
local xs
local function forget(k)
  if xs then
    xs[k] = nil
  end
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
  local at = gone and gone[k] and -2 or redis.call('PEXPIRETIME', k)
  n = n + 1
  if at == -2 then
    log[n] = {'DEL', k}
    return
  end
  local d = redis.call('DUMP', k)
  if at > 0 then
    log[n] = {'RESTORE', k, at, d, 'REPLACE', 'ABSTTL'}
  else
    log[n] = {'RESTORE', k, 0, d, 'REPLACE'}
  end
end
--@ helper keepttl HDEL EXPIRE PEXPIRE EXPIREAT PEXPIREAT PERSIST ZREM ZREMRANGEBYSCORE ZREMRANGEBYRANK SADD SREM LPOP RPOP RPOPLPUSH LMOVE
-- keepttl journals k's expiry before a write that may change it or delete
-- the key. Undone in order, the key exists again when it is restored.
local function keepttl(k)
  if timed[k] then
    return
  end
  timed[k] = true
  local at = redis.call('PEXPIRETIME', k)
  n = n + 1
  if at == -2 then
    seen[k] = true
    log[n] = {'DEL', k}
  elseif at == -1 then
    log[n] = {'PERSIST', k}
  else
    log[n] = {'PEXPIREAT', k, at}
  end
end
--@ end
--@ helper put HSET HMSET HSETNX HINCRBY HINCRBYFLOAT HDEL ZADD ZINCRBY ZREM ZREMRANGEBYSCORE ZREMRANGEBYRANK SADD SREM
-- put appends undo e = {cmd, key, items...}, in pieces of 1,000 items when
-- it is long: unpack and Redis's argument count have limits that the
-- write's own reply does not. Pairs stay together.
local function put(e)
  local m = #e
  if m <= 1002 then
    n = n + 1
    log[n] = e
    return
  end
  for i = 3, m, 1000 do
    local c, last = {e[1], e[2]}, i + 999
    if last > m then
      last = m
    end
    for j = i, last do
      c[j - i + 3] = e[j]
    end
    n = n + 1
    log[n] = c
  end
end
--@ end
--@ helper fields HSET HMSET HSETNX HINCRBY HINCRBYFLOAT HDEL
-- fields journals the hash fields a[1], a[1 + step] … of k before a write:
-- from what reads returned, or with one HMGET of the others. A journaled
-- field is marked true in hv: the first undo of a field restores it, so
-- later writes to it need none.
local function fields(k, a, step)
  if sv then
    sv[k] = nil
  end
  if zv then
    zv[k] = nil
  end
  local h = hv and hv[k]
  if not h then
    h = {}
    hv = hv or {}
    hv[k] = h
  end
  local miss
  for i = 1, #a, step do
    if h[a[i]] == nil then
      if miss then
        miss[#miss + 1] = a[i]
      else
        miss = {a[i]}
      end
    end
  end
  if miss then
    local old = redis.pcall('HMGET', k, unpack(miss))
    if old.err then
      return
    end
    for i = 1, #miss do
      h[miss[i]] = old[i]
    end
  end
  local set, del
  for i = 1, #a, step do
    local f = a[i]
    local v = h[f]
    if v ~= true then
      if v then
        if set then
          set[#set + 1] = f
          set[#set + 1] = v
        else
          set = {'HSET', k, f, v}
        end
      elseif del then
        del[#del + 1] = f
      else
        del = {'HDEL', k, f}
      end
      h[f] = true
    end
  end
  if set then
    put(set)
  end
  if del then
    put(del)
  end
end
--@ end
--@ h_hset HSET HMSET
local function h_hset(cmd, k, ...)
  fields(k, {...}, 2)
  return nil, true
end
--@ end
--@ h_hfield HSETNX HINCRBY HINCRBYFLOAT
local function h_hfield(cmd, k, f)
  fields(k, {f}, 1)
  return nil, true
end
--@ end
--@ h_hdel HDEL
local function h_hdel(cmd, k, ...)
  keepttl(k)
  if seen[k] then
    return
  end
  fields(k, {...}, 1)
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
  -- The values stay: what reads returned of k stays true.
  return nil, true
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
    n = n + 1
    log[n] = {'DEL', k}
    return function(r)
      if not r then
        log[n], n, seen[k] = nil, n - 1, nil
      end
    end
  end
  local old = sv and sv[k]
  if old == nil then
    return snap(k)
  end
  n = n + 1
  if old == false then
    seen[k] = true
    log[n] = {'DEL', k}
    return
  end
  -- KEEPTTL leaves the expiry to later writes to journal.
  if keep then
    log[n] = {'SET', k, old, 'KEEPTTL'}
    return
  end
  seen[k] = true
  local at = redis.call('PEXPIRETIME', k)
  if at > 0 then
    log[n] = {'SET', k, old, 'PXAT', at}
  else
    log[n] = {'SET', k, old}
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
  n = n + 1
  if old then
    log[n] = {'SET', k, old, 'KEEPTTL'}
  else
    seen[k] = true
    log[n] = {'DEL', k}
  end
end
--@ end
--@ helper scores ZADD ZINCRBY ZREM ZREMRANGEBYSCORE ZREMRANGEBYRANK
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
  local add, rem
  for i = 1, #ms do
    if old[i] then
      if add then
        add[#add + 1] = old[i]
        add[#add + 1] = ms[i]
      else
        add = {'ZADD', k, old[i], ms[i]}
      end
    elseif rem then
      rem[#rem + 1] = ms[i]
    else
      rem = {'ZREM', k, ms[i]}
    end
  end
  if add then
    put(add)
  end
  if rem then
    put(rem)
  end
end
--@ end
--@ h_zadd ZADD
local function h_zadd(cmd, k, ...)
  local a, i = {...}, 1
  while type(a[i]) == 'string' do
    local f = string.lower(a[i])
    if f ~= 'nx' and f ~= 'xx' and f ~= 'gt' and f ~= 'lt' and f ~= 'ch' and f ~= 'incr' then
      break
    end
    i = i + 1
  end
  local ms = {}
  for j = i + 1, #a, 2 do
    ms[#ms + 1] = a[j]
  end
  scores(k, ms)
end
--@ end
--@ h_zincrby ZINCRBY
local function h_zincrby(cmd, k, by, m)
  scores(k, {m})
end
--@ end
--@ h_zrem ZREM ZREMRANGEBYSCORE ZREMRANGEBYRANK
local function h_zrem(cmd, k, ...)
  keepttl(k)
  if seen[k] then
    return
  end
  local c = string.lower(cmd)
  if c == 'zrem' then
    return scores(k, {...})
  end
  local a, b, r = ...
  if c == 'zremrangebyscore' then
    r = redis.pcall('ZRANGEBYSCORE', k, a, b, 'WITHSCORES')
  else
    r = redis.pcall('ZRANGE', k, a, b, 'WITHSCORES')
  end
  if r.err or #r == 0 then
    return
  end
  local add = {'ZADD', k}
  for i = 1, #r, 2 do
    add[i + 2] = r[i + 1]
    add[i + 3] = r[i]
  end
  put(add)
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
  local undo
  for i = 1, #ms do
    if (old[i] == 1) ~= add then
      if undo then
        undo[#undo + 1] = ms[i]
      else
        undo = {add and 'SREM' or 'SADD', k, ms[i]}
      end
    end
  end
  if undo then
    put(undo)
  end
end
--@ end
--@ h_push LPUSH RPUSH LPUSHX RPUSHX
-- A push is undone by popping as many from the same end: the reply of the
-- pop is not needed, so nothing is read before.
local function h_push(cmd, k, ...)
  local c = string.lower(cmd)
  n = n + 1
  log[n] = {(c == 'lpush' or c == 'lpushx') and 'LPOP' or 'RPOP', k, select('#', ...)}
end
--@ end
--@ helper logged LPOP RPOP RPOPLPUSH LMOVE
-- logged logs e as an undo whose content the write's reply gives, and
-- returns the fix that gets the reply: fill(e, r) fills e, or returns
-- false when the write changed nothing (the entry is dropped). e goes in
-- the log before the write: guarded only sees the reply of a write that
-- has an undo.
local function logged(e, fill)
  n = n + 1
  log[n] = e
  return function(r)
    if r and fill(e, r) ~= false then
      return
    end
    log[n], n = nil, n - 1
  end
end
--@ end
--@ h_pop LPOP RPOP
-- A pop is undone by pushing what it returned back to the same end, the
-- element popped first last (undos run newest first: the entry logged
-- first holds the first popped elements, later ones the next thousands);
-- the key's expiry is journaled first, as the pop may empty and delete
-- it.
local function h_pop(cmd, k)
  keepttl(k)
  if seen[k] then
    return
  end
  return logged({string.lower(cmd) == 'lpop' and 'LPUSH' or 'RPUSH', k}, function(e, r)
    if type(r) ~= 'table' then
      e[3] = r
      return
    end
    local m = #r
    if m == 0 then
      return false
    end
    for i = 1, m, 1000 do
      local c = e
      if i > 1 then
        c = {e[1], k}
        n = n + 1
        log[n] = c
      end
      local top = i + 999
      if top > m then
        top = m
      end
      for j = top, i, -1 do
        c[#c + 1] = r[j]
      end
    end
  end)
end
--@ end
--@ h_move RPOPLPUSH LMOVE
-- A move is undone by the move back, from the end it pushed to to the end
-- it popped from: undone newest first, both keys are then as the move
-- left them, or are restored whole after (seen) anyway; unless the
-- destination is restored whole, whose later writes are not journaled:
-- then the element goes back by a push. The source's expiry is
-- journaled first, as the move may empty it.
local function h_move(cmd, src, dst, from, to)
  if seen[src] and seen[dst] then
    return
  end
  if string.lower(cmd) == 'rpoplpush' then
    from, to = 'right', 'left'
  else
    from, to = string.lower(from or ''), string.lower(to or '')
  end
  forget(dst)
  if gone then
    gone[dst] = nil
  end
  if not seen[src] then
    keepttl(src)
  end
  local back = seen[dst]
  return logged({'LMOVE', dst, src, to, from}, function(e, r)
    if back then
      e[1], e[2], e[3], e[4], e[5] = from == 'left' and 'LPUSH' or 'RPUSH', src, r, nil, nil
    end
  end), true
end
wide = wide or {}
wide[h_move] = true
--@ end
--@ h_del DEL UNLINK
-- A deleted string whose value a read of the run returned is undone by
-- SET with its expiry (one PEXPIRETIME, no DUMP); a key an EXISTS found
-- absent needs nothing; any other key is snapshotted.
local function h_del(cmd, ...)
  for i = 1, select('#', ...) do
    local k = select(i, ...)
    if not seen[k] then
      local v = sv and sv[k]
      forget(k)
      if type(v) == 'string' then
        seen[k] = true
        local at = redis.call('PEXPIRETIME', k)
        n = n + 1
        if at > 0 then
          log[n] = {'SET', k, v, 'PXAT', at}
        else
          log[n] = {'SET', k, v}
        end
      elseif not (gone and gone[k]) then
        snap(k)
      end
    end
  end
end
wide = wide or {}
wide[h_del] = true
--@ end
--@ reader r_exists EXISTS
-- An EXISTS that found none of its keys: their first writes are undone by
-- DEL, with no read.
local function r_exists(r, ...)
  if r == 0 then
    gone = gone or {}
    for i = 1, select('#', ...) do
      gone[select(i, ...)] = true
    end
  end
end
--@ end
--@ helper streams XADD XTRIM
-- A stream without consumer groups is journaled once per run by what
-- XINFO STREAM says of it (one read, no DUMP): its entries are rebuilt
-- if the run fails (rebuild). Appended entries need nothing more; a trim
-- first saves the old entries it may remove (trimmed): only the head of
-- the stream, which an XADD cannot put back. xs maps such a stream to
-- its undo entry, e: the XSETID that ends the rebuild, e.saved the
-- trimmed entries oldest first, e.top the newest of them, e.len the
-- length XINFO gave, true only while the write that made e runs.
-- later says whether stream ID a is after b (IDs as Redis writes them).
local function later(a, b)
  local am, as = string.match(a, '^(%d+)-(%d+)$')
  local bm, bs = string.match(b, '^(%d+)-(%d+)$')
  if #am ~= #bm then
    return #am > #bm
  end
  if am ~= bm then
    return am > bm
  end
  if #as ~= #bs then
    return #as > #bs
  end
  return as > bs
end
-- rebuild runs when the run failed and what came after e is undone: the
-- stream holds its old entries not trimmed and those the run appended.
-- Emptied by XTRIM, which keeps the key, its expiry and its
-- max-deleted-entry-id, and moved back to 0-0, the stream gets its old
-- entries again, under their IDs, and its last ID and entries-added.
-- Its listpack nodes are then split as before: Redis fills them in order
-- by its node limits alone.
local function rebuild(e)
  redis.setresp(2)
  local k, saved = e[2], e.saved
  local cur = redis.pcall('XRANGE', k, '-', e[3])
  if cur.err then
    return cur
  end
  local u = redis.pcall('XTRIM', k, 'MAXLEN', 0)
  if type(u) == 'table' and u.err then
    return u
  end
  redis.pcall('XSETID', k, '0-0')
  for i = 1, #saved + #cur do
    local x = saved[i] or cur[i - #saved]
    if i <= #saved or not e.top or later(x[1], e.top) then
      u = redis.pcall('XADD', k, x[1], unpack(x[2]))
      if u.err then
        return u
      end
    end
  end
  return redis.pcall(unpack(e))
end
-- streamed returns k's undo entry, made at k's first write of the run;
-- nil when k cannot have one: absent (its undo is DEL), another type, or
-- with consumer groups (its second result: what XINFO said).
local function streamed(k)
  local e = xs and xs[k]
  if e then
    e.len = nil
    return e
  end
  local info = redis.pcall('XINFO', 'STREAM', k)
  if info.err then
    if info.err == 'ERR no such key' then
      seen[k] = true
      n = n + 1
      log[n] = {'DEL', k}
    end
    return
  end
  local f = {}
  for i = 1, #info, 2 do
    f[info[i]] = info[i + 1]
  end
  if f.groups ~= 0 then
    return nil, f
  end
  e = {'XSETID', k, f['last-generated-id'], 'ENTRIESADDED', f['entries-added'], f = rebuild, saved = {}, len = f.length}
  n = n + 1
  log[n] = e
  xs = xs or {}
  xs[k] = e
  return e
end
-- trimmed saves the old entries of k that a trim by strategy s (maxlen or
-- minid) to threshold t may remove, after add entries are appended: the
-- first of them, all older than t.
local function trimmed(e, k, s, t, add)
  local r
  if s == 'maxlen' then
    local c = tonumber(t)
    if not c then
      return
    end
    c = (e.len or redis.call('XLEN', k)) + add - c
    e.len = nil
    if c <= 0 then
      return
    end
    r = redis.pcall('XRANGE', k, '-', e[3], 'COUNT', c)
  else
    r = redis.pcall('XRANGE', k, '-', '(' .. tostring(t))
  end
  if r.err then
    return
  end
  local saved = e.saved
  for i = 1, #r do
    local id = r[i][1]
    if (not e.top or later(id, e.top)) and not later(id, e[3]) then
      saved[#saved + 1] = r[i]
      e.top = id
    end
  end
end
-- trimOf reads a trim's options from a[i]: its strategy, in lower case,
-- threshold and the index after them; no strategy when a[i] is none.
local function trimOf(a, i)
  local s = type(a[i]) == 'string' and string.lower(a[i])
  if s ~= 'maxlen' and s ~= 'minid' then
    return nil, nil, i
  end
  i = i + 1
  if a[i] == '=' or a[i] == '~' then
    i = i + 1
  end
  local t = a[i]
  i = i + 1
  if type(a[i]) == 'string' and string.lower(a[i]) == 'limit' then
    i = i + 2
  end
  return s, t, i
end
-- xwrite journals a write to stream k that appends add entries, its trim
-- options (if any) from a[i]: k's undo entry, else what XINFO said of it;
-- and the trim's strategy.
local function xwrite(k, a, i, add)
  local s, t = trimOf(a, i)
  local e, f = streamed(k)
  if e and s then
    trimmed(e, k, s, t, add)
  end
  return e, f, s
end
--@ end
--@ helper unpend XADD
-- pend maps a stream to the trim of the last XADD to it, deferred to the
-- end of the run (h_xadd): done then, or before any later command that
-- names the stream, as XTRIM with the XADD's options, after the entries
-- it may remove are saved. Until then nothing in the run saw the stream,
-- so the trim finds it as the XADD left it, as its own trim did; and in a
-- run that fails it never happens.
-- whole says whether t is a length Redis reads as one: digits without a
-- leading zero, or a whole Lua number, short of 2^53.
local function whole(t)
  if type(t) == 'number' then
    return t >= 0 and t < 1e15 and t == math.floor(t)
  end
  return type(t) == 'string' and #t < 16 and (t == '0' or string.match(t, '^[1-9]%d*$') ~= nil)
end
local function unpend(...)
  for i = 1, select('#', ...) do
    local k = select(i, ...)
    local p = pend[k]
    if p then
      pend[k] = nil
      local e = xs and xs[k]
      if resp3 then
        redis.setresp(2)
      end
      if e then
        trimmed(e, k, p[1], p[2], 0)
      end
      redis.call('XTRIM', k, unpack(p, 3))
      if resp3 then
        redis.setresp(3)
      end
    end
  end
  if next(pend) == nil then
    pend = nil
  end
end
--@ end
--@ h_xadd XADD
-- An XADD to a stream with consumer groups is undone by XDEL of the new
-- entry and XSETID back to the stream's old last ID and counters, once
-- anything was ever deleted from the stream (XSETID cannot set its
-- max-deleted-entry-id back to 0-0); else, or when it trims, by a
-- snapshot.
local function h_xadd(cmd, k, ...)
  local a = {...}
  local i = 1
  if type(a[1]) == 'string' and string.lower(a[1]) == 'nomkstream' then
    i = 2
  end
  local s, t, j = trimOf(a, i)
  local e, f = streamed(k)
  if not e then
  elseif s == 'maxlen' and a[i + 1] == '~' and j == i + 3 and whole(t) then
    -- An approximate trim to a length is deferred (unpend): the XADD runs
    -- without it, and nothing is read. Only with options Redis surely
    -- accepts: without them the XADD would not report theirs.
    local p, alt = {s, t}, {cmd, k}
    for x = i, j - 1 do
      p[#p + 1] = a[x]
    end
    for x = 1, #a do
      if x < i or x >= j then
        alt[#alt + 1] = a[x]
      end
    end
    e.len = nil
    return function()
      pend = pend or {}
      pend[k] = p
    end, true, alt
  else
    if s then
      trimmed(e, k, s, t, 1)
    end
    return nil, true
  end
  if not f then
    return
  end
  if s or f['max-deleted-entry-id'] == '0-0' then
    return snap(k)
  end
  n = n + 1
  log[n] = {'XSETID', k, f['last-generated-id'], 'ENTRIESADDED', f['entries-added'], 'MAXDELETEDID', f['max-deleted-entry-id']}
  local x = {'XDEL', k, false}
  n = n + 1
  log[n] = x
  return function(id)
    x[3] = id
  end
end
--@ end
--@ h_xtrim XTRIM
local function h_xtrim(cmd, k, ...)
  local e, f = xwrite(k, {...}, 1, 0)
  if e then
    return nil, true
  end
  if f then
    return snap(k)
  end
end
--@ end
--@ reader r_get GET
local function r_get(r, k)
  if type(r) ~= 'table' then
    if not sv then
      sv = {}
    end
    sv[k] = r
  end
end
--@ end
--@ reader r_score ZSCORE
-- Only RESP2's replies are kept: RESP3 turns a score into a table.
local function r_score(r, k, m)
  if type(r) == 'string' or r == false then
    local z = zv and zv[k]
    if not z then
      z = {}
      zv = zv or {}
      zv[k] = z
    end
    z[m] = r
  end
end
--@ end
--@ reader r_fields HGET HMGET
local function r_fields(r, k, ...)
  if type(r) == 'table' and r.err then
    return
  end
  local h = hv and hv[k]
  if not h then
    h = {}
    hv = hv or {}
    hv[k] = h
  end
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
-- guarded runs a command of the body whose W value is w (nil: not looked
-- up yet): a read as is, a remembered read and a write after journaling
-- how to undo it. raise: as redis.call, else as redis.pcall.
local function guarded(w, raise, cmd, ...)
  local three = resp3
  if three then
    redis.setresp(2)
  end
  -- A spelling the code does not use: found under another spelling or
  -- asked of COMMAND INFO, and remembered.
  if w == nil then
    w = false
    if type(cmd) == 'string' then
      local l, found = string.lower(cmd)
      for s, v in pairs(W) do
        if type(s) == 'string' and string.lower(s) == l then
          found, w = true, v
          R[cmd] = R[s]
          break
        end
      end
      if not found then
        local info = redis.pcall('COMMAND', 'INFO', l)
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
      end
      W[cmd] = w
    end
  end
  if three and (not w or w == 'r') then
    redis.setresp(3)
  end
  if not w then
    if raise then
      return redis.call(cmd, ...)
    end
    return redis.pcall(cmd, ...)
  end
  if w == 'r' then
    local r
    if raise then
      r = redis.call(cmd, ...)
    else
      r = redis.pcall(cmd, ...)
    end
    R[cmd](r, ...)
    return r
  end
  if not log then
    log, seen, timed = {}, {}, {}
  end
  -- alt: the write a handler runs instead (h_xadd: without its trim).
  local mark, fix, alt = n
  if type(w) == 'function' then
    local k = ...
    if k ~= nil and not seen[k] and gone and gone[k] and not (wide and wide[w]) then
      forget(k)
      snap(k)
    elseif k ~= nil and (not seen[k] or wide and wide[w]) then
      -- keep: the handler left what reads returned true of k.
      local keep
      fix, keep, alt = w(cmd, ...)
      if not keep then
        forget(k)
      end
    end
  elseif w == 1 then
    local k = ...
    if k ~= nil and not seen[k] then
      forget(k)
      snap(k)
    end
  else
    local ks = {}
    if w == 'g' then
      ks = redis.pcall('COMMAND', 'GETKEYS', cmd, ...)
      if type(ks) ~= 'table' or ks.err then
        ks = {}
      end
    elseif w == 'x' then
      if three then
        redis.setresp(3)
      end
      error({err = 'ERR scriptgen transactional: ' .. cmd .. ' cannot be rolled back'})
    elseif w == 'c' then
      for i = 3, select('#', ...) do
        local a = select(i, ...)
        if type(a) == 'string' and string.lower(a) == 'db' then
          if three then
            redis.setresp(3)
          end
          error({err = 'ERR scriptgen transactional: COPY ... DB cannot be rolled back'})
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
  if three then
    redis.setresp(3)
  end
  if n == mark and not fix then
    if raise then
      return redis.call(cmd, ...)
    end
    return redis.pcall(cmd, ...)
  end
  local r
  if alt then
    r = redis.pcall(unpack(alt))
  else
    r = redis.pcall(cmd, ...)
  end
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
local function proxied_call(cmd, ...)
  if pend then
    unpend(...)
  end
  local w = W[cmd]
  if w == false or not n then
    return redis.call(cmd, ...)
  end
  return guarded(w, true, cmd, ...)
end
local function proxied_pcall(cmd, ...)
  if pend then
    unpend(...)
  end
  local w = W[cmd]
  if w == false or not n then
    return redis.pcall(cmd, ...)
  end
  return guarded(w, false, cmd, ...)
end
local function proxied_setresp(v)
  redis.setresp(v)
  resp3 = tonumber(v) == 3
end
__PROXY__
local function pass(e)
  return e
end
local function run(body)
  n, resp3 = 0, false
  local ok, r = xpcall(body, pass)
  local l, c, p = log, n, pend
  log, n, seen, timed, sv, hv, zv, resp3, gone, xs, pend = nil, nil, nil, nil, nil, nil, nil, false, nil, nil, nil
  if ok then
    -- The deferred trims (unpend): a trim of a stream cannot fail.
    if p then
      for k, q in pairs(p) do
        redis.call('XTRIM', k, unpack(q, 3))
      end
    end
    return r
  end
  local failed
  for i = c, 1, -1 do
    local e, u = l[i]
    if e.f then
      u = e.f(e)
    else
      u = redis.pcall(unpack(e))
    end
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
-- __RAW__ becomes Redis's own redis, for the writes nothing can fail after.
return proxy, run, __RAW__
