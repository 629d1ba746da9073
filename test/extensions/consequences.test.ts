// Each extension's consequence rules (the plug-in field `consequences`, issue 29) on hand-made
// sides, for what the example fleet cannot show through the CLI: a cache's volume size or storage
// class changed (validation refuses it in place, so it only reaches the review from a render that
// was not checked against its base: it counts as a removal and an addition), sizes that are the
// same quantity spelt differently, Lakom's scopes in order, trusted keys added versus replaced, and
// Falco's rules files while its Shoot entry is untouched. Every class an extension returns is one it
// declares, with a unique id (consequenceClasses refuses a clash).

import { describe, expect, it } from 'vitest';
import { EXTENSIONS } from '../../src/extensions';
import { falcoConsequences } from '../../src/extensions/falco/consequences';
import { lakomConsequences } from '../../src/extensions/lakom/consequences';
import { registryCacheConsequences } from '../../src/extensions/registry-cache/consequences';
import type { ConsequenceRules, RenderedSide } from '../../src/extensions/types';
import { consequenceClasses } from '../../src/render/consequences';

type Rec = Record<string, unknown>;
const side = (shootEntry?: Rec, skrConfig: Rec[] = []): RenderedSide => ({ ...(shootEntry ? { shootEntry } : {}), shootResources: [], skrConfig });
const untouched = side();

const caches = (...cs: Rec[]): Rec => ({ type: 'registry-cache', providerConfig: { kind: 'RegistryConfig', caches: cs } });
const falco = (pc: Rec): Rec => ({ type: 'shoot-falco-service', providerConfig: { kind: 'FalcoServiceConfig', ...pc } });
const lakom = (pc: Rec = {}): Rec => ({ type: 'shoot-lakom-service', providerConfig: { kind: 'LakomConfig', ...pc } });
const rulesMap = (name: string, text: string): Rec => ({ kind: 'ConfigMap', metadata: { name, namespace: 'kube-system' }, data: { 'r.yaml': text } });

