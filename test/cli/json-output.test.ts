// --output json through the built binary: every command has -o/--output with json; whenever the
// command line parses, stdout holds exactly one JSON document, which schemas/output/<command>.schema.json
// accepts (ajv, strict), on success and on each kind of failure; usage errors (exit 2) print none.

import * as fs from 'node:fs';
import * as path from 'node:path';
import Ajv, { type ValidateFunction } from 'ajv';
import type { Command } from 'commander';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/cli/main';
import { FleetFixture, NOW, REPO } from '../helpers/fleet-fixture';

const SCHEMAS = path.join(REPO, 'schemas/output');

function commandPaths(cmd: Command, prefix: string[] = []): string[][] {
  return cmd.commands.flatMap((c) => (c.commands.length > 0 ? commandPaths(c, [...prefix, c.name()]) : [[...prefix, c.name()]]));
}

/** The schema file of a command: its path joined by '-' (apply garden: apply-garden); `new runtime` is `new`. */
const schemaName = (words: readonly string[]): string => (words[0] === 'new' ? 'new' : words.join('-'));

const ajv = new Ajv({ strict: true, allErrors: true });
for (const f of fs.readdirSync(SCHEMAS)) ajv.addSchema(JSON.parse(fs.readFileSync(path.join(SCHEMAS, f), 'utf8')));
const validator = (name: string): ValidateFunction => ajv.getSchema(`https://kyma-fleet.dev/schemas/output/${name}.schema.json`)!;

let fx: FleetFixture;
const program = await buildProgram({ out: () => {}, err: () => {}, env: {}, cwd: REPO }, () => {});

beforeAll(() => {
  fx = FleetFixture.example();
  fs.cpSync(path.join(REPO, 'fleet-status-sample'), path.join(fx.dir, 'dump'), { recursive: true });
  // A folder where the kubeconfig file should be: the OS refuses to read it (EISDIR), also as root.
  fs.mkdirSync(path.join(fx.dir, 'unreadable.yaml'));
  fs.mkdirSync(path.join(fx.dir, 'not-empty'));
  fs.writeFileSync(path.join(fx.dir, 'not-empty/x'), '');
});
afterAll(() => fx.cleanup());

/**
 * Commands added this session by other engineers whose JSON documents have no schema here yet (they
 * have -o json; the schema, the cases below and the failure documents are theirs to add). The list
 * may only shrink.
 */
const NO_SCHEMA_YET: Readonly<Record<string, string>> = {};

