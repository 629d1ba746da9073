// `kyma-fleet version`: the package version, the Node.js running it, and the versions the output
// is made for and tested against (Kubernetes, Flux, Argo CD, and the upstream code each extension
// is judged by; src/lib/supported-versions.ts), as text or JSON.

import { Command } from 'commander';
import { EXTENSIONS } from '../../extensions';
import { ExitCode } from '../../lib/diagnostics';
import { supportedVersions, type SupportedVersions } from '../../lib/supported-versions';
import { packageVersion } from '../../lib/version';
import { outputOption } from '../options';
import type { Streams } from '../report';

export interface VersionReport {
  readonly kymaFleet: string;
  readonly node: string;
  readonly supported: SupportedVersions;
}

export function versionReport(): VersionReport {
  return { kymaFleet: packageVersion(), node: process.version, supported: supportedVersions(EXTENSIONS) };
}

const shortModule = (m: string): string => m.replace(/^github\.com\//, '');
const moduleList = (modules: Readonly<Record<string, string>>): string =>
  Object.entries(modules)
    .map(([m, v]) => `${shortModule(m)} ${v}`)
    .join(', ');

export function formatVersionReport(r: VersionReport): string {
  const s = r.supported;
  const lines = [
    `kyma-fleet ${r.kymaFleet}`,
    `Node.js    ${r.node}`,
    'made for and tested against:',
    `  Kubernetes  ${s.kubernetes.testedWith} (kube-apiserver built from source, etcd ${s.kubernetes.etcd})`,
    `  Flux        ${s.flux.kind} ${s.flux.api}; applied in tests with ${moduleList(s.flux.testedWith)}; delivered by ${s.flux.deliveredWith}`,
    `              ${s.flux.artifactGenerator.kind} ${s.flux.artifactGenerator.api} (${s.flux.artifactGenerator.schema}): ${s.flux.artifactGenerator.releases}`,
    `  Argo CD     ${s.argocd.kind} ${s.argocd.api}; fields used: ${s.argocd.fieldsUsed.join(', ')}`,
    `              schema: ${s.argocd.schema}; ${s.argocd.releases}`,
  ];
  for (const e of s.extensions) {
    lines.push(`  extension ${e.name}:`);
    for (const pin of e.testedAgainst) lines.push(`    ${pin.judges}: ${moduleList(pin.modules)}`);
  }
  return lines.join('\n') + '\n';
}

export function versionCommand(streams: Streams, setExit: (code: number) => void): Command {
  return new Command('version')
    .description('print the kyma-fleet and Node.js versions, and the Kubernetes, Flux and Argo CD versions and upstream code the output is made for and tested against')
    .addOption(outputOption(['text', 'json']))
    .addHelpText('after', '\nExamples:\n  kyma-fleet version\n  kyma-fleet version --output json | jq .supported.kubernetes\n')
    .action((flags: { output: 'text' | 'json' }) => {
      const report = versionReport();
      streams.out(flags.output === 'json' ? JSON.stringify(report, null, 2) + '\n' : formatVersionReport(report));
      setExit(ExitCode.Ok);
    });
}
