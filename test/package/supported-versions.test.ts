// The supported versions that `kyma-fleet version` prints (src/lib/supported-versions.ts) are the
// ones the tests really use: the test cluster's Kubernetes (test/cluster/tools.ts), the Flux
// modules of the apply tests (test/flux-apply/go.mod), the oracle's pins (test/oracle/*/go.mod and
// the README), the Flux and Argo CD APIs of the rendered dist/ and the fields the CRDs have.
// Through the real binary, too.

import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import { EXTENSIONS } from '../../src/extensions';
import { supportedVersions } from '../../src/lib/supported-versions';
import { ETCD_VERSION, KUBERNETES_VERSION } from '../cluster/tools';
import { BIN, REPO } from '../helpers/fleet-fixture';

/** The required module versions of a go.mod; `direct` without the ones marked `// indirect`. */
function goModRequires(rel: string, only: 'all' | 'direct' = 'all'): Map<string, string> {
  const text = fs.readFileSync(path.join(REPO, rel), 'utf8');
  const out = new Map<string, string>();
  for (const m of text.matchAll(/^\s*(?:require\s+)?([a-z0-9.-]+\.[a-z]+\/\S+)\s+(v\S+)(.*)$/gm)) {
    if (only === 'direct' && m[3]!.includes('// indirect')) continue;
    out.set(m[1]!, m[2]!);
  }
  return out;
}

type Schema = { properties?: Record<string, Schema>; items?: Schema };

/** The openAPIV3Schema of the served version `version` of a CRD in imports/crds. */
function crdSchema(file: string, version: string): Schema {
  const crd = parse(fs.readFileSync(path.join(REPO, 'imports/crds', file), 'utf8')) as { spec: { versions: { name: string; served: boolean; schema: { openAPIV3Schema: Schema } }[] } };
  const v = crd.spec.versions.find((x) => x.name === version);
  expect(v?.served, `${file} serves ${version}`).toBe(true);
  return v!.schema.openAPIV3Schema;
}

/** Whether a dotted field path (`a.b[].c`) exists in a structural schema. */
function hasField(schema: Schema, field: string): boolean {
  let node: Schema | undefined = schema;
  for (const part of field.split('.')) {
    const list = part.endsWith('[]');
    node = node?.properties?.[list ? part.slice(0, -2) : part];
    if (list) node = node?.items;
    if (node === undefined) return false;
  }
  return true;
}

const SUPPORTED_VERSIONS = supportedVersions(EXTENSIONS);
const readme = fs.readFileSync(path.join(REPO, 'README.md'), 'utf8');
const supportedSection = /^## Supported versions\n([\s\S]*?)(?=^## )/m.exec(readme)?.[1] ?? '';

