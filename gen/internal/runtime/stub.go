package runtime

// What library.go declares in a generated package. These values describe a
// one-script library so that the tests here can run the runtime against a
// real server.
const (
	libName         = "rt"
	versionFunction = "rt_version"
	libVersion      = "0000000000000000000000000000000000000001"
	libSource       = "#!lua name=rt\n" +
		"local function rt_echo(KEYS, ARGV) return {KEYS[1], ARGV[1]} end\n" +
		"redis.register_function{function_name='rt_echo', callback=rt_echo}\n" +
		"redis.register_function{function_name='rt_version', callback=function() return '" + libVersion + "' end, flags={'no-writes'}}\n"
)

var echoScript = &script{
	name: "echo",
	src:  "return {KEYS[1], ARGV[1]}\n",
	sha:  "9216e5ee9cc0a828c4eb1ca4c725e3091dd17740",
	fn:   "rt_echo",
}

var scripts = []*script{echoScript}
