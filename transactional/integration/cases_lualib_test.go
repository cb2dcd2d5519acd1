package integration

// Redis's PRNG behind math.random (seeded, the same numbers as
// redis-server), and string.dump, whose binary chunks Redis's loadstring
// refuses as text that does not parse.
func init() {
	cases = append(cases, lualibCases...)
}

var lualibCases = []tcase{
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