describe('supported versions', () => {
  it('Kubernetes: the test cluster\'s release', () => {
    expect(SUPPORTED_VERSIONS.kubernetes.testedWith).toBe(KUBERNETES_VERSION);
    expect(SUPPORTED_VERSIONS.kubernetes.etcd).toBe(ETCD_VERSION);
  });

  it('Flux: every fluxcd module the apply tests require, at its version', () => {
    const mod = goModRequires('test/flux-apply/go.mod', 'direct');
    const directFlux = [...mod.keys()].filter((m) => m.startsWith('github.com/fluxcd/'));
    expect(Object.keys(SUPPORTED_VERSIONS.flux.testedWith).sort()).toEqual(directFlux.sort());
    for (const [m, v] of Object.entries(SUPPORTED_VERSIONS.flux.testedWith)) expect(mod.get(m), m).toBe(v);
  });

  it('the oracle\'s pins: each extension\'s upstream modules at the versions of its go.mod; registry-cache names both oracle programs', () => {
    expect(SUPPORTED_VERSIONS.extensions.length).toBeGreaterThan(0);
    for (const e of SUPPORTED_VERSIONS.extensions) {
      for (const pin of e.testedAgainst) {
        const mod = goModRequires(pin.goMod);
        for (const [m, v] of Object.entries(pin.modules)) expect(mod.get(m), `${e.name}: ${m} in ${pin.goMod}`).toBe(v);
      }
    }
    const rc = SUPPORTED_VERSIONS.extensions.find((e) => e.name === 'registry-cache');
    expect(rc?.testedAgainst.map((p) => p.goMod).sort()).toEqual(['test/oracle/admission/go.mod', 'test/oracle/kim/go.mod']);
    const admission = rc!.testedAgainst.find((p) => p.goMod === 'test/oracle/admission/go.mod')!.modules;
    expect(Object.keys(admission).sort()).toEqual(['github.com/gardener/gardener', 'github.com/gardener/gardener-extension-registry-cache']);
    const kim = rc!.testedAgainst.find((p) => p.goMod === 'test/oracle/kim/go.mod')!.modules;
    expect(Object.keys(kim)).toContain('github.com/kyma-project/infrastructure-manager');
  });

  it('the rendered dist/ writes exactly these Flux and Argo CD APIs, and their CRDs have the fields used', () => {
    const apis = new Set<string>();
    for (const dir of ['dist/gitops/flux', 'dist/gitops/argocd']) {
      const files = (fs.readdirSync(path.join(REPO, dir), { recursive: true }) as string[]).filter((n) => n.endsWith('.yaml') && path.basename(n) !== 'kustomization.yaml');
      for (const f of files) {
        for (const doc of parseAllDocuments(fs.readFileSync(path.join(REPO, dir, f), 'utf8'))) {
          const o = doc.toJS() as { apiVersion: string; kind: string };
          apis.add(`${o.kind} ${o.apiVersion}`);
        }
      }
    }
    // The shard Applications apply the ApplicationSets (the same API group and version).
    const generator = SUPPORTED_VERSIONS.flux.artifactGenerator;
    expect([...apis].sort()).toEqual([`Application ${SUPPORTED_VERSIONS.argocd.api}`, `${SUPPORTED_VERSIONS.argocd.kind} ${SUPPORTED_VERSIONS.argocd.api}`, `${SUPPORTED_VERSIONS.flux.kind} ${SUPPORTED_VERSIONS.flux.api}`, `${generator.kind} ${generator.api}`].sort());
    // the generator's schema is the one the delivery tests generate (test/flux-controller/tools.ts)
    const cgMod = fs.readFileSync(path.join(REPO, 'test/flux-controller/go/artifactgenerator-crd/go.mod'), 'utf8');
    const [, swVersion] = /github\.com\/fluxcd\/source-watcher\/api\/v2 (v\S+)/.exec(cgMod)!;
    const [, cgVersion] = /sigs\.k8s\.io\/controller-tools (v\S+)/.exec(cgMod)!;
    expect(generator.schema).toContain(`github.com/fluxcd/source-watcher/api/v2 ${swVersion}`);
    expect(generator.schema).toContain(`controller-gen ${cgVersion}`);
    const kcMod = fs.readFileSync(path.join(REPO, 'test/flux-controller/go/kustomize-controller/go.mod'), 'utf8');
    expect(SUPPORTED_VERSIONS.flux.deliveredWith).toBe(`kustomize-controller ${/github\.com\/fluxcd\/kustomize-controller (v\S+)/.exec(kcMod)![1]}`);
    crdSchema('kustomizations.kustomize.toolkit.fluxcd.io.yaml', SUPPORTED_VERSIONS.flux.api.split('/')[1]!);
    const appset = crdSchema('applicationsets.argoproj.io.yaml', SUPPORTED_VERSIONS.argocd.api.split('/')[1]!);
    for (const field of SUPPORTED_VERSIONS.argocd.fieldsUsed) expect(hasField(appset, field), field).toBe(true);
    expect(hasField(appset, 'spec.no.such.field'), 'the field check bites').toBe(false);
    expect(SUPPORTED_VERSIONS.argocd.fieldsUsed.join(' ')).not.toContain('templatePatch');
  });

  it('README: a "Supported versions" section names the same versions', () => {
    expect(supportedSection, 'README.md has a "## Supported versions" section').not.toBe('');
    const s = SUPPORTED_VERSIONS;
    for (const v of [
      s.kubernetes.testedWith,
      s.flux.api,
      ...Object.values(s.flux.testedWith),
      s.argocd.api,
      ...s.extensions.flatMap((e) => e.testedAgainst.flatMap((p) => Object.values(p.modules))),
    ]) {
      expect(supportedSection, v).toContain(v);
    }
    for (const field of s.argocd.fieldsUsed) expect(supportedSection, field).toContain(field.split('.').pop()!.replace('[]', ''));
  });

  it('kyma-fleet version prints them, as text and as JSON (the real binary)', () => {
    const run = (args: string[]): string => execFileSync(process.execPath, [BIN, ...args], { cwd: REPO, encoding: 'utf8' });
    const pkg = JSON.parse(fs.readFileSync(path.join(REPO, 'package.json'), 'utf8')) as { version: string };
    const json = JSON.parse(run(['version', '--output', 'json'])) as unknown;
    expect(json).toEqual({ kymaFleet: pkg.version, node: process.version, supported: SUPPORTED_VERSIONS });
    const text = run(['version']);
    expect(text).toMatch(new RegExp(`^kyma-fleet ${pkg.version.replace(/\./g, '\\.')}\nNode\\.js +${process.version.replace(/\./g, '\\.')}\n`));
    for (const v of [KUBERNETES_VERSION, 'kustomize.toolkit.fluxcd.io/v1', 'argoproj.io/v1alpha1', 'gardener-extension-registry-cache v0.24.0', 'infrastructure-manager v0.0.0-20260313132546-aa49051f0dea']) expect(text).toContain(v);
    expect(run(['--version']).trim()).toBe(pkg.version);
  });
});
