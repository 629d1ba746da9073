// E_GITOPS_NAME_COLLISION: two runtimes whose Flux Kustomization / Argo CD Application names would be
// the same are refused at validation (file, line, column of the later file), not at render time as
// an internal error. Both ways it can happen: two long names sharing their first 50 characters whose
// 8-hex hashes meet (found here by a deterministic search, about 80,000 names), and a plain name equal
// to another runtime's shortened one. Through the unit and through the built CLI.

import { createHash } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { gitopsObjectName } from '../../src/gitops/gitops';
import type { Diagnostic } from '../../src/lib/diagnostics';
import { checkGitopsNames } from '../../src/validate/gitops-names';
import type { RuntimeIdentity } from '../../src/validate/model';
import { FleetFixture } from '../helpers/fleet-fixture';

const hash8 = (s: string): string => createHash('sha256').update(s).digest('hex').slice(0, 8);

/** Two distinct 63-character names that share their first 60 characters and whose hash8 meet. */
function collidingPair(): [string, string] {
  const prefix = 'p'.repeat(57);
  const seen = new Map<string, string>();
  for (let i = 0; ; i++) {
    const name = `${prefix}${i.toString(36).padStart(6, '0')}`;
    const h = hash8(name);
    const other = seen.get(h);
    if (other) return [other, name];
    seen.set(h, name);
  }
}

const identity = (name: string, file: string, line: number): RuntimeIdentity => ({
  file,
  name,
  runtimeID: createHash('sha1').update(name).digest('hex'),
  shoot: { name: 'c', project: 'p' },
  at: { name: { line, col: 9 }, runtimeID: { line: line + 5, col: 14 }, shootName: { line: line + 10, col: 11 } },
});

describe('E_GITOPS_NAME_COLLISION', () => {
  const [a, b] = collidingPair();

  it('the search found a real pair: distinct names, one Kustomization name', () => {
    expect(a).not.toBe(b);
    expect(gitopsObjectName(a, 'skr-config')).toBe(gitopsObjectName(b, 'skr-config'));
  });

  it.each<[string, RuntimeIdentity[], string | undefined]>([
    ['two long names whose hashes meet', [identity(b, 'fleet/runtimes/b.yaml', 4), identity(a, 'fleet/runtimes/a.yaml', 4)], 'fleet/runtimes/b.yaml'],
    [
      'a plain name equal to another runtime\'s shortened one',
      (() => {
        const long = 'z'.repeat(60);
        const short = gitopsObjectName(long, 'skr-config').replace(/-skr-config$/, '');
        return [identity(long, 'fleet/runtimes/long.yaml', 4), identity(short, 'fleet/runtimes/short.yaml', 4)];
      })(),
      'fleet/runtimes/short.yaml',
    ],
    ['long names that differ early', [identity(`a${'q'.repeat(62)}`, 'fleet/runtimes/a.yaml', 4), identity(`b${'q'.repeat(62)}`, 'fleet/runtimes/b.yaml', 4)], undefined],
    ['the same name twice (E_DUPLICATE_RUNTIME says so)', [identity(a, 'fleet/runtimes/a.yaml', 4), identity(a, 'fleet/runtimes/a2.yaml', 4)], undefined],
  ])('%s', (_label, runtimes, reportedFile) => {
    const sink: Diagnostic[] = [];
    checkGitopsNames(runtimes, sink);
    if (reportedFile === undefined) {
      expect(sink).toEqual([]);
      return;
    }
    expect(sink).toHaveLength(1);
    expect(sink[0]).toMatchObject({ severity: 'error', code: 'E_GITOPS_NAME_COLLISION', file: reportedFile, line: 4, col: 9, field: 'metadata.name' });
    const other = runtimes.find((r) => r.file !== reportedFile)!;
    expect(sink[0]!.message).toContain(`${other.file}:4:9`);
    expect(sink[0]!.message).toMatch(/rename one of the two runtimes/);
    // the same verdict whatever order the runtimes come in
    const again: Diagnostic[] = [];
    checkGitopsNames([...runtimes].reverse(), again);
    expect(again).toEqual(sink);
  });

  describe('through the built CLI', () => {
    const fx = FleetFixture.example();
    afterAll(() => fx.cleanup());

    it('refuses the fleet at the later runtime file, exit 1, and accepts it once one is renamed', () => {
      const template = fx.read('runtimes/acme-eu-dev-1.yaml');
      const runtime = (name: string, n: number): string =>
        template
          .replace('name: acme-eu-dev-1', `name: ${name}`)
          .replace('runtimeID: 1d2c3b4a-5e6f-4a7b-8c9d-0e1f2a3b4c63', `runtimeID: 1d2c3b4a-5e6f-4a7b-8c9d-0e1f2a3b4c${String(70 + n)}`)
          .replace('name: c-1d2c3b4', `name: c-1d2c3${String(70 + n)}`);
      fx.write(`runtimes/${a}.yaml`, runtime(a, 1)).write(`runtimes/${b}.yaml`, runtime(b, 2));
      const r = fx.runBinary(['validate']);
      expect(r.code, r.stderr).toBe(1);
      const [first, second] = [a, b].sort();
      expect(r.stderr).toMatch(new RegExp(`^fleet/runtimes/${second}\\.yaml:5:9: error at metadata\\.name: runtime "${second}" would get the Flux Kustomization and Argo CD Application name ".*", which runtime "${first}" \\(fleet/runtimes/${first}\\.yaml:5:9\\) already gets: .*\\[E_GITOPS_NAME_COLLISION\\]$`, 'm'));
      fx.remove(`runtimes/${b}.yaml`).write(`runtimes/x${b.slice(1)}.yaml`, runtime(`x${b.slice(1)}`, 2));
      const ok = fx.runBinary(['validate']);
      expect(ok.stderr).not.toContain('E_GITOPS_NAME_COLLISION');
      expect(ok.code, ok.stderr).toBe(0);
    });
  });
});
