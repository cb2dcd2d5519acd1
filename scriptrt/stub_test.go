package scriptrt

// echoScript and rt describe a one-script library, as a generated package
// declares one, for the tests here.
var echoScript = &Script{
	Name: "echo",
	SHA:  "9216e5ee9cc0a828c4eb1ca4c725e3091dd17740",
	Fn:   "rt_echo",
	Src:  "return {KEYS[1], ARGV[1]}\n",
}

var rt = &Library{
	Name:            "rt",
	VersionFunction: "rt_version",
	Version:         "0000000000000000000000000000000000000001",
	Source: "#!lua name=rt\n" +
		"local function rt_echo(KEYS, ARGV) return {KEYS[1], ARGV[1]} end\n" +
		"redis.register_function{function_name='rt_echo', callback=rt_echo}\n" +
		"redis.register_function{function_name='rt_version', callback=function() return '0000000000000000000000000000000000000001' end, flags={'no-writes'}}\n",
	Scripts: []*Script{echoScript},
}
