// No accepted-but-unused options: every option of every command is read by the command's action.
// The test builds the real program, makes each command's option values a Proxy that records which
// options the action reads, runs every command in-process on a copy of the example fleet (the
// invocations below), and requires that each declared option was read by at least one of them.
// An action that enumerates its options (a spread) fails the test: that hides which are used.

import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Command } from 'commander';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/cli/main';
import { parse } from 'yaml';
import { FleetFixture, NOW } from '../helpers/fleet-fixture';
import { falcoProfile, moduleReleaseMetas, writeDump } from '../onboard/kcp-dump';

/** Invocations per command path (without the program name); together they must read every option. */
const INVOCATIONS: Readonly<Record<string, readonly string[][]>> = {
  validate: [['validate', '--now', NOW, '--out', 'dist', '--no-cache', '--allow-empty', '-o', 'json']],
  synth: [['synth', '--now', NOW, '--allow-mass-removal', '--allow-empty', '--no-cache', '-o', 'json']],
  merge: [['merge', 'dist.shard-1-of-1', '--out', 'merged', '--allow-mass-removal', '--now', NOW, '-o', 'json']],
  diff: [['diff', '--now', NOW, '--no-cache', '-o', 'json']],
  check: [['check', '--out', 'dist', '--base', 'dist', '--markdown', 'check.md', '--output-file', 'check.diff', '--fail-on', 'destructive', '--allow-empty', '--now', NOW, '--no-cache', '-o', 'json']],
  explain: [['explain', 'acme-eu-prod-2', '--now', NOW, '--no-cache', '-o', 'json']],
  status: [['status', '--from', 'dump', '--write', 'status-out', '--html', '--now', NOW, '-o', 'json']],
  'apply garden': [
    // A server that refuses connections: the run gets to the cluster and fails there (exit 5).
    ['apply', 'garden', '--kubeconfig', 'refusing.yaml', '--garden-context', 'garden', '--allow-exec', '--concurrency', '2', '--timeout', '1', '--allow-mass-change', '--dry-run', '--write', 'st', '--now', NOW, '--override-window', 'an emergency', '-o', 'json'],
  ],
  'register argocd': [
    ['register', 'argocd', '--kubeconfig', 'refusing.yaml', '--kcp-context', 'garden', '--argocd-context', 'garden', '--allow-exec', '--concurrency', '2', '--timeout', '1', '--dry-run', '--now', NOW, '-o', 'json'],
  ],
  init: [['init', 'new-repo', '--name', 'acme', '--kyma-fleet-from', 'kyma-fleet.tgz', '-o', 'json']],
  'new runtime': [
    ['new', 'runtime', 'acme-new-1', '--runtime-id', '5b0c1f3e-2d4a-4f6b-8c7d-9e0f1a2b3c4d', '--global-account', '0c5e8a3d-7f21-4b6a-9d44-51c2e8f0a1b7', '--subaccount', '6a2d4f10-1e3b-4c7d-9f58-0b9e2c7d4a11', '--region', 'eu-central-1', '--shoot', 'c-5b0c1f3', '--project', 'kyma-prod', '--label', 'tier=production', '--out', 'dist', '--now', NOW, '--no-cache', '-o', 'json'],
  ],
  version: [['version', '-o', 'json']],
  'import runtimes': [
    ['import', 'runtimes', '--from', 'dump', '--project', 'kyma-prod', '--label-from', 'plan=plan', '--name-template', '{plan}-{shoot}', '--dry-run', '--strict', '--now', NOW, '-o', 'json'],
    ['import', 'runtimes', '--kubeconfig', 'refusing.yaml', '--kcp-context', 'garden', '--allow-exec', '--timeout', '1', '--project', 'kyma-prod', '--dry-run', '--now', NOW, '-o', 'json'],
  ],
  'catalog refresh': [
    ['catalog', 'refresh', '--from', 'onboard-dump', '-o', 'json'],
    ['catalog', 'refresh', '--kubeconfig', 'refusing.yaml', '--kcp-context', 'garden', '--allow-exec', '--timeout', '1', '-o', 'json'],
  ],
  'profile refresh': [
    ['profile', 'refresh', '--from', 'onboard-dump', '--dry-run', '--now', NOW, '-o', 'json'],
    ['profile', 'refresh', '--kubeconfig', 'refusing.yaml', '--garden-context', 'garden', '--allow-exec', '--timeout', '1', '--dry-run', '--now', NOW, '-o', 'json'],
  ],
  completion: [['completion', 'bash', '-o', 'json']],
  // The example fleet declares no rollout rings: each command reads its options, then stops (exit 1).
  'rollout start': [['rollout', 'start', '--fleet', 'fleet', '--now', NOW, '--override-window', 'an emergency', '-o', 'json']],
  'rollout status': [['rollout', 'status', '--fleet', 'fleet', '--now', NOW, '-o', 'json']],
  'rollout advance': [
    ['rollout', 'advance', '--from', 'dump', '--write', 'st', '--now', NOW, '--override-window', 'an emergency', '-o', 'json'],
    ['rollout', 'advance', '--kubeconfig', 'refusing.yaml', '--kcp-context', 'garden', '--garden-context', 'garden', '--allow-exec', '--concurrency', '2', '--timeout', '1', '--now', NOW, '-o', 'json'],
  ],
  'rollout pause': [['rollout', 'pause', '--fleet', 'fleet', '--now', NOW, '-o', 'json']],
  'rollout resume': [['rollout', 'resume', '--fleet', 'fleet', '--now', NOW, '-o', 'json']],
  'rollout abort': [['rollout', 'abort', '--fleet', 'fleet', '--now', NOW, '-o', 'json']],
};

