// A jobq HTTP handler in Node, with Node's own http and crypto modules: syncs a contact to a CRM
// for the task sync-crm-contact.
//
// jobq worker POSTs each job here (docs/handlers.md has the whole contract):
//   - the body is JSON: {"id", "task", "queue", "attempt", "max_attempts", "store_id", "payload",
//     "deadline"};
//   - the Jobq-Signature header, "t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">", proves
//     the call comes from a worker that knows the secret, and is fresh;
//   - the status says what happened:
//       2xx                           done: the job succeeded
//       429 or 503 with Retry-After   snooze: run it again after that many seconds (or that date)
//                                     without using an attempt
//       any other 4xx                 fail for good: the job is dead at once
//       5xx (or no answer in time)    the attempt failed: jobq retries it with backoff
//
// Environment: PORT (default 8787), JOBQ_SECRET (the same value as the worker's variable that
// secret_env names), and for the CRM stand-in: CRM_OUTBOX (a folder it writes contacts into),
// CRM_THROTTLED (contact ids whose first sync the CRM throttles: "429, retry in 2 s") and
// CRM_FLAKY (contact ids whose first attempt the CRM answers with a server error).

import { createHmac, timingSafeEqual } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';

const secret = process.env.JOBQ_SECRET;
if (!secret || secret.length < 16) {
  console.error('JOBQ_SECRET must hold at least 16 characters');
  process.exit(1);
}
const toleranceSeconds = 300; // refuse a signature older (or newer) than 5 minutes: a replay
const maxBody = 1 << 20;

// verify returns whether header signs body with the secret, at most toleranceSeconds ago.
function verify(header, body) {
  const parts = Object.fromEntries((header ?? '').split(',').map((p) => p.split('=', 2)));
  const t = Number(parts.t);
  if (!Number.isInteger(t) || !/^[0-9a-f]{64}$/.test(parts.v1 ?? '')) return false;
  if (Math.abs(Date.now() / 1000 - t) > toleranceSeconds) return false;
  const expected = createHmac('sha256', secret).update(`${t}.`).update(body).digest();
  return timingSafeEqual(expected, Buffer.from(parts.v1, 'hex')); // constant time
}

// The CRM stand-in: it throttles the first sync of CRM_THROTTLED contacts, and fails the first
// attempt for CRM_FLAKY ones.
const list = (v) => new Set((v ?? '').split(',').filter(Boolean));
const throttled = list(process.env.CRM_THROTTLED);
const flaky = list(process.env.CRM_FLAKY);

class HTTPError extends Error {
  constructor(status, message, headers = {}) {
    super(message);
    this.status = status;
    this.headers = headers;
  }
}

function syncContact(job) {
  const { contactId, email } = job.payload;
  if (typeof contactId !== 'string' || typeof email !== 'string' || !email.includes('@')) {
    throw new HTTPError(422, 'a contact needs a contactId and an email address'); // for good
  }
  if (throttled.delete(contactId)) {
    // Not now: jobq snoozes the job for Retry-After seconds, without using an attempt.
    throw new HTTPError(429, `the CRM throttles contact ${contactId}`, { 'Retry-After': '2' });
  }
  if (flaky.has(contactId) && job.attempt === 1) {
    throw new HTTPError(502, 'the CRM answered 502 Bad Gateway'); // retried
  }
  writeFileSync(join(process.env.CRM_OUTBOX, `${job.id}.json`), JSON.stringify({ contactId, email }));
}

const server = createServer((req, res) => {
  if (req.method !== 'POST') {
    res.writeHead(405).end();
    return;
  }
  const chunks = [];
  let size = 0;
  req.on('data', (chunk) => {
    size += chunk.length;
    if (size > maxBody) {
      res.writeHead(413).end();
      req.destroy();
      return;
    }
    chunks.push(chunk);
  });
  req.on('end', () => {
    const body = Buffer.concat(chunks);
    if (!verify(req.headers['jobq-signature'], body)) {
      // A 4xx: the job fails for good. A wrong secret is a configuration error, not bad luck.
      res.writeHead(401, { 'Content-Type': 'text/plain' }).end('bad or stale Jobq-Signature\n');
      return;
    }
    let job;
    try {
      job = JSON.parse(body);
      syncContact(job);
      res.writeHead(204).end();
    } catch (e) {
      const status = e instanceof HTTPError ? e.status : e instanceof SyntaxError ? 400 : 500;
      res.writeHead(status, { 'Content-Type': 'text/plain', ...(e.headers ?? {}) }).end(`${e.message}\n`);
    }
    console.log(`job ${job?.id} (${job?.task}, attempt ${job?.attempt}): ${res.statusCode}`);
  });
});

server.listen(Number(process.env.PORT ?? 8787), '127.0.0.1', () => {
  console.log(`listening on http://127.0.0.1:${server.address().port}/jobs`);
});
