// Where a resolved value was written, as diagnostics write a field: the path in its layer's document,
// list entries named by their key where that names them (../validate/field-naming.ts), the form
// explain writes (issue 26). Used by the rules on resolved settings that report at the layer that set
// a value. Pure.

import { EXTENSIONS } from '../extensions';
import type { ExtensionPlugin } from '../extensions/types';
import { formatField } from '../lib/diagnostics';
import { layerNaming } from '../validate/field-naming';
import type { FleetModel } from '../validate/model';
import type { ResolvedRuntime, Source } from './resolve';

/**
 * The field a layer's value sits at, as diagnostics write it: the path in its document, list entries
 * named by their key where it names them (../validate/field-naming.ts), as explain names them.
 */
export function sourceField(
  model: FleetModel,
  resolved: ResolvedRuntime,
  source: Extract<Source, { kind: 'layer' }>,
  extensions: readonly ExtensionPlugin<any>[] = EXTENSIONS,
): string {
  const layer =
    source.layer === 'runtime'
      ? resolved.runtime.layer
      : source.layer === 'group'
        ? resolved.groups.find((g) => g.name === source.name && g.file === source.file)?.layer
        : (resolved.revisionModel ?? model).defaults;
  return formatField(source.docPath, layer ? layerNaming(layer, extensions) : undefined);
}
