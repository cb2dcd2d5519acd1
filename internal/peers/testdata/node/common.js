// What both scenarios share: where the server is, the job plan, the
// deadline and the one JSON line per part that the Go harness reads.
'use strict';

// The server's address comes from the harness: REDIS_ADDR=host:port.
function connection() {
  const [host, port] = (process.env.REDIS_ADDR || '127.0.0.1:6379').split(':');
  // maxRetriesPerRequest null: workers' blocking connections must not give
  // up (BullMQ refuses to start otherwise); a dead server then shows up as
  // a hang, which the deadline reports.
  return { host, port: Number(port), maxRetriesPerRequest: null };
}

// The main queue's 300 jobs: a third delayed, a third prioritised; every
// job i with i%10==3 fails once then succeeds on its retry, every job with
// i%25==7 fails both its attempts. Expected: 288 completed, 12 failed.
const JOBS = 300;
function plan(i) {
  return {
    delay: i % 3 === 0 ? 20 + (i % 7) * 40 : 0,
    priority: i % 3 === 1 ? 1 + (i % 10) : 0,
    failures: i % 25 === 7 ? 2 : i % 10 === 3 ? 1 : 0,
  };
}
function expected() {
  let failed = 0;
  for (let i = 0; i < JOBS; i++) if (plan(i).failures >= 2) failed++;
  return { completed: JOBS - failed, failed };
}

// The rate-limited queue: RATED jobs at most LIMIT per PERIOD ms, so they
// cannot all finish before (RATED/LIMIT - 1) periods have passed.
const RATED = 30, LIMIT = 10, PERIOD = 200;
const minRatedMs = (RATED / LIMIT - 1) * PERIOD;

// A part is one line of the table: done when its counts are reached.
class Part {
  constructor(name, want) {
    this.name = name;
    this.want = want;
    this.completed = 0;
    this.failed = 0;
    this.start = Date.now();
    this.ms = 0;
    this.problem = '';
    this.done = new Promise((resolve) => { this.resolve = resolve; });
  }
  count(kind) {
    this[kind]++;
    if (this.completed + this.failed === this.want.completed + this.want.failed) {
      this.ms = Date.now() - this.start;
      this.resolve();
    }
  }
  report(finished) {
    const got = `completed ${this.completed}/${this.want.completed}, failed ${this.failed}/${this.want.failed}`;
    let pass = finished && this.completed === this.want.completed && this.failed === this.want.failed && !this.problem;
    let detail = finished ? `${got} in ${this.ms} ms`
      : this.setupFailed ? `did not start: ${got}` : `hang: ${got} when the deadline passed`;
    // Lua errors carry their traceback on one line: the first clause says it.
    if (this.problem) detail += `; ${this.problem.split(' stack traceback:')[0]}`;
    if (this.minMs && finished && this.ms < this.minMs) {
      pass = false;
      detail += `; faster than the limit allows (${this.minMs} ms)`;
    }
    console.log(JSON.stringify({ test: this.name, pass, detail }));
  }
}

// run starts every part, waits for all of them or the deadline (seconds
// from PEERS_DEADLINE, default 60), prints one line a part and exits: a
// hang is a result, not a wait.
async function run(parts, start, close) {
  const deadline = 1000 * Number(process.env.PEERS_DEADLINE || 60);
  let timer, giveUp;
  const late = new Promise((resolve) => {
    giveUp = () => resolve(false);
    timer = setTimeout(giveUp, deadline);
  });
  const finished = new Map();
  // Not awaited: a server that never answers hangs the setup too, and the
  // deadline must cover it.
  start().catch((err) => {
    for (const p of parts) {
      p.problem = p.problem || `setup: ${err.message}`;
      p.setupFailed = true;
    }
    giveUp();
  });
  await Promise.all(parts.map((p) => Promise.race([p.done.then(() => true), late]).then((ok) => finished.set(p, ok))));
  clearTimeout(timer);
  for (const p of parts) p.report(finished.get(p));
  // Closing can itself hang on a broken server; the report is out already.
  setTimeout(() => process.exit(0), 3000).unref();
  try { await close(); } catch (_) { /* reported above */ }
  process.exit(0);
}

module.exports = { connection, plan, expected, JOBS, RATED, LIMIT, PERIOD, minRatedMs, Part, run };
