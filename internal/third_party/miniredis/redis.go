package miniredis

import (
	"fmt"
	"math"
	"math/big"
	"strings"
	"time"

	"github.com/scriptgen/scriptgen/internal/third_party/miniredis/server"
)

const (
	keyTypeString    = "string"
	keyTypeHash      = "hash"
	keyTypeList      = "list"
	keyTypeSet       = "set"
	keyTypeHll       = "hll"
	keyTypeSortedSet = "zset"
	keyTypeStream    = "stream"
)

const (
	msgWrongType            = "WRONGTYPE Operation against a key holding the wrong kind of value"
	msgNotValidHllValue     = "WRONGTYPE Key is not a valid HyperLogLog string value."
	msgInvalidInt           = "ERR value is not an integer or out of range"
	msgIntOverflow          = "ERR increment or decrement would overflow"
	msgInvalidFloat         = "ERR value is not a valid float"
	msgInvalidMinMax        = "ERR min or max is not a float"
	msgInvalidRangeItem     = "ERR min or max not valid string range item"
	msgInvalidTimeout       = "ERR timeout is not a float or out of range"
	msgInvalidRange         = "ERR value is out of range, must be positive"
	msgSyntaxError          = "ERR syntax error"
	msgKeyNotFound          = "ERR no such key"
	msgOutOfRange           = "ERR index out of range"
	msgInvalidCursor        = "ERR invalid cursor"
	msgXXandNX              = "ERR XX and NX options at the same time are not compatible"
	msgTimeoutNegative      = "ERR timeout is negative"
	msgTimeoutIsOutOfRange  = "ERR timeout is out of range"
	msgInvalidSETEXTime     = "ERR invalid expire time in setex"
	msgInvalidPSETEXTime    = "ERR invalid expire time in psetex"
	msgInvalidKeysNumber    = "ERR Number of keys can't be greater than number of args"
	msgNegativeKeysNumber   = "ERR Number of keys can't be negative"
	msgFScriptUsage         = "ERR unknown subcommand or wrong number of arguments for '%s'. Try SCRIPT HELP."
	msgFScriptUsageSimple   = "ERR unknown subcommand '%s'. Try SCRIPT HELP."
	msgFPubsubUsage         = "ERR unknown subcommand or wrong number of arguments for '%s'. Try PUBSUB HELP."
	msgFPubsubUsageSimple   = "ERR unknown subcommand '%s'. Try PUBSUB HELP."
	msgConfigUnknown        = "ERR Unknown option or number of arguments for CONFIG SET - '%s'"
	msgConfigSetFailed      = "ERR CONFIG SET failed (possibly related to argument '%s') - %s"
	msgConfigNoFile         = "ERR The server is running without a config file"
	msgFObjectUsage         = "ERR unknown subcommand '%s'. Try OBJECT HELP."
	msgScriptFlush          = "ERR SCRIPT FLUSH only support SYNC|ASYNC option"
	msgSingleElementPair    = "ERR INCR option supports a single increment-element pair"
	msgGTLTandNX            = "ERR GT, LT, and/or NX options at the same time are not compatible"
	msgInvalidStreamID      = "ERR Invalid stream ID specified as stream command argument"
	msgStreamIDTooSmall     = "ERR The ID specified in XADD is equal or smaller than the target stream top item"
	msgStreamIDZero         = "ERR The ID specified in XADD must be greater than 0-0"
	msgNoScriptFound        = "NOSCRIPT No matching script. Please use EVAL."
	msgUnsupportedUnit      = "ERR unsupported unit provided. please use M, KM, FT, MI"
	msgXreadUnbalanced      = "ERR Unbalanced 'xread' list of streams: for each stream key an ID or '$' must be specified."
	msgXgroupKeyNotFound    = "ERR The XGROUP subcommand requires the key to exist. Note that for CREATE you may want to use the MKSTREAM option to create an empty stream automatically."
	msgXtrimInvalidMaxLen   = msgInvalidInt // scriptgen: one text
	msgXtrimInvalidLimit    = "ERR syntax error, LIMIT cannot be used without the special ~ option"
	msgXtrimLimitNoStrategy = "ERR syntax error, LIMIT cannot be used without specifying a trimming strategy"  // scriptgen
	msgXtrimNoStrategy      = "ERR syntax error, XTRIM must be called with a trimming strategy"                // scriptgen
	msgXtrimMaxlenMinid     = "ERR syntax error, MAXLEN and MINID options at the same time are not compatible" // scriptgen
	msgLimitNegative        = "ERR The LIMIT argument must be >= 0."                                           // scriptgen
	msgDBIndexOutOfRange    = "ERR DB index is out of range"
	msgWithscoresBylex      = "ERR syntax error, WITHSCORES not supported in combination with BYLEX" // scriptgen
	msgLimitCombination     = "ERR syntax error, LIMIT is only supported in combination with either BYSCORE or BYLEX"
	msgRankIsZero           = "ERR RANK can't be zero: use 1 to start from the first match, 2 from the second ... or use negative to start from the end of the list"
	msgCountIsNegative      = "ERR COUNT can't be negative"
	msgMaxLengthIsNegative  = "ERR MAXLEN can't be negative"
	msgLimitIsNegative      = "ERR LIMIT can't be negative"
	msgMemorySubcommand     = "ERR unknown subcommand '%s'. Try MEMORY HELP."
	msgNumFieldsParameter   = "ERR The `numfields` parameter must match the number of arguments"
	msgNumFieldsInvalid     = "ERR Parameter `numFields` should be greater than 0"
	msgNumFieldsPositive    = "ERR Number of fields must be a positive integer"
	msgMandatoryArgument    = "ERR Mandatory argument %s is missing or not at the right position"
	msgGTandLT              = "ERR GT and LT options at the same time are not compatible"
	msgNXandXXGTLT          = "ERR NX and XX, GT or LT options at the same time are not compatible"
)

