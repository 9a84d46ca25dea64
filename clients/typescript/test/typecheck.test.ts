// GWT-2 in TypeScript: tsc --noEmit compiles typecheck/good.ts and refuses typecheck/bad.ts with
// exactly the error codes each of its lines names (// TS2345), line by line.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';

// This file runs from dist/test/: the package is two folders up.
const root = fileURLToPath(new URL('../../', import.meta.url));
const tsc = `${root}node_modules/typescript/bin/tsc`;

function check(file: string): { status: number | null; errors: string[] } {
  const r = spawnSync(process.execPath, [tsc, '--noEmit', '--pretty', 'false', '--strict', '--target', 'ES2022', '--module', 'NodeNext',
    '--moduleResolution', 'NodeNext', '--types', 'node', '--skipLibCheck', file], { cwd: root, encoding: 'utf8' });
  // One line per error: typecheck/bad.ts(11,63): error TS2345: ...; the indented lines explain it.
  const errors = r.stdout.split('\n').filter((l) => /^\S.*\(\d+,\d+\): error TS\d+/.test(l));
  return { status: r.status, errors };
}

test('the good calls compile', () => {
  const { status, errors } = check('typecheck/good.ts');
  assert.deepEqual(errors, []);
  assert.equal(status, 0);
});

test('each bad call fails with exactly the errors its line names', () => {
  const want: string[] = [];
  readFileSync(`${root}typecheck/bad.ts`, 'utf8').split('\n').forEach((line, i) => {
    const m = /\/\/ ((?:TS\d+ ?)+)$/.exec(line);
    if (m) {
      for (const code of m[1].trim().split(' ')) {
        want.push(`${i + 1} ${code}`);
      }
    }
  });
  assert.ok(want.length >= 10);
  const { status, errors } = check('typecheck/bad.ts');
  const got = errors.map((l) => {
    const m = /^typecheck\/bad\.ts\((\d+),\d+\): error (TS\d+)/.exec(l);
    assert.ok(m, `an error outside bad.ts: ${l}`);
    return `${m[1]} ${m[2]}`;
  });
  assert.deepEqual(got.sort(), want.sort(), errors.join('\n'));
  assert.equal(status, 2);
});
