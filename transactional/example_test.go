package transactional_test

import (
	"fmt"
	"time"

	"github.com/scriptgen/scriptgen/transactional"
)

// A Go test loads a script, sets the clock, calls the script and inspects
// the keyspace, all in-process.
func Example() {
	e := transactional.New()
	defer e.Close()

	sha, _ := e.Do("SCRIPT", "LOAD", `
redis.call('SET', KEYS[1], ARGV[1], 'EX', 60)
return redis.call('TTL', KEYS[1])`)
	ttl, _ := e.Do("EVALSHA", sha.(string), "1", "session", "alice")
	fmt.Println("ttl:", ttl)

	e.Advance(61 * time.Second)
	fmt.Println("after 61s:", e.Miniredis().Exists("session"))

	_, err := e.Do("EVAL", "return redis.call('GET')", "0")
	fmt.Println(err)
	// Output:
	// ttl: 60
	// after 61s: false
	// ERR Wrong number of args calling Redis command from script script: 72273adc3c5955bf8543f1ad6ce893355b89617d, on @user_script:1.
}
