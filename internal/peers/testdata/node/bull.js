// The Bull (v4) scenario of the peers harness: the main queue's 300 jobs
// (delayed, prioritised, retried) and a rate-limited queue, run against
// REDIS_ADDR. Bull has no flows. Prints one JSON line a part.
'use strict';
const Queue = require('bull');
const c = require('./common');

const prefix = `peers${process.pid}`;
const opts = { prefix, redis: c.connection() };

const main = new c.Part('bull/jobs', c.expected());
const rated = new c.Part('bull/rate-limited', { completed: c.RATED, failed: 0 });
rated.minMs = c.minRatedMs;

const queues = [];
function queue(name, part, extra) {
  const q = new Queue(name, { ...opts, ...extra });
  q.on('completed', () => part.count('completed'));
  q.on('failed', (job) => {
    // 'failed' fires on every failed attempt; only the last one is final.
    if (job.attemptsMade >= (job.opts.attempts || 1)) part.count('failed');
  });
  q.on('error', (err) => { part.problem = part.problem || `queue error: ${err.message}`; });
  queues.push(q);
  return q;
}

async function start() {
  const q = queue('main', main);
  q.process(10, async (job) => {
    if (job.attemptsMade < job.data.failures) throw new Error(`planned failure ${job.attemptsMade + 1}`);
    return job.data.i;
  });
  for (let i = 0; i < c.JOBS; i++) {
    const p = c.plan(i);
    const o = { attempts: 2, backoff: { type: 'fixed', delay: 30 } };
    if (p.delay) o.delay = p.delay;
    if (p.priority) o.priority = p.priority;
    await q.add({ i, failures: p.failures }, o);
  }

  const rq = queue('rated', rated, { limiter: { max: c.LIMIT, duration: c.PERIOD } });
  for (let n = 0; n < c.RATED; n++) await rq.add({ n });
  rated.start = Date.now();
  rq.process(5, async () => 'ok');
}

c.run([main, rated], start, () => Promise.all(queues.map((q) => q.close())));
