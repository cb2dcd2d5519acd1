-- The rollback runtime. Go renders it onto one line (comment lines dropped,
-- lines joined by spaces), so no statement may rely on a line break, no line
-- may start with "(" and comments must stand on lines of their own.
--
-- Sections between "--@ <op> <COMMAND>..." and "--@ end" are kept only when
-- the guarded code names one of their commands: "h_" sections are a
-- write's handler, which journals an inverse, "--@ reader" sections
-- (four-letter names) remember what a read returned, "--@ helper" sections are operations the
-- handlers of their commands share. __W__ becomes the table of the
-- commands the code names, as spelled there (see prelude.go); its values:
--   false   not a write, or no keys
--   'rget'  a read whose reply its reader (four letters) remembers
--   'h_…'   the write's handler
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
-- callgrind on redis-server 7.0.15, in instructions: a closure 390, and
-- 130 more for each upvalue it captures (Lua 5.1 searches the open
-- upvalues linearly for each one), an empty table about 1,000, a call of
-- a Lua function 470 (600 with varargs), of a C function such as type
-- about 600, a VM instruction about 50, against about 3,000 for one
-- redis.call('EXISTS'). So the handlers and helpers are
-- branches of one function, J, not closures of their own; the run's state
-- is one table, S, made at its first write or remembered read; handlers
-- are rendered only for the commands the code names; and a read or a
-- write to a key already snapshotted costs one table lookup and one call
-- more than Redis's own.
--
-- S is nil outside a run and false in a run until it has state: then
-- S[1] … S[S.n] are the undo commands, newest last; S.seen maps a key
-- whose whole state is journaled to true, one whose expiry only is to
-- false; S.sv, S.hv and S.zv: string values, hash fields and sorted set
-- scores as reads returned them, false for absent. S.gone: keys an EXISTS
-- of the run found absent, whose first write is undone by DEL without
-- reading. S.xs and S.pend: streams' undo entries and deferred trims
-- (h_xadd). resp3: the script chose RESP3 (setresp), in which the
-- journal's own reads would come back in other shapes, so it switches to
-- RESP2 around them.
local S, resp3
--@ helper later XADD XTRIM
-- later says whether stream ID a is after b (IDs as Redis writes them): a
-- function of its own, called for each entry a trim may take.
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
--@ end
-- J(op, a, b, ...) runs helper op, H handler op and R reader op, each a
-- branch of its function (one closure each, whatever the script names). A
-- handler is given the write's command, key and other arguments, and
-- returns fix, keep, alt, fa and fb: keep is true when what reads
-- returned of the key stays true, alt the write to run instead, and fix,
-- when the undo needs the write's reply, the helper guarded calls with it
-- once the write succeeded, as J(fix, reply, fa, fb): no closure per
-- write. A reader is given the read's reply and arguments.
local function J(op, a, b, c, d, z)
  local s = S
  if op == 'forget' then
    local k = a
    if s.xs then
      s.xs[k] = nil
    end
    if s.sv then
      s.sv[k] = nil
    end
    if s.hv then
      s.hv[k] = nil
    end
    if s.zv then
      s.zv[k] = nil
    end
    return
  end
  if op == 'snap' then
    local k = a
    s.seen[k] = true
    local at = s.gone and s.gone[k] and -2 or redis.call('PEXPIRETIME', k)
    local n = s.n + 1
    s.n = n
    if at == -2 then
      s[n] = {'DEL', k}
      return
    end
    local d = redis.call('DUMP', k)
    if at > 0 then
      s[n] = {'RESTORE', k, at, d, 'REPLACE', 'ABSTTL'}
    else
      s[n] = {'RESTORE', k, 0, d, 'REPLACE'}
    end
    return
  end
  if op == 'state' then
    if not s then
      s = {nil, nil, nil, nil, n = 0, seen = {}, gone = false, sv = false, hv = false, zv = false, xs = false, pend = false}
      S = s
    end
    return s
  end
  --@ helper put HSET HMSET HSETNX HINCRBY HINCRBYFLOAT HDEL ZADD ZINCRBY ZREM ZREMRANGEBYSCORE ZREMRANGEBYRANK SADD SREM
  -- put appends undo a = {cmd, key, items...}, in pieces of 1,000 items
  -- when it is long: unpack and Redis's argument count have limits that the
  -- write's own reply does not. Pairs stay together.
  if op == 'put' then
    local e = a
    local m = #e
    if m <= 1002 then
      local n = s.n + 1
      s.n, s[n] = n, e
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
      local n = s.n + 1
      s.n, s[n] = n, c
    end
    return
  end
  --@ end
  --@ helper keepttl HDEL EXPIRE PEXPIRE EXPIREAT PEXPIREAT PERSIST ZREM ZREMRANGEBYSCORE ZREMRANGEBYRANK SADD SREM LPOP RPOP RPOPLPUSH LMOVE
  -- keepttl journals a's expiry before a write that may change it or
  -- delete the key. Undone in order, the key exists again when it is
  -- restored.
  if op == 'keepttl' then
    local k, seen = a, s.seen
    if seen[k] ~= nil then
      return
    end
    seen[k] = false
    local at = redis.call('PEXPIRETIME', k)
    local n = s.n + 1
    s.n = n
    if at == -2 then
      seen[k] = true
      s[n] = {'DEL', k}
    elseif at == -1 then
      s[n] = {'PERSIST', k}
    else
      s[n] = {'PEXPIREAT', k, at}
    end
    return
  end
  --@ end
  --@ helper fields HSET HMSET HSETNX HINCRBY HINCRBYFLOAT HDEL
  -- fields journals the hash fields b[1], b[1 + step] … of key a (b nil:
  -- the one field d, with no table made) before a write: from what reads
  -- returned, or with one HMGET of the others. A journaled field is marked
  -- true in S.hv: the first undo of a field restores it, so later writes
  -- to it need none.
  if op == 'fields' then
    local k, fs, step = a, b, c
    if s.sv then
      s.sv[k] = nil
    end
    if s.zv then
      s.zv[k] = nil
    end
    local hv = s.hv
    local h = hv and hv[k]
    if not h then
      h = {}
      if not hv then
        hv = {}
        s.hv = hv
      end
      hv[k] = h
    end
    if not fs then
      local f = d
      local v = h[f]
      if v == nil then
        v = redis.pcall('HMGET', k, f)
        if v.err then
          return
        end
        v = v[1]
      end
      if v ~= true then
        h[f] = true
        local n = s.n + 1
        if v then
          s.n, s[n] = n, {'HSET', k, f, v}
        else
          s.n, s[n] = n, {'HDEL', k, f}
        end
      end
      return
    end
    local miss
    for i = 1, #fs, step do
      if h[fs[i]] == nil then
        if miss then
          miss[#miss + 1] = fs[i]
        else
          miss = {fs[i]}
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
    for i = 1, #fs, step do
      local f = fs[i]
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
      J('put', set)
    end
    if del then
      J('put', del)
    end
    return
  end
  --@ end
  --@ helper scores ZADD ZINCRBY ZREM ZREMRANGEBYSCORE ZREMRANGEBYRANK
  -- scores journals the scores of members b of key a (b nil: the one
  -- member c, with no table made), from what reads returned or with one
  -- ZMSCORE: absent ones are removed again, present ones get their old
  -- score back.
  if op == 'scores' then
    local k, ms, old = a, b
    local cache = s.zv and s.zv[k]
    if not ms then
      -- No member: the write fails on its arity.
      if c == nil then
        return
      end
      local v
      if cache then
        v = cache[c]
      end
      if v == nil then
        v = redis.pcall('ZMSCORE', k, c)
        if v.err then
          return
        end
        v = v[1]
      end
      local n = s.n + 1
      if v then
        s.n, s[n] = n, {'ZADD', k, v, c}
      else
        s.n, s[n] = n, {'ZREM', k, c}
      end
      return
    end
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
      J('put', add)
    end
    if rem then
      J('put', rem)
    end
    return
  end
  --@ end
  --@ helper fpop LPOP RPOP
  -- fpop fills the undo a pop logged as S[b] (h_pop) from its reply a:
  -- the elements pushed back, the one popped first last, in pieces of
  -- 1,000; dropped when the pop took nothing.
  if op == 'fpop' then
    local r, n = a, b
    local e = s[n]
    if r and type(r) ~= 'table' then
      e[3] = r
      return
    end
    local m = r and #r or 0
    if m == 0 then
      s[n], s.n = nil, n - 1
      return
    end
    for i = 1, m, 1000 do
      local c = e
      if i > 1 then
        c = {e[1], e[2]}
        local n = s.n + 1
        s.n, s[n] = n, c
      end
      local top = i + 999
      if top > m then
        top = m
      end
      for j = top, i, -1 do
        c[#c + 1] = r[j]
      end
    end
    return
  end
  --@ end
  --@ helper fmove RPOPLPUSH LMOVE
  -- fmove keeps the move back logged as S[b] (h_move) when the move moved
  -- an element (its reply a), as a push of it when c says the
  -- destination is restored whole.
  if op == 'fmove' then
    local r, n = a, b
    if not r then
      s[n], s.n = nil, n - 1
    elseif c then
      local e = s[n]
      e[1], e[2], e[3], e[4], e[5] = e[5] == 'left' and 'LPUSH' or 'RPUSH', e[3], r, nil, nil
    end
    return
  end
  --@ end
  --@ helper fnx SET
  -- fnx drops the DEL logged as S[b] for a SET NX (h_set) that set nothing.
  if op == 'fnx' then
    local n = b
    if not a then
      s.seen[s[n][2]], s[n], s.n = nil, nil, n - 1
    end
    return
  end
  --@ end
  --@ helper fxadd XADD
  -- fxadd records the deferred trim b of stream c (h_xadd) once its XADD
  -- succeeded, or with b false puts the new entry's ID a in the XDEL c.
  if op == 'fxadd' then
    if b then
      if not s.pend then
        s.pend = {}
      end
      b.prev = s.pend[c]
      s.pend[c] = b
    else
      c[3] = a
    end
    return
  end
  --@ end
  --@ helper streams XADD XTRIM
  -- A stream without consumer groups is journaled once per run by what
  -- XINFO STREAM says of it (one read, no DUMP): its entries are rebuilt
  -- if the run fails (rebuild). Appended entries need nothing more; a trim
  -- first saves the old entries it may remove (trimmed): only the head of
  -- the stream, which an XADD cannot put back. S.xs maps such a stream to
  -- its undo entry, e: the XSETID that ends the rebuild, e.saved the
  -- trimmed entries oldest first, e.top the newest of them, e.len the
  -- length XINFO gave, true only while the write that made e runs.
  -- rebuild runs when the run failed and what came after e is undone: the
  -- stream holds its old entries not trimmed and those the run appended.
  -- Emptied by XTRIM, which keeps the key, its expiry and its
  -- max-deleted-entry-id, and moved back to 0-0, the stream gets its old
  -- entries again, under their IDs, and its last ID and entries-added.
  -- Its listpack nodes are then split as before: Redis fills them in order
  -- by its node limits alone.
  if op == 'rebuild' then
    local e = a
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
  -- streamed returns a's undo entry, made at a's first write of the run;
  -- nil when a cannot have one: absent (its undo is DEL), another type, or
  -- with consumer groups (its second result: what XINFO said).
  if op == 'streamed' then
    local k = a
    local e = s.xs and s.xs[k]
    if e then
      e.len = nil
      return e
    end
    local info = redis.pcall('XINFO', 'STREAM', k)
    if info.err then
      if info.err == 'ERR no such key' then
        s.seen[k] = true
        local n = s.n + 1
        s.n, s[n] = n, {'DEL', k}
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
    e = {'XSETID', k, f['last-generated-id'], 'ENTRIESADDED', f['entries-added'], f = true, saved = {}, len = f.length}
    local n = s.n + 1
    s.n, s[n] = n, e
    if not s.xs then
      s.xs = {}
    end
    s.xs[k] = e
    return e
  end
  -- trimmed saves the old entries of b that a trim by strategy st (maxlen
  -- or minid) to threshold t may remove, after add entries are appended:
  -- the first of them, all older than t. a is b's undo entry.
  if op == 'trimmed' then
    local e, k = a, b
    local st, t, add = c, d, z
    local r
    if st == 'maxlen' then
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
    -- The entries come oldest first: after the first one saved, the others
    -- are newer than e.top too; by MAXLEN they are no newer than e[3],
    -- the XRANGE's end, and by MINID the first one newer ends them.
    local saved, top, newer = e.saved, e.top, false
    for i = 1, #r do
      local id = r[i][1]
      if st ~= 'maxlen' and later(id, e[3]) then
        break
      end
      if newer or not top or later(id, top) then
        newer = true
        saved[#saved + 1] = r[i]
        top = id
      end
    end
    e.top = top
    return
  end
  -- trimOf reads a trim's options from a[b]: its strategy, in lower case,
  -- threshold and the index after them; no strategy when a[b] is none.
  if op == 'trimOf' then
    local x, i = a, b
    local st = type(x[i]) == 'string' and string.lower(x[i])
    if st ~= 'maxlen' and st ~= 'minid' then
      return nil, nil, i
    end
    i = i + 1
    if x[i] == '=' or x[i] == '~' then
      i = i + 1
    end
    local t = x[i]
    i = i + 1
    if type(x[i]) == 'string' and string.lower(x[i]) == 'limit' then
      i = i + 2
    end
    return st, t, i
  end
  --@ end
  --@ helper unpend XADD XTRIM
  -- S.pend maps a stream to the trim of the last XADD to it, deferred to
  -- the end of the run (h_xadd), or of an XTRIM whose reply the code drops
  -- (trim), the one before it in p.prev: done then, or before any later
  -- command that names the stream (in table a), as XTRIM with the XADD's
  -- options, after the entries it may remove are saved. Until then nothing
  -- in the run saw the stream, so the trim finds it as the XADD left it,
  -- as its own trim did; and in a run that fails it never happens.
  -- With b, ks are an XADD's: one that appends to a stream whose
  -- pending trims all cap its length (MAXLEN ~ N, N > 0), with no trim of
  -- its own or one deferred, leaves them pending and returns them: such a
  -- trim finds, after a entries are appended, the same whole nodes to
  -- remove with N + a as before them with N (it never removes the last
  -- node, where they go, and the nodes before it and its length grow
  -- alike), so grow adds 1 to each once the XADD succeeded.
  if op == 'unpend' then
    local pend, ks = s.pend, a
    local kept = b and J('appends', ks)
    for i = 1, ks.n do
      local k = ks[i]
      local p = k ~= nil and k ~= kept and pend[k]
      if p then
        pend[k] = nil
        local e = s.xs and s.xs[k]
        if resp3 then
          redis.setresp(2)
        end
        local q = {}
        while p do
          q[#q + 1], p = p, p.prev
        end
        for j = #q, 1, -1 do
          p = q[j]
          if e then
            J('trimmed', e, k, p[1], p[2], 0)
          end
          redis.call('XTRIM', k, unpack(p, 3))
        end
        if resp3 then
          redis.setresp(3)
        end
      end
    end
    if next(pend) == nil then
      s.pend = false
    end
    return kept and pend[kept]
  end
  if op == 'appends' then
    local ks = a
    local k = ks[1]
    local p = k ~= nil and s.pend[k]
    if not p then
      return
    end
    local i = 2
    if type(ks[2]) == 'string' and string.lower(ks[2]) == 'nomkstream' then
      i = 3
    end
    local st, t, j = J('trimOf', ks, i)
    if st and not (st == 'maxlen' and ks[i + 1] == '~' and j == i + 3 and J('whole', t)) then
      return
    end
    while p do
      if p[1] ~= 'maxlen' or p[4] ~= '~' or tonumber(p[2]) == 0 then
        return
      end
      p = p.prev
    end
    return k
  end
  if op == 'grow' then
    local p = a
    while p do
      p[2] = tonumber(p[2]) + 1
      p[5] = p[2]
      p = p.prev
    end
    return
  end
  -- whole says whether a is a length Redis reads as one: digits without a
  -- leading zero, or a whole Lua number that Lua writes so (%.14g: not
  -- -0, which Redis refuses, nor 1e+14 and up).
  if op == 'whole' then
    local t = a
    if type(t) == 'number' then
      return t >= 0 and t < 1e14 and t == math.floor(t) and (t ~= 0 or 1 / t > 0)
    end
    return type(t) == 'string' and #t < 16 and (t == '0' or string.match(t, '^[1-9]%d*$') ~= nil)
  end
  --@ end
end
local function H(op, a, b, ...)
  local s = S
  --@ h_hset HSET HMSET
  if op == 'h_hset' then
    local f, _, more = ...
    if more == nil then
      J('fields', b, nil, 2, f)
    else
      J('fields', b, {...}, 2)
    end
    return nil, true
  end
  --@ end
  --@ h_hfield HSETNX HINCRBY HINCRBYFLOAT
  if op == 'h_hfield' then
    J('fields', b, nil, 1, (...))
    return nil, true
  end
  --@ end
  --@ h_hdel HDEL
  if op == 'h_hdel' then
    J('keepttl', b)
    if s.seen[b] then
      return
    end
    local f, more = ...
    if more == nil then
      J('fields', b, nil, 1, f)
    else
      J('fields', b, {...}, 1)
    end
    return nil, true
  end
  --@ end
  --@ h_expire EXPIRE PEXPIRE EXPIREAT PEXPIREAT PERSIST
  -- An expiry that is already past deletes the key: that takes a snapshot.
  -- Redis compares with its clock when the write runs, later than TIME
  -- here, so a second of slack keeps a close call on the safe side.
  if op == 'h_expire' then
    local k = b
    local c, at = string.lower(a), tonumber((...))
    if at and c ~= 'persist' then
      if c == 'expire' or c == 'pexpire' then
        if at <= 0 then
          return J('snap', k)
        end
      else
        if c == 'expireat' then
          at = at * 1000
        end
        local now = redis.call('TIME')
        if at <= tonumber(now[1]) * 1000 + tonumber(now[2]) / 1000 + 1000 then
          return J('snap', k)
        end
      end
    end
    J('keepttl', k)
    -- The values stay: what reads returned of k stays true.
    return nil, true
  end
  --@ end
  --@ h_set SET
  -- SET replaces value and expiry: from a read's value and PEXPIRETIME, or
  -- by a snapshot. A SET NX needs no read: its reply tells whether the key
  -- was absent (undone by DEL) or nothing changed.
  if op == 'h_set' then
    local k, seen = b, s.seen
    local nx, get, keep
    for i = 2, select('#', ...) do
      local x = select(i, ...)
      if type(x) == 'string' then
        x = string.lower(x)
        if x == 'nx' then
          nx = true
        elseif x == 'get' then
          get = true
        elseif x == 'keepttl' then
          keep = true
        end
      end
    end
    local n = s.n + 1
    if nx and not get then
      seen[k] = true
      s.n, s[n] = n, {'DEL', k}
      return 'fnx', nil, nil, n
    end
    local old = s.sv
    if old then
      old = old[k]
    else
      old = nil
    end
    if old == nil then
      return J('snap', k)
    end
    if old == false then
      seen[k] = true
      s.n, s[n] = n, {'DEL', k}
      return
    end
    -- KEEPTTL leaves the expiry to later writes to journal.
    if keep then
      s.n, s[n] = n, {'SET', k, old, 'KEEPTTL'}
      return
    end
    seen[k] = true
    local at = redis.call('PEXPIRETIME', k)
    if at > 0 then
      s.n, s[n] = n, {'SET', k, old, 'PXAT', at}
    else
      s.n, s[n] = n, {'SET', k, old}
    end
    return
  end
  --@ end
  --@ h_incr INCR INCRBY DECR DECRBY INCRBYFLOAT
  -- Counters keep their expiry: the old value is enough.
  if op == 'h_incr' then
    local k = b
    local old = s.sv
    if old then
      old = old[k]
    else
      old = nil
    end
    if old == nil then
      old = redis.pcall('GET', k)
      if type(old) == 'table' then
        return
      end
    end
    local n = s.n + 1
    if old then
      s.n, s[n] = n, {'SET', k, old, 'KEEPTTL'}
    else
      s.seen[k] = true
      s.n, s[n] = n, {'DEL', k}
    end
    return
  end
  --@ end
  --@ h_zadd ZADD
  if op == 'h_zadd' then
    local sc, m, more = ...
    -- A score and a member, no option (an option needs a pair after it).
    if more == nil then
      return J('scores', b, nil, m)
    end
    local x, i = {...}, 1
    while type(x[i]) == 'string' do
      local f = string.lower(x[i])
      if f ~= 'nx' and f ~= 'xx' and f ~= 'gt' and f ~= 'lt' and f ~= 'ch' and f ~= 'incr' then
        break
      end
      i = i + 1
    end
    local ms = {}
    for j = i + 1, #x, 2 do
      ms[#ms + 1] = x[j]
    end
    J('scores', b, ms)
    return
  end
  --@ end
  --@ h_zincrby ZINCRBY
  if op == 'h_zincrby' then
    J('scores', b, nil, (select(2, ...)))
    return
  end
  --@ end
  --@ h_zrem ZREM ZREMRANGEBYSCORE ZREMRANGEBYRANK
  if op == 'h_zrem' then
    local k = b
    J('keepttl', k)
    if s.seen[k] then
      return
    end
    local c = string.lower(a)
    if c == 'zrem' then
      local m, more = ...
      if more == nil and m ~= nil then
        return J('scores', k, nil, m)
      end
      return J('scores', k, {...})
    end
    local lo, hi, r = ...
    if c == 'zremrangebyscore' then
      r = redis.pcall('ZRANGEBYSCORE', k, lo, hi, 'WITHSCORES')
    else
      r = redis.pcall('ZRANGE', k, lo, hi, 'WITHSCORES')
    end
    if r.err or #r == 0 then
      return
    end
    local add = {'ZADD', k}
    for i = 1, #r, 2 do
      add[i + 2] = r[i + 1]
      add[i + 3] = r[i]
    end
    J('put', add)
    return
  end
  --@ end
  --@ h_set_members SADD SREM
  if op == 'h_set_members' then
    local k = b
    local ms, add = {...}, string.lower(a) == 'sadd'
    if not add then
      J('keepttl', k)
      if s.seen[k] then
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
      J('put', undo)
    end
    return
  end
  --@ end
  --@ h_push LPUSH RPUSH LPUSHX RPUSHX
  -- A push is undone by popping as many from the same end: the reply of
  -- the pop is not needed, so nothing is read before.
  if op == 'h_push' then
    local c = string.lower(a)
    local n = s.n + 1
    s.n, s[n] = n, {(c == 'lpush' or c == 'lpushx') and 'LPOP' or 'RPOP', b, select('#', ...)}
    return
  end
  --@ end
  --@ h_pop LPOP RPOP
  -- A pop is undone by pushing what it returned back to the same end, the
  -- element popped first last (undos run newest first: the entry logged
  -- first holds the first popped elements, later ones the next
  -- thousands); the key's expiry is journaled first, as the pop may empty
  -- and delete it.
  if op == 'h_pop' then
    local k = b
    J('keepttl', k)
    if s.seen[k] then
      return
    end
    -- Logged before the write (guarded only sees the reply of a write
    -- that has an undo), filled after it (fpop).
    local n = s.n + 1
    s.n, s[n] = n, {string.lower(a) == 'lpop' and 'LPUSH' or 'RPUSH', k}
    return 'fpop', nil, nil, n
  end
  --@ end
  --@ h_move RPOPLPUSH LMOVE
  -- A move is undone by the move back, from the end it pushed to to the
  -- end it popped from: undone newest first, both keys are then as the
  -- move left them, or are restored whole after (seen) anyway; unless the
  -- destination is restored whole, whose later writes are not journaled:
  -- then the element goes back by a push. The source's expiry is journaled
  -- first, as the move may empty it. Called while either key is not
  -- journaled whole (guarded: a wide handler).
  if op == 'h_move' then
    local src, seen = b, s.seen
    local dst, from, to = ...
    if seen[src] and seen[dst] then
      return
    end
    if string.lower(a) == 'rpoplpush' then
      from, to = 'right', 'left'
    else
      from, to = string.lower(from or ''), string.lower(to or '')
    end
    J('forget', dst)
    if s.gone then
      s.gone[dst] = nil
    end
    if not seen[src] then
      J('keepttl', src)
    end
    local n = s.n + 1
    s.n, s[n] = n, {'LMOVE', dst, src, to, from}
    return 'fmove', true, nil, n, seen[dst]
  end
  --@ end
  --@ h_del DEL UNLINK
  -- A deleted string whose value a read of the run returned is undone by
  -- SET with its expiry (one PEXPIRETIME, no DUMP); a key an EXISTS found
  -- absent needs nothing; any other key is snapshotted. Called while any
  -- key is not journaled whole (guarded: a wide handler).
  if op == 'h_del' then
    local seen = s.seen
    for i = 0, select('#', ...) do
      local k = b
      if i > 0 then
        k = select(i, ...)
      end
      if not seen[k] then
        local v = s.sv and s.sv[k]
        J('forget', k)
        if type(v) == 'string' then
          seen[k] = true
          local at = redis.call('PEXPIRETIME', k)
          local n = s.n + 1
          if at > 0 then
            s.n, s[n] = n, {'SET', k, v, 'PXAT', at}
          else
            s.n, s[n] = n, {'SET', k, v}
          end
        elseif not (s.gone and s.gone[k]) then
          J('snap', k)
        end
      end
    end
    return
  end
  --@ end
  --@ h_xadd XADD
  -- An XADD to a stream with consumer groups is undone by XDEL of the new
  -- entry and XSETID back to the stream's old last ID and counters, once
  -- anything was ever deleted from the stream (XSETID cannot set its
  -- max-deleted-entry-id back to 0-0); else, or when it trims, by a
  -- snapshot.
  if op == 'h_xadd' then
    local k, x = b, {...}
    local i = 1
    if type(x[1]) == 'string' and string.lower(x[1]) == 'nomkstream' then
      i = 2
    end
    local st, t, j = J('trimOf', x, i)
    local e, f = J('streamed', k)
    if not e then
    elseif st == 'maxlen' and x[i + 1] == '~' and j == i + 3 and J('whole', t) then
      -- An approximate trim to a length is deferred (unpend): the XADD
      -- runs without it, and nothing is read. Only with options Redis
      -- surely accepts: without them the XADD would not report theirs.
      local p, alt = {st, t}, {a, k}
      for y = i, j - 1 do
        p[#p + 1] = x[y]
      end
      for y = 1, #x do
        if y < i or y >= j then
          alt[#alt + 1] = x[y]
        end
      end
      e.len = nil
      return 'fxadd', true, alt, p, k
    else
      if st then
        J('trimmed', e, k, st, t, 1)
      end
      return nil, true
    end
    if not f then
      return
    end
    if st or f['max-deleted-entry-id'] == '0-0' then
      return J('snap', k)
    end
    local n = s.n + 2
    local d = {'XDEL', k, false}
    s.n, s[n - 1], s[n] = n, {'XSETID', k, f['last-generated-id'], 'ENTRIESADDED', f['entries-added'], 'MAXDELETEDID', f['max-deleted-entry-id']}, d
    return 'fxadd', nil, nil, false, d
  end
  --@ end
  --@ h_xtrim XTRIM
  if op == 'h_xtrim' then
    local k = b
    local st, t = J('trimOf', {...}, 1)
    local e, f = J('streamed', k)
    if e and st then
      J('trimmed', e, k, st, t, 0)
    end
    if e then
      return nil, true
    end
    if f then
      return J('snap', k)
    end
    return
  end
  --@ end
end
local function R(op, a, b, ...)
  local s = S
  --@ reader rexs EXISTS
  -- An EXISTS that found none of its keys: their first writes are undone by
  -- DEL, with no read.
  if op == 'rexs' then
    if a == 0 then
      s = s or J('state')
      local gone = s.gone
      if not gone then
        gone = {}
        s.gone = gone
      end
      gone[b] = true
      for i = 1, select('#', ...) do
        gone[select(i, ...)] = true
      end
    end
    return
  end
  --@ end
  --@ reader rget GET
  if op == 'rget' then
    if type(a) ~= 'table' then
      s = s or J('state')
      if not s.sv then
        s.sv = {}
      end
      s.sv[b] = a
    end
    return
  end
  --@ end
  --@ reader rzsc ZSCORE
  -- Only RESP2's replies are kept: RESP3 turns a score into a table.
  if op == 'rzsc' then
    if type(a) == 'string' or a == false then
      s = s or J('state')
      local zv = s.zv
      local z = zv and zv[b]
      if not z then
        z = {}
        if not zv then
          zv = {}
          s.zv = zv
        end
        zv[b] = z
      end
      z[...] = a
    end
    return
  end
  --@ end
  --@ reader rhmg HGET HMGET
  if op == 'rhmg' then
    if type(a) == 'table' and a.err then
      return
    end
    s = s or J('state')
    local hv = s.hv
    local h = hv and hv[b]
    if not h then
      h = {}
      if not hv then
        hv = {}
        s.hv = hv
      end
      hv[b] = h
    end
    if type(a) ~= 'table' then
      h[...] = a
      return
    end
    for i = 1, #a do
      h[select(i, ...)] = a[i]
    end
    return
  end
  --@ end
end
local W = __W__
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
      for sp, v in pairs(W) do
        if type(sp) == 'string' and string.lower(sp) == l then
          found, w = true, v
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
  if not w then
    if three then
      redis.setresp(3)
    end
    if raise then
      return redis.call(cmd, ...)
    end
    return redis.pcall(cmd, ...)
  end
  -- The kind of w by its length (no call of type): a reader's name has
  -- four letters, a handler's more, 'g', 'c', 'x' and key ranges fewer.
  local m = w ~= 1 and #w
  if m == 4 then
    if three then
      redis.setresp(3)
    end
    local r
    if raise then
      r = redis.call(cmd, ...)
    else
      r = redis.pcall(cmd, ...)
    end
    R(w, r, ...)
    return r
  end
  local s = S
  if not s then
    s = {nil, nil, nil, nil, n = 0, seen = {}, gone = false, sv = false, hv = false, zv = false, xs = false, pend = false}
    S = s
  end
  local seen, mark, fix, alt, fa, fb = s.seen, s.n
  if w == 1 then
    local k = ...
    if k ~= nil and not seen[k] then
      J('forget', k)
      J('snap', k)
    end
  elseif m < 4 then
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
        local x = select(i, ...)
        if type(x) == 'string' and string.lower(x) == 'db' then
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
      J('forget', k)
      if not seen[k] then
        J('snap', k)
      end
    end
  else
    -- A handler; a wide one (several keys) is called while any key is not
    -- journaled whole: it looks at seen itself.
    local k = ...
    local wide = w == 'h_move' or w == 'h_del'
    if k ~= nil and not seen[k] and s.gone and s.gone[k] and not wide then
      J('forget', k)
      J('snap', k)
    elseif k ~= nil and (not seen[k] or wide) then
      local fixed, keep, instead, x, y = H(w, cmd, ...)
      fix, alt, fa, fb = fixed, instead, x, y
      if not keep then
        J('forget', k)
      end
    end
  end
  if three then
    redis.setresp(3)
  end
  if s.n == mark and not fix then
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
    for i = s.n, mark + 1, -1 do
      local k = s[i][2]
      seen[k] = nil
      J('forget', k)
      s[i] = nil
    end
    s.n = mark
    if raise then
      error(r)
    end
  elseif fix then
    J(fix, r, fa, fb)
  end
  return r
end
local function proxied_call(cmd, ...)
  local s = S
  local w = W[cmd]
  if s and s.pend then
    -- Only an XADD may leave a trim pending (appends): asked of no other.
    local grown = J('unpend', {n = select('#', ...), ...}, w == 'h_xadd')
    if grown then
      local r = guarded(w, true, cmd, ...)
      J('grow', grown)
      return r
    end
  end
  if w == false or s == nil then
    return redis.call(cmd, ...)
  end
  return guarded(w, true, cmd, ...)
end
local function proxied_pcall(cmd, ...)
  local s = S
  if s and s.pend then
    J('unpend', {n = select('#', ...), ...})
  end
  local w = W[cmd]
  if w == false or s == nil then
    return redis.pcall(cmd, ...)
  end
  return guarded(w, false, cmd, ...)
end
--@ helper trim XTRIM
-- trim is the call of an XTRIM whose reply the code drops (the bundler
-- names it at those sites: see direct in final.go). An approximate trim to
-- a length of a stream without consumer groups is deferred, as an XADD's
-- is (unpend), after the stream's undo entry is made if the run has none
-- (streamed: its XINFO STREAM): its count is never seen, so nothing in
-- the run can tell, and the entries it may remove need not be read unless
-- the stream is named again or the run fails before its end. Else it is
-- any XTRIM (a stream with groups is then asked XINFO again).
local function proxied_trim(cmd, k, st, a, t, ...)
  local s = S
  if s ~= nil and select('#', ...) == 0 and type(k) == 'string' and a == '~' and type(st) == 'string' and string.lower(st) == 'maxlen' and J('whole', t) then
    -- Its other arguments may name a stream too, as for any command.
    if s and s.pend then
      J('unpend', {n = 3, st, a, t})
    end
    s = J('state')
    -- streamed also forgets the length an earlier write left cached.
    local e = not s.seen[k] and J('streamed', k)
    if e then
      if not s.pend then
        s.pend = {}
      end
      s.pend[k] = {'maxlen', t, st, a, t, prev = s.pend[k]}
      return 0
    end
  end
  return proxied_call(cmd, k, st, a, t, ...)
end
--@ end
local function proxied_setresp(v)
  redis.setresp(v)
  resp3 = tonumber(v) == 3
end
__PROXY__
local function pass(e)
  return e
end
local function run(body)
  S, resp3 = false, false
  local ok, r = xpcall(body, pass)
  local s = S
  S, resp3 = nil, false
  if ok then
    -- The deferred trims (unpend): a trim of a stream cannot fail.
    local p = s and s.pend
    if p then
      for k, q in pairs(p) do
        if q.prev then
          local c = {}
          while q do
            c[#c + 1], q = q, q.prev
          end
          for j = #c, 2, -1 do
            redis.call('XTRIM', k, unpack(c[j], 3))
          end
          q = c[1]
        end
        redis.call('XTRIM', k, unpack(q, 3))
      end
    end
    return r
  end
  local failed
  for i = s and s.n or 0, 1, -1 do
    local e, u = s[i]
    if e.f then
      u = J('rebuild', e)
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