describe('--output json', () => {
  it('every command has -o/--output with json, and a schema; every schema belongs to a command', () => {
    const names = new Set<string>();
    for (const words of commandPaths(program)) {
      const cmd = words.reduce<Command>((c, w) => c.commands.find((x) => x.name() === w)!, program);
      const output = cmd.options.find((o) => o.long === '--output');
      expect(output?.short, words.join(' ')).toBe('-o');
      expect(output?.argChoices, words.join(' ')).toContain('json');
      if (words.join(' ') in NO_SCHEMA_YET) continue;
      names.add(schemaName(words));
      expect(validator(schemaName(words)), `schemas/output/${schemaName(words)}.schema.json`).toBeDefined();
    }
    const files = fs.readdirSync(SCHEMAS).map((f) => f.replace(/\.schema\.json$/, ''));
    expect(files.filter((f) => f !== 'common' && !names.has(f))).toEqual([]);
  });

  // [command words, args, expected exit code, what the case shows]; run in order in one workspace.
  const cases: Array<[string[], string[], number, string]> = [
    [['validate'], ['validate', '--now', NOW, '-o', 'json'], 0, 'a valid fleet'],
    [['synth'], ['synth', '--now', NOW, '-o', 'json'], 0, 'written'],
    [['synth'], ['synth', '--now', NOW, '-o', 'json'], 0, 'up to date'],
    [['synth'], ['synth', '--check', '--now', NOW, '-o', 'json'], 0, '--check, up to date'],
    [['synth'], ['synth', '--shard', '1/2', '--now', NOW, '-o', 'json'], 0, 'a shard'],
    [['synth'], ['synth', '--shard', '2/2', '--now', NOW, '-o', 'json'], 0, 'the other shard'],
    [['merge'], ['merge', 'dist.shard-1-of-2', 'dist.shard-2-of-2', '--out', 'merged', '--now', NOW, '-o', 'json'], 0, 'merged'],
    [['explain'], ['explain', 'acme-eu-prod-2', '--now', NOW, '-o', 'json'], 0, 'a runtime'],
    [['diff'], ['diff', '--now', NOW, '-o', 'json'], 0, 'no changes'],
    [['diff'], ['diff', '--now', NOW, '-o', 'json', '--out', 'dist.shard-1-of-2', '--exit-code'], 1, 'changes, --exit-code'],
    [['diff'], ['diff', '--now', NOW, '-o', 'json', '--out', 'dist.shard-1-of-2', '--fail-on', 'runtime-added'], 1, 'a class --fail-on names'],
    [['diff'], ['diff', '--now', NOW, '-o', 'json', '--out', 'dist.shard-1-of-2', '--fail-on', 'destructive'], 0, 'changes, none of the classes --fail-on names'],
    [['status'], ['status', '--from', 'dump', '--write', 'status-out', '--now', NOW, '-o', 'json'], 0, 'from dumps'],
    [['status'], ['status', '--kubeconfig', 'unreadable.yaml', '--kcp-context', 'a', '--garden-context', 'b', '--now', NOW, '-o', 'json'], 5, 'an unreadable kubeconfig'],
    [['status'], ['status', '--from', 'no-such-dump', '--now', NOW, '-o', 'json'], 5, 'an unreadable dump folder'],
    [['apply', 'garden'], ['apply', 'garden', '--kubeconfig', 'unreadable.yaml', '--garden-context', 'g', '--now', NOW, '-o', 'json'], 5, 'an unreadable kubeconfig'],
    [['init'], ['init', 'new-repo', '-o', 'json'], 0, 'a new repository'],
    [['init'], ['init', 'not-empty', '-o', 'json'], 1, 'a folder that is not empty'],
    [['new', 'runtime'], ['new', 'runtime', 'acme-new-1', ...identity('5b0c1f3e-2d4a-4f6b-8c7d-9e0f1a2b3c4d'), '--now', NOW, '-o', 'json'], 0, 'a new runtime'],
    [['new', 'runtime'], ['new', 'runtime', 'acme-new-1', ...identity('6b0c1f3e-2d4a-4f6b-8c7d-9e0f1a2b3c4d'), '--now', NOW, '-o', 'json'], 1, 'a name that is taken'],
    [['version'], ['version', '-o', 'json'], 0, 'versions'],
    [['completion'], ['completion', 'fish', '-o', 'json'], 0, 'a script'],
    // Rollout rings on a copy of the fleet with rings (made below, before the first of these).
    [['rollout', 'status'], ['rollout', 'status', '--fleet', 'rings', '--now', NOW, '-o', 'json'], 0, 'not started'],
    [['rollout', 'start'], ['rollout', 'start', '--fleet', 'rings', '--now', NOW, '-o', 'json'], 0, 'the first start'],
    [['rollout', 'start'], ['rollout', 'start', '--fleet', 'rings', '--now', NOW, '-o', 'json'], 0, 'nothing to start'],
    [['rollout', 'advance'], ['rollout', 'advance', '--fleet', 'rings', '--from', 'dump', '--now', NOW, '-o', 'json'], 0, 'nothing to advance'],
    [['rollout', 'pause'], ['rollout', 'pause', '--fleet', 'rings', '--now', NOW, '-o', 'json'], 0, 'paused'],
    [['rollout', 'advance'], ['rollout', 'advance', '--fleet', 'rings', '--from', 'dump', '--now', NOW, '-o', 'json'], 6, 'paused: nothing advanced'],
    [['rollout', 'resume'], ['rollout', 'resume', '--fleet', 'rings', '--now', NOW, '-o', 'json'], 0, 'resumed'],
    [['rollout', 'abort'], ['rollout', 'abort', '--fleet', 'rings', '--now', NOW, '-o', 'json'], 0, 'nothing to abort'],
    [['rollout', 'status'], ['rollout', 'status', '--fleet', 'rings', '--now', NOW, '-o', 'json'], 0, 'started'],
    [['rollout', 'start'], ['rollout', 'start', '--now', NOW, '-o', 'json'], 1, 'a fleet without rings'],
    // The fleet broken from here on.
    [['validate'], ['validate', '--now', NOW, '-o', 'json', '--fleet', 'broken'], 1, 'an invalid fleet'],
    [['synth'], ['synth', '--now', NOW, '-o', 'json', '--fleet', 'broken'], 1, 'an invalid fleet'],
    [['synth'], ['synth', '--check', '--now', NOW, '-o', 'json', '--fleet', 'broken'], 1, '--check, an invalid fleet'],
    [['explain'], ['explain', 'x', '--now', NOW, '-o', 'json', '--fleet', 'missing'], 1, 'a fleet that cannot be loaded'],
    [['diff'], ['diff', '--now', NOW, '-o', 'json', '--fleet', 'broken'], 1, 'an invalid fleet'],
    [['status'], ['status', '--from', 'dump', '--now', NOW, '-o', 'json', '--fleet', 'broken'], 1, 'an invalid fleet'],
    [['apply', 'garden'], ['apply', 'garden', '--kubeconfig', 'dump/README.md', '--garden-context', 'g', '--now', NOW, '-o', 'json', '--fleet', 'broken'], 1, 'an invalid fleet'],
    // Onboarding (docs/onboarding.md): the sample dump's KCP has one Runtime CR the fleet lacks, no
    // ModuleReleaseMeta and no FalcoProfile; onboard-dump (made below) has both. Written into a copy.
    [['import', 'runtimes'], ['import', 'runtimes', '--from', 'dump', '--project', 'kyma-prod', '--dry-run', '--now', NOW, '-o', 'json'], 0, 'a dry run'],
    [['import', 'runtimes'], ['import', 'runtimes', '--from', 'dump', '--project', 'kyma-prod', '--strict', '--now', NOW, '-o', 'json', '--fleet', 'onboard'], 1, '--strict: the fleet has a runtime (new runtime above) the KCP lacks'],
    [['import', 'runtimes'], ['import', 'runtimes', '--from', 'dump', '--project', 'kyma-prod', '--now', NOW, '-o', 'json', '--fleet', 'onboard'], 0, 'written'],
    [['import', 'runtimes'], ['import', 'runtimes', '--from', 'no-such-dump', '--project', 'kyma-prod', '--now', NOW, '-o', 'json'], 5, 'an unreadable dump folder'],
    [['import', 'runtimes'], ['import', 'runtimes', '--kubeconfig', 'unreadable.yaml', '--project', 'kyma-prod', '--now', NOW, '-o', 'json'], 5, 'an unreadable kubeconfig'],
    [['import', 'runtimes'], ['import', 'runtimes', '--from', 'dump', '--project', 'kyma-prod', '--now', NOW, '-o', 'json', '--fleet', 'broken'], 1, 'an invalid fleet'],
    [['catalog', 'refresh'], ['catalog', 'refresh', '--from', 'onboard-dump', '--fleet', 'onboard', '-o', 'json'], 0, 'written'],
    [['catalog', 'refresh'], ['catalog', 'refresh', '--from', 'dump', '--fleet', 'onboard', '-o', 'json'], 1, 'no ModuleReleaseMeta'],
    [['catalog', 'refresh'], ['catalog', 'refresh', '--from', 'no-such-dump', '--fleet', 'onboard', '-o', 'json'], 5, 'an unreadable dump folder'],
    [['profile', 'refresh'], ['profile', 'refresh', '--from', 'onboard-dump', '--fleet', 'onboard', '--now', NOW, '-o', 'json'], 0, 'written'],
    [['profile', 'refresh'], ['profile', 'refresh', '--from', 'dump', '--fleet', 'onboard', '--now', NOW, '-o', 'json'], 1, 'no FalcoProfile in the Garden'],
  ];

  it.each(cases)('%j prints one document its schema accepts: %j', (words, args, code, _what) => {
    if (args.includes('rings') && !fs.existsSync(path.join(fx.dir, 'rings'))) {
      fs.cpSync(fx.fleetDir, path.join(fx.dir, 'rings'), { recursive: true });
      const file = path.join(fx.dir, 'rings/fleet.yaml');
      const rollout = '  rollout:\n    rings:\n      - name: canary\n        selector: {matchLabels: {tier: sandbox}}\n        bake: 24h\n';
      fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace('  kcpNamespace: kcp-system\n', `  kcpNamespace: kcp-system\n${rollout}`));
    }
    if (args.includes('broken') && !fs.existsSync(path.join(fx.dir, 'broken'))) {
      fs.cpSync(fx.fleetDir, path.join(fx.dir, 'broken'), { recursive: true });
      const file = path.join(fx.dir, 'broken/runtimes/acme-eu-prod-2.yaml');
      fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace('upstream: docker.io', 'upstream: https://docker.io'));
    }
    if ((args.includes('onboard') || args.includes('onboard-dump')) && !fs.existsSync(path.join(fx.dir, 'onboard-dump'))) {
      fs.cpSync(fx.fleetDir, path.join(fx.dir, 'onboard'), { recursive: true });
      fs.mkdirSync(path.join(fx.dir, 'onboard-dump/kcp'), { recursive: true });
      fs.mkdirSync(path.join(fx.dir, 'onboard-dump/garden'), { recursive: true });
      const mrm = (name: string) => `- apiVersion: operator.kyma-project.io/v1beta2\n  kind: ModuleReleaseMeta\n  metadata: {name: ${name}, namespace: kcp-system}\n  spec: {moduleName: ${name}, channels: [{channel: regular, version: 1.0.0}]}\n`;
      fs.writeFileSync(path.join(fx.dir, 'onboard-dump/kcp/mrm.yaml'), `apiVersion: v1\nkind: List\nitems:\n${['api-gateway', 'istio', 'btp-operator'].map(mrm).join('')}`);
      fs.writeFileSync(
        path.join(fx.dir, 'onboard-dump/garden/falco.yaml'),
        'apiVersion: falco.gardener.cloud/v1alpha1\nkind: FalcoProfile\nmetadata: {name: falco}\nspec: {versions: {falco: [{version: 0.42.1, classification: supported, rulesVersion: 0.42.1}]}}\n',
      );
    }
    const r = fx.runBinary(args);
    expect(r.stderr, 'nothing on stderr with --output json').toBe('');
    expect(r.code).toBe(code);
    const doc = JSON.parse(r.stdout) as { ok?: boolean; exitCode?: number };
    const validate = validator(schemaName(words));
    expect(validate(doc) ? [] : validate.errors, r.stdout.slice(0, 2000)).toEqual([]);
    if (doc.ok !== undefined) expect(doc.ok).toBe(code === 0);
    if (doc.exitCode !== undefined) expect(doc.exitCode).toBe(code);
  });

  it.each([
    [['validate', '-o', 'yaml']],
    [['explain', 'no-such-runtime', '--now', NOW, '-o', 'json']],
    [['new', 'runtime', 'x', '-o', 'json']],
    [['status', '--from', 'dump', '--kcp-context', 'k', '-o', 'json']],
  ])('a usage error prints no document (exit 2): %j', (args) => {
    const r = fx.runBinary(args);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^error: /);
  });

  it('the schemas are strict: a document with a field they do not know is refused', () => {
    const r = fx.runBinary(['validate', '--now', NOW, '-o', 'json']);
    const doc = { ...JSON.parse(r.stdout), extra: 1 };
    expect(validator('validate')(doc)).toBe(false);
  });
});

function identity(runtimeID: string): string[] {
  return [
    '--runtime-id', runtimeID,
    '--global-account', '0c5e8a3d-7f21-4b6a-9d44-51c2e8f0a1b7',
    '--subaccount', '6a2d4f10-1e3b-4c7d-9f58-0b9e2c7d4a11',
    '--region', 'eu-central-1',
    '--shoot', `c-${runtimeID.slice(0, 7)}`,
    '--project', 'kyma-prod',
  ];
}
