// The pg-boss peer of jobq's benchmark harness (bench/pgboss.go starts it).
//
//   node pgboss.mjs migrate URL        installs pg-boss's schema and creates the queue "noop"
//   node pgboss.mjs fill URL N         inserts N no-op jobs into "noop" with insert(), 10,000 a call
//   node pgboss.mjs work URL           works "noop" with no-op handlers until SIGTERM
//
// work runs at the settings pg-boss documents for throughput (docs/api/workers.md): a batch
// handler (batchSize 100, the batch completed in one statement), burstWhenBatchFull (fetch
// again at once while batches come back full), localConcurrency 4 workers in the process, a
// pool of 10 (the default max), polling every 0.5 s (the shortest allowed) when a fetch comes
// back short. Maintenance and scheduling stay on, as in production. It prints "READY" once its
// workers are registered; the harness reads the drain's time from the database (started_on and
// completed_on of pgboss.job).
import { PgBoss } from "pg-boss";

const [mode, connectionString, arg = "0"] = process.argv.slice(2);

const workSettings = { batchSize: 100, burstWhenBatchFull: true, localConcurrency: 4, pollingIntervalSeconds: 0.5 };

async function main() {
  if (!connectionString) {
    throw new Error("usage: pgboss.mjs migrate|fill|work URL [N]");
  }
  const boss = new PgBoss({ connectionString, max: 10 });
  boss.on("error", (err) => process.stderr.write(`[pg-boss error] ${err && err.stack ? err.stack : err}\n`));
  await boss.start();
  if (mode === "migrate") {
    await boss.createQueue("noop");
    await boss.stop({ graceful: false });
    return;
  }
  if (mode === "fill") {
    const n = Number(arg);
    const batch = 10_000;
    for (let done = 0; done < n; ) {
      const k = Math.min(batch, n - done);
      await boss.insert("noop", Array.from({ length: k }, () => ({ data: {} })));
      done += k;
    }
    await boss.stop({ graceful: false });
    return;
  }
  if (mode !== "work") {
    throw new Error(`unknown mode ${mode} (migrate, fill, work)`);
  }
  await boss.work("noop", workSettings, async () => {});
  process.stdout.write("READY\n");
  let stopping = false;
  const stop = async () => {
    if (stopping) {
      return;
    }
    stopping = true;
    await boss.stop({ graceful: true, timeout: 20_000 });
    process.exit(0);
  };
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
}

main().catch((err) => {
  process.stderr.write(`pg-boss peer: ${err && err.stack ? err.stack : err}\n`);
  process.exit(1);
});