const CASES: Array<[string, ConsequenceRules, RenderedSide, RenderedSide, string[]]> = [
  // registry-cache
  ['a cache removed', registryCacheConsequences, side(caches({ upstream: 'a.io' }, { upstream: 'b.io' })), side(caches({ upstream: 'a.io' })), ['cache-removed']],
  ['a cache added', registryCacheConsequences, side(caches({ upstream: 'a.io' })), side(caches({ upstream: 'a.io' }, { upstream: 'b.io' })), ['cache-added']],
  ['the extension disabled: every cache removed', registryCacheConsequences, side(caches({ upstream: 'a.io' })), side({ type: 'registry-cache', disabled: true }), ['cache-removed']],
  ['the entry gone: every cache removed', registryCacheConsequences, side(caches({ upstream: 'a.io' })), side(), ['cache-removed']],
  ['a volume size changed: removed and added', registryCacheConsequences, side(caches({ upstream: 'a.io', volume: { size: '20Gi' } })), side(caches({ upstream: 'a.io', volume: { size: '50Gi' } })), ['cache-removed', 'cache-added']],
  ['a volume size set where none was', registryCacheConsequences, side(caches({ upstream: 'a.io' })), side(caches({ upstream: 'a.io', volume: { size: '10Gi' } })), ['cache-removed', 'cache-added']],
  ['a storage class changed: removed and added', registryCacheConsequences, side(caches({ upstream: 'a.io', volume: { size: '20Gi', storageClassName: 'x' } })), side(caches({ upstream: 'a.io', volume: { size: '20Gi', storageClassName: 'y' } })), ['cache-removed', 'cache-added']],
  ['the same size spelt another way: nothing', registryCacheConsequences, side(caches({ upstream: 'a.io', volume: { size: '20Gi' } })), side(caches({ upstream: 'a.io', volume: { size: '20480Mi' } })), []],
  ['a TTL or credentials changed: nothing of its own', registryCacheConsequences, side(caches({ upstream: 'a.io', garbageCollection: { ttl: '168h' } })), side(caches({ upstream: 'a.io', garbageCollection: { ttl: '0s' }, secretReferenceName: 's' })), []],
  ['caches reordered: nothing', registryCacheConsequences, side(caches({ upstream: 'a.io' }, { upstream: 'b.io' })), side(caches({ upstream: 'b.io' }, { upstream: 'a.io' })), []],
  ['untouched: nothing', registryCacheConsequences, untouched, untouched, []],
  // Falco
  ['enabled', falcoConsequences, side(), side(falco({})), ['node-agent-added']],
  ['enabled where it was disabled', falcoConsequences, side({ type: 'shoot-falco-service', disabled: true }), side(falco({})), ['node-agent-added']],
  ['disabled', falcoConsequences, side(falco({})), side({ type: 'shoot-falco-service', disabled: true }), ['node-agent-removed']],
  ['another version', falcoConsequences, side(falco({ falcoVersion: '0.41.3' })), side(falco({ falcoVersion: '0.42.1' })), ['node-agent-updated']],
  ['destinations reordered: nothing', falcoConsequences, side(falco({ destinations: [{ name: 'a' }, { name: 'b' }] })), side(falco({ destinations: [{ name: 'b' }, { name: 'a' }] })), []],
  ['a rules file changed, the Shoot untouched', falcoConsequences, side(undefined, [rulesMap('falco-rules-x', 'a')]), side(undefined, [rulesMap('falco-rules-x', 'b')]), ['node-agent-updated']],
  ['a ConfigMap that is no rules file changed: nothing', falcoConsequences, side(undefined, [rulesMap('team-rules', 'a')]), side(undefined, [rulesMap('team-rules', 'b')]), []],
  ['disabled and its rules files gone: removed only', falcoConsequences, side(falco({}), [rulesMap('falco-rules-x', 'a')]), side({ type: 'shoot-falco-service', disabled: true }), ['node-agent-removed']],
  ['still disabled, the Shoot touched for another reason: nothing', falcoConsequences, side({ type: 'shoot-falco-service', disabled: true }), side({ type: 'shoot-falco-service', disabled: true }), []],
  // Lakom
  ['scope KubeSystemManagedByGardener -> KubeSystem', lakomConsequences, side(lakom({ scope: 'KubeSystemManagedByGardener' })), side(lakom({ scope: 'KubeSystem' })), ['enforcement-widened']],
  ['scope KubeSystem -> Cluster', lakomConsequences, side(lakom({ scope: 'KubeSystem' })), side(lakom({ scope: 'Cluster' })), ['enforcement-widened']],
  ['scope Cluster -> unset (the landscape default)', lakomConsequences, side(lakom({ scope: 'Cluster' })), side(lakom()), ['enforcement-narrowed']],
  ['unset scope == KubeSystemManagedByGardener: nothing', lakomConsequences, side(lakom()), side(lakom({ scope: 'KubeSystemManagedByGardener' })), []],
  ['no entry (the landscape) -> Cluster', lakomConsequences, side(), side(lakom({ scope: 'Cluster' })), ['enforcement-widened']],
  ['no entry (the landscape, assumed on with its default) -> on without a scope: nothing', lakomConsequences, side(), side(lakom()), []],
  ['turned off', lakomConsequences, side(lakom({ scope: 'KubeSystem' })), side({ type: 'shoot-lakom-service', disabled: true }), ['enforcement-narrowed']],
  ['turned on again', lakomConsequences, side({ type: 'shoot-lakom-service', disabled: true }), side(lakom()), ['enforcement-widened']],
  ['trusted keys added: nothing (they add to the landscape\'s)', lakomConsequences, side(lakom()), side(lakom({ trustedKeysResourceName: 'k' })), []],
  ['trusted keys replaced', lakomConsequences, side(lakom({ trustedKeysResourceName: 'k' })), side(lakom({ trustedKeysResourceName: 'k2' })), ['trusted-keys-changed']],
  ['trusted keys dropped', lakomConsequences, side(lakom({ trustedKeysResourceName: 'k' })), side(lakom()), ['trusted-keys-changed']],
  ['trusted keys gone with Lakom turned off: narrowed only', lakomConsequences, side(lakom({ trustedKeysResourceName: 'k' })), side({ type: 'shoot-lakom-service', disabled: true }), ['enforcement-narrowed']],
];

describe("the extensions' consequence rules", () => {
  it.each(CASES)('%s', (_what, rules, before, after, expected) => {
    expect(rules.classify(before, after)).toEqual(expected);
  });

  it('every extension declares its rules, every class once, with a kebab-case id and a sentence', () => {
    for (const e of EXTENSIONS) expect(e.consequences, e.name).toBeDefined();
    const ids = consequenceClasses().map((c) => c.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const c of consequenceClasses()) expect(c.description.length, c.id).toBeGreaterThan(40);
  });

  it('a class id declared twice, or a severity used as an id, is refused', () => {
    const twice = { ...EXTENSIONS[0]!, consequences: { classes: [{ id: 'shoot-reconcile', label: 'x', severity: 'routine' as const, description: 'x' }], classify: () => [] } };
    expect(() => consequenceClasses([twice])).toThrow(/"shoot-reconcile" is declared twice/);
    const severity = { ...EXTENSIONS[0]!, consequences: { classes: [{ id: 'destructive', label: 'x', severity: 'routine' as const, description: 'x' }], classify: () => [] } };
    expect(() => consequenceClasses([severity])).toThrow(/not a kebab-case id, or a severity name/);
  });

  it('every class each extension can return is exercised above', () => {
    for (const rules of [registryCacheConsequences, falcoConsequences, lakomConsequences]) {
      const seen = new Set(CASES.filter((c) => c[1] === rules).flatMap((c) => c[4]));
      expect([...seen].sort()).toEqual(rules.classes.map((c) => c.id).sort());
    }
  });
});
