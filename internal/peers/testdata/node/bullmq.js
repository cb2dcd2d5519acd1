// The BullMQ scenario of the peers harness: the main queue's 300 jobs
// (delayed, prioritised, retried), a flow (a parent and its children) and
// a rate-limited queue, run against REDIS_ADDR. Prints one JSON line a part.
'use strict';
const { Queue, Worker, FlowProducer } = require('bullmq');
const c = require('./common');

const prefix = `peers${process.pid}`;
const connection = c.connection();
const CHILDREN = 5;

const main = new c.Part('bullmq/jobs', c.expected());
const flow = new c.Part('bullmq/flow', { completed: CHILDREN + 1, failed: 0 });
const rated = new c.Part('bullmq/rate-limited', { completed: c.RATED, failed: 0 });
rated.minMs = c.minRatedMs;

const closers = [];
function worker(name, fn, opts, part) {
  const w = new Worker(name, fn, { connection, prefix, ...opts });
  w.on('completed', () => part.count('completed'));
  w.on('failed', (job) => {
    // 'failed' fires on every failed attempt; only the last one is final.
    if (job && job.attemptsMade >= (job.opts.attempts || 1)) part.count('failed');
  });
  w.on('error', (err) => { part.problem = part.problem || `worker error: ${err.message}`; });
  closers.push(() => w.close());
  return w;
}
function queue(name) {
  const q = new Queue(name, { connection, prefix });
  closers.push(() => q.close());
  return q;
}

async function start() {
  worker('main', async (job) => {
    if (job.attemptsMade < job.data.failures) throw new Error(`planned failure ${job.attemptsMade + 1}`);
    return job.data.i;
  }, { concurrency: 10 }, main);
  const q = queue('main');
  const jobs = [];
  for (let i = 0; i < c.JOBS; i++) {
    const p = c.plan(i);
    const opts = { attempts: 2, backoff: { type: 'fixed', delay: 30 } };
    if (p.delay) opts.delay = p.delay;
    if (p.priority) opts.priority = p.priority;
    jobs.push({ name: 'job', data: { i, failures: p.failures }, opts });
  }
  // Delayed and prioritised jobs go one by one (addBulk takes both too,
  // but real producers mostly add single jobs).
  for (const j of jobs) await q.add(j.name, j.data, j.opts);

  worker('flow-children', async (job) => job.data.n, {}, flow);
  worker('flow-parent', async (job) => {
    const values = Object.values(await job.getChildrenValues());
    const sum = values.reduce((a, b) => a + b, 0);
    if (values.length !== CHILDREN || sum !== (CHILDREN * (CHILDREN + 1)) / 2) {
      flow.problem = `parent saw ${values.length} children summing to ${sum}`;
    }
    return sum;
  }, {}, flow);
  const fp = new FlowProducer({ connection, prefix });
  closers.push(() => fp.close());
  const children = [];
  for (let n = 1; n <= CHILDREN; n++) children.push({ name: 'child', queueName: 'flow-children', data: { n } });
  await fp.add({ name: 'parent', queueName: 'flow-parent', data: {}, children });

  const rq = queue('rated');
  for (let n = 0; n < c.RATED; n++) await rq.add('rated', { n });
  rated.start = Date.now();
  worker('rated', async () => 'ok', { concurrency: 5, limiter: { max: c.LIMIT, duration: c.PERIOD } }, rated);
}

c.run([main, flow, rated], start, () => Promise.all(closers.map((f) => f())));
