package transactional

import (
	"strings"

	lua "github.com/scriptgen/scriptgen/internal/third_party/gopher-lua"
	"github.com/scriptgen/scriptgen/internal/third_party/miniredis"
)

// The texts Redis 7.0 replies with live in one place, miniredis's copy
// (its redis.go, exported for the commands the engine serves itself), so
// that the differential suite, the engine and miniredis cannot drift apart
// silently. Here are the texts only the engine has: those of the Lua
// sandbox, and its own.

const (
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

	// Errors Redis's scriptCall raises before a command runs.
	luaErrWrongArity = "Wrong number of args calling Redis command from script"
	luaErrXreadBlock = "xread command is not allowed with BLOCK option from scripts"

	// redis.register_function's, as FUNCTION LOAD runs a library.
	luaErrRegisterArgs      = "wrong number of arguments to redis.register_function"
	luaErrRegisterSingleArg = "calling redis.register_function with a single argument is only applicable to Lua table (representing named arguments)."
	luaErrRegisterUnknown   = "unknown argument given to redis.register_function"
	luaErrRegisterNoName    = "redis.register_function must get a function name argument"
	luaErrRegisterNoFn      = "redis.register_function must get a callback argument"
	luaErrRegisterNameType  = "function_name argument given to redis.register_function must be a string"
	luaErrRegisterFnType    = "callback argument given to redis.register_function must be a function"
	luaErrRegisterDescType  = "description argument given to redis.register_function must be a string"
	luaErrRegisterFlagsType = "flags argument to redis.register_function must be a table representing function flags"
	luaErrRegisterFlag      = "unknown flag given"
	luaErrRegisterDuplicate = "Function already exists in the library"
	luaErrRegisterKeyType   = "named argument key given to redis.register_function is not a string"
	luaErrRegisterFirstArg  = "first argument to redis.register_function must be a string"
	luaErrRegisterSecondArg = "second argument to redis.register_function must be a function"
)

// FUNCTION's texts that miniredis's copy does not carry, as Redis 7.0.15's
// functions.c words them. A library that collides on FUNCTION RESTORE is
// named without the quotes FUNCTION LOAD puts around it.
const (
	msgInvalidMetadata   = "ERR Invalid library metadata"
	msgMetadataNameTwice = "ERR Invalid metadata value, name argument was given multiple times"
	msgLibraryExists     = "ERR Library %s already exists"
	msgRestorePolicy     = "ERR Wrong restore policy given, value should be either FLUSH, APPEND or REPLACE."
	// msgSubcommandSyntax is addReplySubcommandSyntaxError's, for FUNCTION.
	msgSubcommandSyntax = "ERR unknown subcommand or wrong number of arguments for '%s'. Try FUNCTION HELP."
)

// msgScriptDebugMode is scriptCommand's answer to a SCRIPT DEBUG mode
// other than YES, SYNC and NO.
const msgScriptDebugMode = "ERR Use SCRIPT DEBUG YES/SYNC/NO"

// luaErrRegisterBadName is how Redis 7.0 reports a bad function name: with
// the library-name text, without its code.
var luaErrRegisterBadName = strings.TrimPrefix(miniredis.MsgBadLibraryName, "ERR ")

// The engine's own replies: to a script stopped at the time limit, and to
// a panic in the engine.
const (
	// msgLuaMemory is Redis's reply to a script whose allocation failed
	// (LUA_ERRMEM: a string error, not the error handler's table).
	msgLuaMemory = "Error running script %s, not enough memory"
	msgTimeLimit = "ERR Script killed by scriptgen: it ran longer than the time limit (busy-reply-threshold)..."
	msgInternal  = "ERR scriptgen engine internal error: %v"
)