/** Runs first, so the invocations above find dist/ and the shard folder. */
const SETUP: readonly string[][] = [
  ['synth', '--now', NOW],
  ['synth', '--shard', '1/1', '--now', NOW],
];

function leafCommands(cmd: Command, prefix: string[] = []): Array<{ path: string; cmd: Command }> {
  return cmd.commands.flatMap((c) => (c.commands.length > 0 ? leafCommands(c, [...prefix, c.name()]) : [{ path: [...prefix, c.name()].join(' '), cmd: c }]));
}

let fx: FleetFixture;
beforeAll(() => {
  fx = FleetFixture.example();
  fs.cpSync(path.join(__dirname, '../../fleet-status-sample'), path.join(fx.dir, 'dump'), { recursive: true });
  // ModuleReleaseMetas and the FalcoProfile of the example fleet's snapshot, for catalog and profile refresh.
  const profile = parse(fs.readFileSync(path.join(fx.fleetDir, 'profiles/falco-profile.yaml'), 'utf8')) as { spec: { versions: { falco: Array<{ version: string; classification: string; expirationDate?: string }> } } };
  writeDump(path.join(fx.dir, 'onboard-dump'), { metas: moduleReleaseMetas(), garden: [falcoProfile(profile.spec.versions.falco)] });
  fs.writeFileSync(
    path.join(fx.dir, 'refusing.yaml'),
    'apiVersion: v1\nkind: Config\nclusters: [{name: g, cluster: {server: "https://127.0.0.1:1"}}]\nusers: [{name: u, user: {token: t}}]\ncontexts: [{name: garden, context: {cluster: g, user: u}}]\ncurrent-context: garden\n',
  );
});
afterAll(() => fx.cleanup());

describe('every option is read', () => {
  it('by the action of its command, for every command', async () => {
    const read = new Map<Command, Set<string>>();
    const enumerated = new Set<string>();
    const run = async (args: readonly string[]): Promise<number> => {
      let code = 0;
      const program = await buildProgram({ out: () => {}, err: () => {}, env: {}, cwd: fx.dir }, (c) => {
        code = c;
      });
      const leaves = leafCommands(program);
      for (const { path: name, cmd } of leaves) {
        const original = cmd.opts.bind(cmd);
        (cmd as { opts: () => Record<string, unknown> }).opts = () =>
          new Proxy(original(), {
            get(target, key, receiver) {
              if (typeof key === 'string') read.get(template(name))!.add(key);
              return Reflect.get(target, key, receiver);
            },
            ownKeys(target) {
              enumerated.add(name);
              return Reflect.ownKeys(target);
            },
          });
      }
      try {
        await program.parseAsync(['node', 'kyma-fleet', ...args]);
      } catch (err) {
        throw new Error(`${args.join(' ')}: ${String(err)}`);
      }
      return code;
    };
    // The declared options come from one program; the reads from fresh programs per invocation.
    const declared = leafCommands(await buildProgram({ out: () => {}, err: () => {}, env: {}, cwd: fx.dir }, () => {}));
    const templates = new Map(declared.map((d) => [d.path, d.cmd]));
    const template = (name: string): Command => templates.get(name)!;
    for (const d of declared) read.set(d.cmd, new Set());

    for (const args of SETUP) expect(await run(args), args.join(' ')).toBe(0);
    const missing = declared.map((d) => d.path).filter((p) => INVOCATIONS[p] === undefined);
    expect(missing, 'commands without an invocation in test/cli/options-read.test.ts').toEqual([]);
    for (const [name, list] of Object.entries(INVOCATIONS)) {
      if (!templates.has(name)) continue; // a command another engineer has not registered yet
      for (const args of list) expect(await run(args), `${name}: ${args.join(' ')}`).not.toBe(70);
    }

    expect([...enumerated], 'actions that enumerate their options').toEqual([]);
    const unread = declared.flatMap((d) =>
      d.cmd.options.filter((o) => !read.get(d.cmd)!.has(o.attributeName())).map((o) => `${d.path} ${o.long}`),
    );
    expect(unread, 'options accepted but never read').toEqual([]);
  });
});
