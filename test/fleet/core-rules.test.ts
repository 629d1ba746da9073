// Every core rule of the fleet format (not owned by an extension) with its exact one-line error.

import * as fs from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { FleetFixture } from '../helpers/fleet-fixture';
import { CORE_CASES } from './core-rules.cases';

const SUMMARY = /^fleet: \d+ errors?/;

describe('core rules', () => {
  let fx: FleetFixture | undefined;
  afterEach(() => fx?.cleanup());

  it.each(CORE_CASES.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
    fx = FleetFixture.example();
    for (const [rel, content] of Object.entries(c.files)) {
      if (content === null) fx.remove(rel);
      else fx.write(rel, content);
    }
    for (const [rel, from, to] of c.replace ?? []) fx.replace(rel, from, to);
    const r = await fx.validate();
    const lines = r.errLines.filter((l) => !SUMMARY.test(l));
    if (process.env.DUMP_CORE) fs.appendFileSync('/tmp/core-dump.txt', `== ${c.name} exit=${r.code}\n${lines.join('\n')}\n`);
    expect(r.code).toBe(c.exit ?? 1);
    expect(lines).toEqual(c.expect);
  });
});
