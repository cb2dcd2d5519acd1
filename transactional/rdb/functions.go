package rdb

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/scriptgen/scriptgen/crc"
)

// Function library opcodes (rdb.h): FUNCTION2 holds the library's code
// alone; FUNCTION is the layout of Redis 7.0-rc1 and rc2 (name, engine,
// optional description, body), which 7.0.15 still restores.
const (
	opFunction2 = 245
	opFunction  = 246
)

// FUNCTION RESTORE's errors, verbatim as Redis 7.0's functionRestoreCommand
// and rdbFunctionLoad word them (the server prefixes them with "ERR ").
var (
	ErrFunctionType    = errors.New("given type is not a function")
	ErrFunctionRead    = errors.New("can not read data type")
	errFunctionPayload = errors.New("Failed loading library payload")
)

// DumpFunctions is FUNCTION DUMP: each library's code after the FUNCTION2
// opcode, then the version and checksum as in a key's payload. Redis
// writes the libraries in its dictionary's order; the caller chooses ours.
func DumpFunctions(codes []string) []byte {
	var w writer
	for _, code := range codes {
		w.byte(opFunction2)
		w.str(code)
	}
	w.b = binary.LittleEndian.AppendUint16(w.b, Version)
	return binary.LittleEndian.AppendUint64(w.b, crc.CRC64(0, w.b))
}

// RestoreFunctions decodes a FUNCTION DUMP payload into the libraries'
// codes, in payload order; an old-layout library is rewritten into the
// "#!<engine> name=<name>" form as rdbFunctionLoad does. It fails with
// ErrPayload before anything else, as Redis does.
func RestoreFunctions(payload []byte) ([]string, error) {
	if err := Verify(payload); err != nil {
		return nil, err
	}
	r := &reader{b: payload[:len(payload)-10]}
	var codes []string
	for r.p < len(r.b) {
		t, err := r.byte()
		if err != nil {
			return nil, ErrFunctionRead
		}
		var code string
		switch t {
		case opFunction2:
			if code, err = r.str(); err != nil {
				return nil, errFunctionPayload
			}
		case opFunction:
			if code, err = r.oldFunction(); err != nil {
				return nil, err
			}
		default:
			return nil, ErrFunctionType
		}
		codes = append(codes, code)
	}
	return codes, nil
}

// oldFunction reads the 7.0-rc layout, failing with rdbFunctionLoad's
// texts.
func (r *reader) oldFunction() (string, error) {
	name, err := r.str()
	if err != nil {
		return "", errors.New("Failed loading library name")
	}
	engine, err := r.str()
	if err != nil {
		return "", errors.New("Failed loading engine name")
	}
	hasDesc, err := r.len()
	if err != nil {
		return "", errors.New("Failed loading library description indicator")
	}
	if hasDesc != 0 {
		if _, err := r.str(); err != nil {
			return "", errors.New("Failed loading library description")
		}
	}
	blob, err := r.str()
	if err != nil {
		return "", errors.New("Failed loading library blob")
	}
	return fmt.Sprintf("#!%s name=%s\n%s", engine, name, blob), nil
}
