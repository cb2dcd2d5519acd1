package realworld

// wrapperTests are Go test files written beside the generated packages
// of the scratch module (buildAndRun): each runs a wrapper generated from
// a project's unannotated script on a real redis-server, and checks it
// against what the project's own client gets. REALWORLD_REDIS and
// REALWORLD_REDIS_B are two servers the outer test started.
var wrapperTests = map[string]string{
	// asynq's Client.Enqueue runs enqueueCmd on server B; the generated
	// EnqueueCmd, given the same message bytes, task ID and time, must
	// leave the same task hash and pending list on server A and reply 1,
	// then 0 for the same task ID, the reply asynq maps to
	// ErrTaskIDConflict.
	"asynq/enqueue_rw_test.go": `package asynq_test

import (
	"context"
	"errors"
	"os"
	"reflect"
	"testing"
	"time"

	hasynq "github.com/hibiken/asynq"
	"github.com/redis/go-redis/v9"

	gen "realworld.test/asynq"
)

func TestEnqueueAsAsynq(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	a := redis.NewClient(&redis.Options{Addr: os.Getenv("REALWORLD_REDIS")})
	b := redis.NewClient(&redis.Options{Addr: os.Getenv("REALWORLD_REDIS_B")})
	defer a.Close()
	defer b.Close()

	client := hasynq.NewClient(hasynq.RedisClientOpt{Addr: os.Getenv("REALWORLD_REDIS_B")})
	defer client.Close()
	if _, err := client.Enqueue(hasynq.NewTask("email:welcome", []byte("{\"user\":42}")), hasynq.TaskID("t1")); err != nil {
		t.Fatal(err)
	}
	const taskKey, pending = "asynq:{default}:t:t1", "asynq:{default}:pending"
	theirs, err := b.HGetAll(ctx, taskKey).Result()
	if err != nil || theirs["msg"] == "" {
		t.Fatalf("asynq's task hash: %v, %v", theirs, err)
	}

	var s gen.Scripts
	// Names from asynq's own comment: KEYS[1] -> asynq:{<qname>}:t:<task_id>.
	keys := gen.EnqueueCmdKeys{TaskID: taskKey, Pending: pending}
	args := gen.EnqueueCmdArgs{TaskMessageData: theirs["msg"], TaskID: "t1", CurrentUnixTime: theirs["pending_since"]}
	if n, err := s.EnqueueCmd(ctx, a, keys, args); err != nil || n != 1 {
		t.Fatalf("first enqueue: %d, %v; asynq's script replies 1", n, err)
	}
	ours, err := a.HGetAll(ctx, taskKey).Result()
	if err != nil || !reflect.DeepEqual(ours, theirs) {
		t.Errorf("task hash: ours %v, asynq's %v (%v)", ours, theirs, err)
	}
	ourList, _ := a.LRange(ctx, pending, 0, -1).Result()
	theirList, _ := b.LRange(ctx, pending, 0, -1).Result()
	if !reflect.DeepEqual(ourList, theirList) {
		t.Errorf("pending list: ours %v, asynq's %v", ourList, theirList)
	}

	_, conflict := client.Enqueue(hasynq.NewTask("email:welcome", nil), hasynq.TaskID("t1"))
	if !errors.Is(conflict, hasynq.ErrTaskIDConflict) {
		t.Fatalf("asynq's second enqueue: %v", conflict)
	}
	if n, err := s.EnqueueCmd(ctx, a, keys, args); err != nil || n != 0 {
		t.Errorf("second enqueue: %d, %v; want 0, which asynq reports as %v", n, err, conflict)
	}
}
`,
	// BullMQ's Job.log and Queue.addJobLog run addLog-2 with the job key,
	// the logs key, the job id, the line and keepLogs ('' when not given).
	// REALWORLD_BULLMQ holds what BullMQ 6.7.0's own client got on server B
	// for three lines without keepLogs and one with keepLogs 2: the
	// generated wrapper must get the same replies and leave the same list.
	// A missing job is -1, as the script documents.
	"bullmq/addlog_rw_test.go": `package bullmq

import (
	"context"
	"encoding/json"
	"os"
	"reflect"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

func TestAddLogAsBullMQ(t *testing.T) {
	var theirs struct {
		Job     string
		Replies []int64
		Logs    []string
	}
	if err := json.Unmarshal([]byte(os.Getenv("REALWORLD_BULLMQ")), &theirs); err != nil || len(theirs.Replies) != 4 {
		t.Fatalf("BullMQ's client: %q, %v", os.Getenv("REALWORLD_BULLMQ"), err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c := redis.NewClient(&redis.Options{Addr: os.Getenv("REALWORLD_REDIS")})
	defer c.Close()
	var s Scripts
	jobKey := "{bull}:q:" + theirs.Job
	keys := AddLogKeys{JobIDKey: jobKey, JobLogsKey: jobKey + ":logs"}
	log := func(line string, keep *int64) int64 {
		t.Helper()
		v, err := s.AddLog(ctx, c, keys, AddLogArgs{ID: theirs.Job, Log: line, KeepLogs: keep})
		if err != nil {
			t.Fatal(err)
		}
		n, ok := v.(int64)
		if !ok {
			t.Fatalf("reply %#v; want an integer", v)
		}
		return n
	}
	if got := log("no job", nil); got != -1 {
		t.Fatalf("missing job: %v; the script documents -1", got)
	}
	if err := c.HSet(ctx, jobKey, "name", "j").Err(); err != nil {
		t.Fatal(err)
	}
	var ours []int64
	for _, line := range []string{"a", "b", "c"} {
		ours = append(ours, log(line, nil))
	}
	ours = append(ours, log("d", new(int64(2))))
	if !reflect.DeepEqual(ours, theirs.Replies) {
		t.Errorf("replies: ours %v, BullMQ's %v", ours, theirs.Replies)
	}
	if lines, _ := c.LRange(ctx, keys.JobLogsKey, 0, -1).Result(); !reflect.DeepEqual(lines, theirs.Logs) {
		t.Errorf("logs: ours %q, BullMQ's %q", lines, theirs.Logs)
	}
}
`,
}