// msgInt32Range is getIntFromObjectOrReply's text for an integer past an
// int (scriptgen: MOVE and COPY's database index, dbIndex).
const msgInt32Range = "ERR value is out of range, value must between -2147483648 and 2147483647"

// scriptgen: Redis 7.0's stream texts the copy added (cmd_stream_meta.go,
// stream.go), in a block of their own.
const (
	msgStreamExhausted        = "ERR The stream has exhausted the last possible ID, unable to add more items"
	msgStreamElementsTooLarge = "ERR Elements are too large to be stored"
	msgXsetidSmaller          = "ERR The ID specified in XSETID is smaller than the target stream top item"
	msgXsetidMaxDeleted       = "ERR The ID specified in XSETID is smaller than the provided max_deleted_entry_id"
	msgXsetidEntriesAdded     = "ERR The entries_added specified in XSETID is smaller than the target stream length"
	msgXsetidNegative         = "ERR entries_added must be positive"
	msgInvalidStartID         = "ERR invalid start ID for the interval"
	msgInvalidEndID           = "ERR invalid end ID for the interval"
	msgXautoclaimCount        = "ERR COUNT must be > 0"
	msgEntriesReadNegative    = "ERR value for ENTRIESREAD must be positive or -1"
	msgStreamKeyGone          = "UNBLOCKED the stream key no longer exists"
	msgBlockedGroupGone       = "NOGROUP the consumer group this client was blocked on no longer exists"
)

// scriptgen: Redis 7.0's texts that upstream does not have, verbatim where
// Redis has them, and the engine's own where it refuses what Redis serves.
const (
	msgBusyKey     = "BUSYKEY Target key name already exists."
	msgBadTTL      = "ERR Invalid TTL value, must be >= 0"
	msgBadIdleTime = "ERR Invalid IDLETIME value, must be >= 0"
	msgBadFreq     = "ERR Invalid FREQ value, must be >= 0 and <= 255"
	msgSameObject  = "ERR source and destination objects are the same"
	// BITFIELD's (bitfieldGeneric).
	msgBitfieldRO       = "ERR BITFIELD_RO only supports the GET subcommand"
	msgBitfieldOverflow = "ERR Invalid OVERFLOW type specified"
	msgBitfieldType     = "ERR Invalid bitfield type. Use something like i16 u8. Note that u64 is not supported but i64 is."
	// LCS's (lcsCommand).
	msgLcsNotStrings = "ERR The specified keys must contain string values"
	msgLcsIdxAndLen  = "ERR If you want both the length and indexes, please just use IDX."
	msgLcsTooBig     = "ERR Insufficient memory, transient memory for LCS exceeds proto-max-bulk-len"
	// COMMAND GETKEYS's and GETKEYSANDFLAGS's (getKeysSubcommandImpl).
	msgGetKeysBadCommand = "ERR Invalid command specified"
	msgGetKeysNoKeys     = "ERR The command has no key arguments"
	msgGetKeysArity      = "ERR Invalid number of arguments specified for command"
	msgGetKeysInvalid    = "ERR Invalid arguments specified for command"
	msgDumpHLL           = "ERR scriptgen engine: DUMP of a HyperLogLog is not supported (miniredis keeps no Redis encoding of it)"
	msgRestoreHLL        = "ERR scriptgen engine: RESTORE of this payload is not supported"
)

