// The graphile-worker peer of jobq's benchmark harness (bench/throughput.go starts it).
//
//   node worker.mjs migrate URL               installs graphile-worker's schema in the database
//   node worker.mjs work URL PROFILE EXPECT   runs no-op "noop" jobs until SIGTERM
//   node worker.mjs latency URL               runs "noop" jobs at the defaults until SIGTERM,
//                                             printing "START <job id> <ns>" as each starts
//
// PROFILE is "default" (graphile-worker's defaults: one job at a time, pool of 10, no local
// queue, no batching) or "best" (the settings of graphile-worker's "Performance" page:
// concurrentJobs 24, maxPoolSize 25, localQueue.size 500, completeJobBatchDelay 0,
// failJobBatchDelay 0). On standard output it prints "FIRST <ns>" when the first job starts and
// "DONE <ns>" when EXPECT jobs have run, in nanoseconds of CLOCK_MONOTONIC (process.hrtime,
// the clock the harness reads too); the harness then waits until their completions are written.
//
// In latency mode the worker runs at graphile-worker's defaults and prints "READY" once it has
// started; each job's handler reads process.hrtime.bigint() (CLOCK_MONOTONIC, the clock the
// harness reads when the enqueue's commit returns) as its first act and prints it with the
// job's id, so the pickup latency is measured on one clock across the two processes.
import { Logger, run, runMigrations } from "graphile-worker";

const [mode, connectionString, profile = "default", expectArg = "0"] = process.argv.slice(2);

// Only warnings and errors reach standard error: per-job logs would measure the logger.
const logger = new Logger(() => (level, message) => {
  if (level === "error" || level === "warning") {
    process.stderr.write(`[graphile-worker ${level}] ${message}\n`);
  }
});

function workerOptions() {
  const base = { connectionString, logger };
  if (profile === "best") {
    return {
      ...base,
      concurrentJobs: 24,
      maxPoolSize: 25,
      localQueue: { size: 500 },
      completeJobBatchDelay: 0,
      failJobBatchDelay: 0,
    };
  }
  if (profile !== "default") {
    throw new Error(`unknown profile ${profile} (default, best)`);
  }
  return base;
}

// now reads CLOCK_MONOTONIC in nanoseconds.
const now = () => process.hrtime.bigint();

async function main() {
  if (!connectionString) {
    throw new Error("usage: worker.mjs migrate|work URL [PROFILE EXPECT]");
  }
  if (mode === "migrate") {
    await runMigrations({ preset: { worker: { connectionString, logger } } });
    return;
  }
  if (mode === "latency") {
    const runner = await run({
      preset: { worker: { connectionString, logger } },
      noHandleSignals: true,
      taskList: {
        noop: async (_payload, helpers) => {
          const at = process.hrtime.bigint();
          process.stdout.write(`START ${helpers.job.id} ${at}\n`);
        },
      },
    });
    process.stdout.write("READY\n");
    await serve(runner);
    return;
  }
  if (mode !== "work") {
    throw new Error(`unknown mode ${mode} (migrate, work, latency)`);
  }
  const expect = Number(expectArg);
  let ran = 0;
  const runner = await run({
    preset: { worker: workerOptions() },
    noHandleSignals: true,
    taskList: {
      noop: async () => {
        ran += 1;
        if (ran === 1) {
          process.stdout.write(`FIRST ${now()}\n`);
        }
        if (ran === expect) {
          process.stdout.write(`DONE ${now()}\n`);
        }
      },
    },
  });
  await serve(runner);
}

// serve runs until SIGTERM or SIGINT, then stops the worker and exits.
async function serve(r) {
  runner = r;
  await runner.promise;
}

// A signal stops the worker once it runs; one that comes while it still starts (a process the
// harness stops before it got a job) exits at once.
let runner = null;
let stopping = false;
const stop = async () => {
  if (stopping) {
    return;
  }
  stopping = true;
  if (runner) {
    await runner.stop();
  }
  process.exit(0);
};
process.on("SIGTERM", stop);
process.on("SIGINT", stop);

main().catch((err) => {
  process.stderr.write(`graphile peer: ${err && err.stack ? err.stack : err}\n`);
  process.exit(1);
});
