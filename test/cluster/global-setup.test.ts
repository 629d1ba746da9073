// The test cluster's global setup on a machine without Go: with CI unset it sets the skip reason and
// prints it once (one line); with CI=true it fails. (With Go it builds; every real-cluster test covers
// that path.) Go is hidden through KYMA_FLEET_GO, which findGo uses instead of PATH when set.

import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import setup from './global-setup';
import { SKIP_ENV } from './skip-env';
import { BINARY_ENV } from './tools';

const KEYS = ['KYMA_FLEET_GO', 'CI', SKIP_ENV, ...Object.values(BINARY_ENV)];

describe('test cluster global setup without Go', () => {
  let saved: Record<string, string | undefined>;
  beforeEach(() => {
    saved = Object.fromEntries(KEYS.map((k) => [k, process.env[k]]));
    for (const k of Object.values(BINARY_ENV)) delete process.env[k];
    process.env.KYMA_FLEET_GO = '/nonexistent/bin/go';
  });
  afterEach(() => {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
    vi.restoreAllMocks();
  });

  it('skips with one line when CI is unset', async () => {
    delete process.env.CI;
    const lines: string[] = [];
    vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
      lines.push(String(chunk));
      return true;
    });
    await setup();
    expect(process.env[SKIP_ENV]).toBe('no Go toolchain (KYMA_FLEET_GO=/nonexistent/bin/go is not a working go): the real-cluster tests are skipped (see docs/testing.md)');
    expect(lines).toEqual([`test cluster: ${process.env[SKIP_ENV]}\n`]);
    for (const k of Object.values(BINARY_ENV)) expect(process.env[k]).toBeUndefined();
  });

  it('fails under CI=true', async () => {
    process.env.CI = 'true';
    await expect(setup()).rejects.toThrow('CI=true requires the test cluster, but there is no Go toolchain (KYMA_FLEET_GO=/nonexistent/bin/go is not a working go)');
    expect(process.env[SKIP_ENV]).toBeUndefined();
  });
});
