// Through the built CLI: a fleet whose fullest shard would hold more runtimes than one shard's Flux
// Kustomization and Argo CD ApplicationSets can carry is refused (E_GITOPS_SHARD_FULL) at the
// gitops.shards option, naming the shard count that fits; with that count it is valid.

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { generateFleet } from '../../bench/generate-fleet';
import { MAX_RUNTIMES_PER_SHARD } from '../../src/gitops/gitops';
import { runBinary } from '../helpers/fleet-fixture';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kyma-fleet-shards-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function withShards(shards: number): string {
  const fleet = path.join(dir, `fleet-${shards}`);
  if (!fs.existsSync(fleet)) generateFleet(fleet, MAX_RUNTIMES_PER_SHARD + 1, 7);
  const file = path.join(fleet, 'fleet.yaml');
  const text = fs.readFileSync(file, 'utf8').replace(/\n  gitops:\n(    .*\n)*/, '\n');
  fs.writeFileSync(file, text.replace(/\nspec:\n/, `\nspec:\n  gitops:\n    shards: ${shards}\n`));
  return fleet;
}

describe('gitops.shards bounds a shard', () => {
  it(`refuses ${MAX_RUNTIMES_PER_SHARD + 1} runtimes in one shard and names the count that fits`, () => {
    const fleet = withShards(1);
    const r = runBinary(['validate', '--fleet', fleet], dir);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      new RegExp(`fleet-1/fleet\\.yaml:\\d+:\\d+: error at gitops\\.shards: shard all of 1 would hold ${MAX_RUNTIMES_PER_SHARD + 1} runtimes, more than the ${MAX_RUNTIMES_PER_SHARD} that one shard's Flux and Argo CD objects can carry; set gitops\\.shards to 16 \\[E_GITOPS_SHARD_FULL\\]`),
    );
  });

  it('accepts the same fleet spread over 16 shards', () => {
    const r = runBinary(['validate', '--fleet', withShards(16)], dir);
    expect(r.stderr).not.toContain('E_GITOPS_SHARD_FULL');
    expect(r.code).toBe(0);
  });
});
