package ratelimit

// This file is written by hand, not generated: the queue script admits
// requests into a stream, and this is the other half, the consumers that
// drain it.

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// QueueConsumer works through the entries the queue script admitted to a
// stream, as one consumer of a consumer group. An entry leaves the stream
// (XACK and XDEL in one transaction) only once its handler returned nil,
// because the queue's limit counts the stream's length: entries in work
// still hold their place. Entries whose handler failed, or whose consumer
// died, stay pending and are claimed again after ClaimIdle.
type QueueConsumer struct {
	Client redis.UniversalClient
	Stream string // the queue script's key
	Group  string // created at the start of the stream's history when missing
	Name   string // this consumer, unique within the group

	Count     int64         // entries per read; 0 means 10
	Block     time.Duration // how long one read waits for new entries; 0 means 1s
	ClaimIdle time.Duration // claim others' (and failed) entries idle this long; 0 never claims
}

// Run handles entries until ctx is done, then returns nil; it returns
// early only on a Redis error.
func (q *QueueConsumer) Run(ctx context.Context, handle func(context.Context, redis.XMessage) error) error {
	if err := q.Client.XGroupCreateMkStream(ctx, q.Stream, q.Group, "0").Err(); err != nil && !strings.HasPrefix(err.Error(), "BUSYGROUP") {
		return err
	}
	count, block := q.Count, q.Block
	if count <= 0 {
		count = 10
	}
	if block <= 0 {
		block = time.Second
	}
	for ctx.Err() == nil {
		if q.ClaimIdle > 0 {
			claimed, _, err := q.Client.XAutoClaim(ctx, &redis.XAutoClaimArgs{
				Stream: q.Stream, Group: q.Group, Consumer: q.Name, MinIdle: q.ClaimIdle, Start: "0-0", Count: count,
			}).Result()
			if err != nil {
				return q.stopped(ctx, err)
			}
			if err := q.handle(ctx, claimed, handle); err != nil {
				return q.stopped(ctx, err)
			}
		}
		streams, err := q.Client.XReadGroup(ctx, &redis.XReadGroupArgs{
			Group: q.Group, Consumer: q.Name, Streams: []string{q.Stream, ">"}, Count: count, Block: block,
		}).Result()
		if errors.Is(err, redis.Nil) {
			continue
		}
		if err != nil {
			return q.stopped(ctx, err)
		}
		for _, s := range streams {
			if err := q.handle(ctx, s.Messages, handle); err != nil {
				return q.stopped(ctx, err)
			}
		}
	}
	return nil
}

func (q *QueueConsumer) handle(ctx context.Context, msgs []redis.XMessage, handle func(context.Context, redis.XMessage) error) error {
	for _, m := range msgs {
		if handle(ctx, m) != nil {
			continue // stays pending: claimed again after ClaimIdle
		}
		_, err := q.Client.TxPipelined(ctx, func(p redis.Pipeliner) error {
			p.XAck(ctx, q.Stream, q.Group, m.ID)
			p.XDel(ctx, q.Stream, m.ID)
			return nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// stopped turns the error of a call cut short by ctx into a clean stop.
func (q *QueueConsumer) stopped(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return nil
	}
	return err
}