// scriptgen: Redis 7.0's texts for the arguments and values strict.go
// checks, where miniredis answers otherwise.
const (
	msgHashNotInteger  = "ERR hash value is not an integer"
	msgBitOffset       = "ERR bit offset is not an integer or out of range"
	msgBitArgument     = "ERR The bit argument must be 1 or 0."
	msgMaxlenNegative  = "ERR The MAXLEN argument must be >= 0."
	msgBitValue        = "ERR bit is not an integer or out of range"
	msgWeightNotFloat  = "ERR weight value is not a float"
	msgHashNotFloat    = "ERR hash value is not a float"
	msgIncrNaNInf      = "ERR increment would produce NaN or Infinity"
	msgHashIncrNaNInf  = "ERR value is NaN or Infinity"
	msgDecrOverflow    = "ERR decrement would overflow"
	msgInvalidExpireIn = "ERR invalid expire time in '%s' command"
	msgStringTooBig    = "ERR string exceeds maximum allowed size (proto-max-bulk-len)"
	msgScoreNaN        = "ERR resulting score is not a number (NaN)"
)

// maxStringLen is Redis 7.0's limit on a string (proto-max-bulk-len).
const maxStringLen = 512 << 20

// scriptgen: Redis 7.0's texts for what the engine serves itself (EVAL,
// EVALSHA, SCRIPT, FUNCTION, FCALL and their _RO forms, AUTH for them),
// exported for it; the ones miniredis sends too are its own constants.
const (
	MsgWrongNumber       = "ERR wrong number of arguments for '%s' command"
	MsgInvalidInt        = msgInvalidInt
	MsgNegativeKeys      = msgNegativeKeysNumber
	MsgTooManyKeys       = msgInvalidKeysNumber
	MsgNoScript          = msgNoScriptFound
	MsgCompile           = "ERR Error compiling script (new function): %s"
	MsgScriptFlushOpt    = msgScriptFlush
	MsgUnknownSubcommand = "ERR unknown subcommand '%s'. Try %s HELP."
	MsgNotBusy           = "NOTBUSY No scripts in execution right now."
	MsgUnkillable        = "UNKILLABLE Sorry the script already executed write commands against the dataset. You can either wait the script termination or kill the server in a hard way using the SHUTDOWN NOSAVE command."
	MsgBusy              = "BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE."
	MsgBusyFunction      = "BUSY Redis is busy running a script. You can only call FUNCTION KILL or SHUTDOWN NOSAVE."
	MsgNoAuth            = "NOAUTH Authentication required."
	MsgWrongPass         = "WRONGPASS invalid username-password pair or user is disabled."
	MsgNoAuthHello       = "NOAUTH HELLO must be called with the client already authenticated, otherwise the HELLO AUTH <user> <pass> option can be used to authenticate the client and select the RESP protocol version at the same time"
	MsgScriptKilled      = "ERR Script killed by user with SCRIPT KILL..."
	MsgFunctionKilled    = MsgScriptKilled // Redis 7.0 words them alike
	MsgWriteFromReadOnly = "ERR Write commands are not allowed from read-only scripts."
	MsgWriteFlagWithRO   = "ERR Can not execute a script with write flag using *_ro command."
	MsgUnknownFlag       = "ERR Unexpected flag in script shebang: %s"
	MsgUnknownShebangOpt = "ERR Unknown lua shebang option: %s"
	MsgUnknownEngine     = "ERR Unexpected engine in script shebang: %s"
	MsgInvalidShebang    = "ERR Invalid script shebang"
	MsgMissingMetadata   = "ERR Missing library metadata"
	MsgNoLibraryName     = "ERR Library name was not given"
	MsgBadLibraryName    = "ERR Library names can only contain letters, numbers, or underscores(_) and must be at least one character long"
	MsgBadMetadata       = "ERR Invalid metadata value given: %s"
	MsgEngineNotFound    = "ERR Engine '%s' not found"
	MsgLibraryExists     = "ERR Library '%s' already exists"
	MsgNoFunctions       = "ERR No functions registered"
	MsgFunctionExists    = "ERR Function %s already exists"
	MsgCompileFunction   = "ERR Error compiling function: %s"
	MsgRegisterFunctions = "ERR Error registering functions: %s"
	MsgFunctionNotFound  = "ERR Function not found"
	MsgBadNumKeys        = "ERR Bad number of keys provided"
	MsgLibraryNotFound   = "ERR Library not found"
	MsgFunctionFlushOpt  = "ERR FUNCTION FLUSH only supports SYNC|ASYNC option"
	MsgLoadTimeout       = "FUNCTION LOAD timeout"
	MsgUnknownOption     = "ERR Unknown option given: %s"
	MsgNoLibraryNameArg  = "ERR library name argument was not given"
	MsgUnknownArgument   = "ERR Unknown argument %s"
	MsgLuaStackLimit     = "ERR reached lua stack limit"
	MsgUnknownError      = "ERR unknown error"
)

