// Fleet-wide options the onboarding commands need before they read a cluster (the KCP namespace,
// where the snapshot files live), read from fleet.yaml through the loader's YAML gate. A fleet.yaml
// that cannot be read gives the defaults here; the full validation that follows reports it.

import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseFleetYaml, MAX_FILE_BYTES } from '../lib/yaml/parse-yaml';

export const DEFAULT_KCP_NAMESPACE = 'kcp-system';

/** `Fleet.spec` of <fleetDir>/fleet.yaml, or {} when it cannot be read or is not a map. */
export function readFleetSpec(fleetDir: string, cwd: string): Record<string, unknown> {
  const file = path.join(path.resolve(cwd, fleetDir), 'fleet.yaml');
  let bytes: Buffer;
  try {
    const st = fs.statSync(file);
    if (!st.isFile() || st.size > MAX_FILE_BYTES) return {};
    bytes = fs.readFileSync(file);
  } catch {
    return {};
  }
  const data = parseFleetYaml(bytes, file).data;
  const spec = isRec(data) ? data.spec : undefined;
  return isRec(spec) ? spec : {};
}

/** The fleet's KCP namespace (Fleet.spec.kcpNamespace, default kcp-system). */
export function fleetKcpNamespace(fleetDir: string, cwd: string): string {
  const ns = readFleetSpec(fleetDir, cwd).kcpNamespace;
  return typeof ns === 'string' && ns !== '' ? ns : DEFAULT_KCP_NAMESPACE;
}

function isRec(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
