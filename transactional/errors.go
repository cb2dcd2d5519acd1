package transactional

import lua "github.com/scriptgen/scriptgen/internal/third_party/gopher-lua"

// Redis 7.0's error texts, verbatim, as the sandbox and the EVAL/FUNCTION
// commands send them. They are named here, in one place, so the differential
// suite and the engine cannot drift apart silently.
const (
	msgWrongNumber       = "ERR wrong number of arguments for '%s' command"
	msgInvalidInt        = "ERR value is not an integer or out of range"
	msgNegativeKeys      = "ERR Number of keys can't be negative"
	msgTooManyKeys       = "ERR Number of keys can't be greater than number of args"
	msgNoScript          = "NOSCRIPT No matching script. Please use EVAL."
	msgCompile           = "ERR Error compiling script (new function): %s"
	msgScriptFlushOpt    = "ERR SCRIPT FLUSH only support SYNC|ASYNC option"
	msgUnknownSubcommand = "ERR unknown subcommand '%s'. Try %s HELP."
	msgNotBusy           = "NOTBUSY No scripts in execution right now."
	msgUnkillable        = "UNKILLABLE Sorry the script already executed write commands against the dataset. You can either wait the script termination or kill the server in a hard way using the SHUTDOWN NOSAVE command."
	msgBusy              = "BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE."
	msgBusyFunction      = "BUSY Redis is busy running a script. You can only call FUNCTION KILL or SHUTDOWN NOSAVE."
	msgNoAuth            = "NOAUTH Authentication required."
	msgScriptKilled      = "ERR Script killed by user with SCRIPT KILL..."
	// Redis 7.0 words a killed function exactly like a killed script.
	msgFunctionKilled    = msgScriptKilled
	msgTimeLimit         = "ERR Script killed by scriptgen: it ran longer than the time limit (busy-reply-threshold)..."
	msgWriteFromReadOnly = "ERR Write commands are not allowed from read-only scripts."
	msgWriteFlagWithRO   = "ERR Can not execute a script with write flag using *_ro command."
	msgUnknownFlag       = "ERR Unexpected flag in script shebang: %s"
	msgUnknownShebangOpt = "ERR Unknown lua shebang option: %s"
	msgUnknownEngine     = "ERR Unexpected engine in script shebang: %s"
	msgInvalidShebang    = "ERR Invalid script shebang"
	msgPubsubContext     = "ERR Can't execute '%s': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / RESET are allowed in this context"

	// Errors raised inside the Lua sandbox. Redis adds "ERR " when they reach
	// the client; inside the script (pcall) they are seen without it.
	luaErrNoArgs          = "Please specify at least one argument for this redis lib call"
	luaErrArgType         = "Lua redis lib command arguments must be strings or integers"
	luaErrUnknownCommand  = "Unknown Redis command called from script"
	luaErrNotAllowed      = "This Redis command is not allowed from script"
	luaErrWrongArgs       = "wrong number or type of arguments"
	luaErrWrongNumArgs    = "wrong number of arguments"
	luaErrReadonlyTable   = lua.ErrReadonlyTable // the VM raises it too
	luaErrGlobalAccess    = "Script attempted to access nonexistent global variable '%s'"
	luaErrRespVersion     = "RESP version must be 2 or 3."
	luaErrSetReplArgs     = "redis.set_repl() requires two arguments."
	luaErrSetReplFlags    = "Invalid replication flags. Use REPL_AOF, REPL_REPLICA, REPL_ALL or REPL_NONE."
	luaErrLogArgs         = "redis.log() requires two arguments or more."
	luaErrLogLevel        = "First argument must be a number (log level)."
	luaErrLogInvalidLevel = "Invalid debug level."
)
