// Writes the committed JSON Schemas of the fleet kinds (schemas/*.json) that editors use through
// `# yaml-language-server: $schema=...`. They come from the same source as the validator;
// a test fails when the committed files are stale. Run: npm run schemas
import * as fs from 'node:fs';
import * as path from 'node:path';
import { KINDS, schemaFor } from '../src/validate/schema';

export function renderFleetSchemas(): Map<string, string> {
  const out = new Map<string, string>();
  for (const kind of KINDS) out.set(`${kind.toLowerCase()}.json`, JSON.stringify(schemaFor(kind), null, 2) + '\n');
  return out;
}

if (require.main === module) {
  const dir = path.resolve(__dirname, '../../schemas');
  fs.mkdirSync(dir, { recursive: true });
  for (const [name, text] of renderFleetSchemas()) fs.writeFileSync(path.join(dir, name), text);
  process.stdout.write(`wrote ${[...renderFleetSchemas().keys()].map((n) => `schemas/${n}`).join(', ')}\n`);
}
