package integration

// Redis's PRNG behind math.random (seeded, the same numbers as
// redis-server); string.dump, whose binary chunks Redis's loadstring
// refuses as text that does not parse; the whole tree of globals a script
// and a function see; cjson.new; redis.setresp's lua_tonumber.
func init() {
	cases = append(cases, lualibCases...)
}

// globalTree lists every global and every field of a global table, with
// its type, sorted.
const globalTree = `local out = {}
for k, v in pairs(_G) do
  table.insert(out, tostring(k) .. ' ' .. type(v))
  if type(v) == 'table' and k ~= '_G' then
    for k2, v2 in pairs(v) do table.insert(out, tostring(k) .. '.' .. tostring(k2) .. ' ' .. type(v2)) end
  end
end
table.sort(out)
return out`

var lualibCases = []tcase{
	{name: "lualib/global-tree-eval", cmds: [][]string{ev(globalTree, 0)}},
	{name: "lualib/global-tree-function", setup: [][]string{fload("local function tree()\n" + globalTree + "\nend\nredis.register_function('tree', function() return tree() end)")},
		cmds: [][]string{{"FCALL", "tree", "0"}}},
	{name: "lualib/cjson-new", cmds: [][]string{
		ev("return cjson.encode(cjson.new().decode('[1,2]'))", 0),
		ev("local c = cjson.new(); c.encode_number_precision(3); return {c.encode(math.pi), cjson.encode(math.pi)}", 0),
		ev("return {cjson.new().null == cjson.null, type(cjson.new().new), cjson.new()._NAME}", 0),
		ev("local c = cjson.new(); c.x = 1; return c.x", 0),
	}},
	{name: "lualib/setresp-tonumber", cmds: [][]string{
		ev("redis.setresp('3'); return redis.call('HGETALL', 'nosuch')", 0),
		ev("return redis.setresp(3.9)", 0),
		ev("return redis.setresp('x')", 0),
		ev("return redis.setresp(' 2 ')", 0),
	}},
	{name: "suite/prng-seeded", cmds: [][]string{
		ev("math.randomseed(ARGV[1]); return tostring(math.random())", 0, "10"),
		ev("math.randomseed(ARGV[1]); return tostring(math.random())", 0, "10"),
		ev("math.randomseed(ARGV[1]); return tostring(math.random())", 0, "20"),
		ev("math.randomseed(ARGV[1]); local t = {} for i = 1, 50 do t[i] = math.random(1000) end return t", 0, "-7"),
		ev("math.randomseed(ARGV[1]); local t = {} for i = 1, 20 do t[i] = math.random(-3, 3) end return t", 0, "2147483647"),
		ev("math.randomseed(1); math.random(); return tostring(math.random())", 0),
		ev("math.randomseed(1.9); return tostring(math.random())", 0),
	}},
	{name: "suite/string-dump", cmds: [][]string{
		ev("return loadstring(string.dump(function() return 1 end))()", 0),
		ev("local f, e = loadstring(string.dump(function() return 1 end)); return {tostring(f), e}", 0),
		ev("return string.sub(string.dump(function() return 1 end), 1, 12)", 0),
		ev("return {pcall(string.dump, tostring)}", 0),
		ev("return type(string.dump)", 0),
	}},
}