// MsgPubsubContext is Redis 7.0's reply to a command a subscribed
// connection may not send (%s: the command, lower case). scriptgen:
// upstream's checkPubsub still words it as Redis 6 did.
const MsgPubsubContext = "ERR Can't execute '%s': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / RESET are allowed in this context"

func errWrongNumber(cmd string) string {
	return fmt.Sprintf(MsgWrongNumber, strings.ToLower(cmd)) // scriptgen: one text
}

func errLuaParseError(err error) string {
	return fmt.Sprintf(MsgCompile, err.Error()) // scriptgen: one text
}

func errReadgroup(key, group string) error {
	return fmt.Errorf("NOGROUP No such key '%s' or consumer group '%s'", key, group)
}

func errXreadgroup(key, group string) error {
	return fmt.Errorf("NOGROUP No such key '%s' or consumer group '%s' in XREADGROUP with GROUP option", key, group)
}

func msgNotFromScripts(sha string) string {
	return fmt.Sprintf("This Redis command is not allowed from script script: %s, &c", sha)
}

// withTx wraps the non-argument-checking part of command handling code in
// transaction logic.
func withTx(
	m *Miniredis,
	c *server.Peer,
	cb txCmd,
) {
	ctx := getCtx(c)
	// scriptgen: every command runs through propagate, which streams what
	// it changed to the replicas (repl.go).
	name, args := c.Command()

	// scriptgen: with the active expiry cycle off, the expired keys the
	// command names go when it runs (expire.go): here, or at EXEC.
	if ctx.nested {
		// this is a call via Lua's .call(). It's already locked.
		m.expireKeysOf(ctx, name, args)
		m.run(c, ctx, name, args, cb)
		m.signal.Broadcast()
		return
	}

	if inTx(ctx) {
		// scriptgen: INFO commandstats counts it when EXEC runs it.
		counted := c.CountLater()
		args = append([]string(nil), args...)
		addTxCmd(ctx, func(c *server.Peer, ctx *connCtx) {
			counted(func() {
				m.expireKeysOf(ctx, name, args)
				m.run(c, ctx, name, args, cb)
			})
		})
		c.WriteInline("QUEUED")
		return
	}
	if !m.LockFor(c, m.busyCheck) {
		return
	}
	// scriptgen: deferred, so that a handler's panic, which the server
	// turns into the end of one connection, does not leave the lock held
	// and every other client waiting for ever (LPOS with a COUNT near
	// 2^63 did, found by the grammar differential).
	defer m.Unlock()
	m.expireKeysOf(ctx, name, args)
	m.run(c, ctx, name, args, cb)
	// done, wake up anyone who waits on anything.
	m.signal.Broadcast()
}

