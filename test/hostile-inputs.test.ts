// Every loading and validation row of the hostile-input catalogue (H01–H52): `kyma-fleet
// validate` exits 1 with exactly the documented one-line errors, or 0 where the input is legal.

import { afterEach, describe, expect, it } from 'vitest';
import { FleetFixture } from './helpers/fleet-fixture';
import { CATALOGUE, runtime } from './hostile/catalogue';

const SUMMARY = /^fleet: \d+ errors?/;

describe('hostile inputs', () => {
  let fx: FleetFixture | undefined;
  afterEach(() => fx?.cleanup());

  it.each(CATALOGUE.map((c) => [`${c.id} ${c.title}`, c] as const))('%s', async (_name, c) => {
    // GIVEN the example fleet with the hostile change
    fx = FleetFixture.example();
    if (c.renderedBefore) {
      for (const [rel, content] of Object.entries(c.renderedBefore)) fx.write(rel, content);
      expect((await fx.run(['synth', '--now', '2026-11-22T00:00:00Z'])).code).toBe(0);
    }
    for (const [rel, content] of Object.entries(c.files ?? {})) {
      if (content === null) fx.remove(rel);
      else fx.write(rel, content);
    }
    for (const [rel, target] of Object.entries(c.symlinks ?? {})) fx.symlink(rel, target);
    // WHEN it is validated
    const r = await fx.validate(...(c.args ?? []));
    // THEN the exit code and the exact error lines match, and nothing else is reported
    expect(r.code).toBe(c.exit ?? 1);
    const problems = r.errLines.filter((l) => !SUMMARY.test(l));
    expect(problems).toEqual(c.expect);
  });

  it('reads a CRLF file exactly like its LF twin', async () => {
    fx = FleetFixture.example();
    const lf = runtime('twin', '  channel: fast\n  modules:\n    - name: serverless\n');
    fx.write('runtimes/twin.yaml', lf);
    const a = await fx.run(['explain', 'twin', '--output', 'json', '--now', '2026-11-22T00:00:00Z']);
    fx.write('runtimes/twin.yaml', '\ufeff' + lf.replace(/\n/g, '\r\n'));
    const b = await fx.run(['explain', 'twin', '--output', 'json', '--now', '2026-11-22T00:00:00Z']);
    expect(a.code).toBe(0);
    expect(b.stdout).toBe(a.stdout);
  });

  it('survives several exhausting documents in one process (the V8 abort needed two)', () => {
    fx = FleetFixture.example();
    fx.write('runtimes/deep-a.yaml', runtime('deep-a', '  channel: ' + '['.repeat(5000) + '\n'));
    fx.write('runtimes/deep-b.yaml', runtime('deep-b', '  modules:\n' + '    ' + '- '.repeat(3000) + 'x\n'));
    fx.write('runtimes/deep-c.yaml', runtime('deep-c', '  channel: ' + '{a: '.repeat(3000) + '\n'));
    fx.write('runtimes/laughs.yaml', runtime('laughs', '  modules: &a [{name: lol}, {name: lol}]\n  channel: &b [*a, *a, *a, *a]\n'));
    const r = fx.runBinary(['validate', '--now', '2026-11-22T00:00:00Z']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('fleet/runtimes/deep-a.yaml:13:');
    expect(r.stderr).toContain('fleet/runtimes/deep-b.yaml:14:');
    expect(r.stderr).toContain('fleet/runtimes/deep-c.yaml:13:');
    expect(r.stderr).toContain('[E_ALIAS_FORBIDDEN]');
  });
});
