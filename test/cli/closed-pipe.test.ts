// `kyma-fleet ... | head`: when the reader of stdout goes away the CLI stops quietly, as command-line
// tools do, instead of an unhandled EPIPE with a stack trace. Through the built binary in a real pipe.

import { spawnSync } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, FleetFixture, NOW, testProcessEnv } from '../helpers/fleet-fixture';

const fx = FleetFixture.example();
afterAll(() => fx.cleanup());

describe('a closed stdout', () => {
  it.each([
    [['--help'], 'head -n 1'],
    // No dist/ yet: every file is added, a large document that head stops reading early.
    [['diff', '-o', 'json', '--now', NOW], 'head -c 10'],
  ])('%j | %s: no stack trace, exit 0', (args, reader) => {
    const command = `set -o pipefail; ${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} ${args.map((a) => `'${a}'`).join(' ')} | ${reader} > /dev/null`;
    const r = spawnSync('bash', ['--norc', '--noprofile', '-c', command], { cwd: fx.dir, encoding: 'utf8', env: testProcessEnv() });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
  });
});
