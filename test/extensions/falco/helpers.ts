// Test doubles for the Falco plug-in: a recording reporter, a fake rule environment and fake
// auxiliary files, so rules can be tested without the loader.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DocPath } from '../../../src/lib/diagnostics';
import type { AuxFile, PrepareInput, ReportOptions, RuleEnvironment, RuleReporter } from '../../../src/extensions/types';
import { parseFleetYaml } from '../../../src/lib/yaml/parse-yaml';
import { type FalcoState, NO_PROFILE, parseFalcoProfile } from '../../../src/extensions/falco/profile';

export const NOW = new Date('2026-11-22T00:00:00Z');

export interface Recorded {
  readonly path: DocPath;
  readonly code: string;
  readonly message: string;
  readonly options?: ReportOptions;
}

export function recorder(): RuleReporter & { readonly diags: Recorded[] } {
  const diags: Recorded[] = [];
  return {
    diags,
    report(path, code, message, options) {
      diags.push(options === undefined ? { path: [...path], code, message } : { path: [...path], code, message, options });
    },
  };
}

export function auxFile(relPath: string, content: string | Uint8Array): AuxFile {
  const bytes = typeof content === 'string' ? new TextEncoder().encode(content) : content;
  return { relPath, file: `fleet/${relPath}`, bytes };
}

export function filesOf(...files: AuxFile[]): Map<string, AuxFile> {
  return new Map(files.map((f) => [f.relPath, f]));
}

export function env(
  state: FalcoState = NO_PROFILE,
  files: Map<string, AuxFile> = new Map(),
  now: Date = NOW,
): RuleEnvironment<FalcoState> & { runtime: { name: string; runtimeID: string } } {
  return { state, files, now, runtime: { name: 'rt-1', runtimeID: '3f2a1b4c-0000-4000-8000-000000000001' } };
}

export const FIXTURE_PROFILE_TEXT = readFileSync(join(__dirname, '../../fixtures/falco-profile.yaml'), 'utf8');

/** The state `prepare` builds from the example FalcoProfile of the extension repository. */
export function exampleProfileState(): FalcoState {
  const parsed = parseFleetYaml(new TextEncoder().encode(FIXTURE_PROFILE_TEXT), 'fleet/profiles/falco.yaml');
  const { profile, problems } = parseFalcoProfile(parsed.data);
  if (!profile || problems.length > 0) throw new Error('example profile does not parse');
  return { profileConfigured: true, profile };
}

export interface RecordedPrepare {
  readonly fleet: Recorded[];
  readonly inFile: { relPath: string; line: number; col: number; code: string; message: string }[];
}

export function prepareInput(
  fleetSpec: Record<string, unknown>,
  files: Map<string, AuxFile> = new Map(),
): PrepareInput & { readonly recorded: RecordedPrepare } {
  const fleet = recorder();
  const inFile: RecordedPrepare['inFile'] = [];
  return {
    fleetSpec,
    files,
    fleetReporter: fleet,
    reportInFile(relPath, line, col, code, message) {
      inFile.push({ relPath, line, col, code, message });
    },
    recorded: { fleet: fleet.diags, inFile },
  };
}