// blockCmd is executed returns whether it is done
type blockCmd func(*server.Peer, *connCtx) bool

// blocking keeps trying a command until the callback returns true. Calls
// onTimeout after the timeout (or when we call this in a transaction).
func blocking(
	m *Miniredis,
	c *server.Peer,
	timeout time.Duration,
	cb blockCmd,
	onTimeout func(*server.Peer),
) {
	var (
		ctx = getCtx(c)
	)
	// scriptgen: each try that serves the client is a unit of
	// propagation of its own, as a blocked client served is in Redis
	// (blocked.c), and looks its keys up again (see withTx); the
	// arguments are kept for the tries that run later.
	name, args := c.Command()
	args = append([]string(nil), args...)
	inner := cb
	cb = func(c *server.Peer, ctx *connCtx) bool {
		m.expireKeysOf(ctx, name, args)
		done := false
		m.propagate(ctx.selectedDB, name, args, func() { done = inner(c, ctx) })
		return done
	}
	if inTx(ctx) {
		counted := c.CountLater() // scriptgen: see withTx
		addTxCmd(ctx, func(c *server.Peer, ctx *connCtx) {
			counted(func() {
				if !cb(c, ctx) {
					onTimeout(c)
				}
			})
		})
		c.WriteInline("QUEUED")
		return
	}

	if ctx.nested {
		// A script's call, under the script's hold of the lock: Redis
		// lets no script block (its commands are "noscript").
		if !cb(c, ctx) {
			onTimeout(c)
		}
		return
	}
	m.Lock()
	if c.Closed() || m.Ctx.Err() != nil || cb(c, ctx) {
		m.Unlock()
		return
	}
	// scriptgen: queued, so that clients are served in the order they
	// blocked, as Redis does, by whoever holds the lock when what they
	// wait for comes (blockq.go); this goroutine waits without the lock
	// until then, its time is up or the server closes.
	w := m.block(c, ctx, cb)
	c.Blocked()
	m.Unlock()
	var expired <-chan time.Time
	if timeout != 0 {
		t := time.NewTimer(timeout)
		defer t.Stop()
		expired = t.C
	}
	select {
	case <-w.wake:
		return // answered, or gone
	case <-expired:
	case <-m.Ctx.Done():
	}
	m.Lock()
	defer m.Unlock()
	if w.done {
		return // served in the meantime
	}
	m.unblock(w)
	w.done = true
	if !c.Closed() && m.Ctx.Err() == nil {
		onTimeout(c)
	}
}

// formatBig formats a float the way redis does
func formatBig(v *big.Float) string {
	// Format with %f and strip trailing 0s.
	if v.IsInf() {
		return "inf"
	}
	// if math.IsInf(v, -1) {
	// return "-inf"
	// }
	// scriptgen: ld2string writes a result that rounds to zero from below
	// as "0", not "-0" (Redis's suite, type/incr: "No negative zero").
	if s := stripZeros(fmt.Sprintf("%.17f", v)); s != "-0" {
		return s
	}
	return "0"
}

func stripZeros(sv string) string {
	for strings.Contains(sv, ".") {
		if sv[len(sv)-1] != '0' {
			break
		}
		// Remove trailing 0s.
		sv = sv[:len(sv)-1]
		// Ends with a '.'.
		if sv[len(sv)-1] == '.' {
			sv = sv[:len(sv)-1]
			break
		}
	}
	return sv
}

// redisRange gives Go offsets for something l long with start/end in
// Redis semantics. Both start and end can be negative.
// Used for string range and list range things.
// The results can be used as: v[start:end]
// Note that GETRANGE (on a string key) never returns an empty string when end
// is a large negative number.
func redisRange(l, start, end int, stringSymantics bool) (int, int) {
	if start < 0 {
		start = l + start
		if start < 0 {
			start = 0
		}
	}
	if start > l {
		start = l
	}

	if end < 0 {
		end = l + end
		if end < 0 {
			end = -1
			if stringSymantics {
				end = 0
			}
		}
	}
	if end < math.MaxInt32 {
		end++ // end argument is inclusive in Redis.
	}
	if end > l {
		end = l
	}

	if end < start {
		return 0, 0
	}
	return start, end
}
