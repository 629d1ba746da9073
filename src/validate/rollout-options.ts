// Fleet.spec.rollout: the rollout rings of a fleet (docs/rollout.md). The schema part (ajv refuses
// unknown keys and wrong types) and the rules the schema cannot say: ring names are DNS-1123
// labels other than `rest` (the implicit last ring) and unique, `bake` is a Go duration of at least
// zero, selectors are valid, and an empty selector (which matches every runtime) is only allowed
// on the last ring, since the rings after it could never get a runtime. Change windows (fleet-wide
// and per ring) are read by ./rollout-windows.ts.

import type { JsonSchema, RuleReporter } from '../extensions/types';
import { quote } from '../lib/diagnostics';
import { parseGoDuration } from '../lib/go-duration';
import { isDNS1123Label } from '../lib/k8s-names';
import { type LabelSelector, selectorProblems } from '../lib/labels';
import { neverOpenWindows, readWindows, type WindowsConfig, windowsSchema } from './rollout-windows';

/** The implicit last ring: every runtime no ring's selector matches. */
export const REST_RING = 'rest';

export interface RingConfig {
  readonly name: string;
  readonly selector: LabelSelector;
  /** As written, e.g. "24h". */
  readonly bake: string;
  readonly bakeMs: number;
  /** Runtimes of the ring that may be Failed or Drifted when it is left. @default 0 */
  readonly maxFailed: number;
  /** The ring's own change windows (its `allow` replaces the fleet-wide list, its freezes add to them). */
  readonly windows?: WindowsConfig;
}

export interface RolloutConfig {
  /** The rings as declared, in order; the implicit `rest` ring is not among them. */
  readonly rings: readonly RingConfig[];
  /** Fleet-wide change windows (docs/rollout.md#change-windows); absent: act at any time. */
  readonly windows?: WindowsConfig;
}

/** The JSON Schema of Fleet.spec.rollout; `selector` is the fleet's LabelSelector schema. */
export function rolloutSchema(selector: JsonSchema): JsonSchema {
  return {
    type: 'object',
    additionalProperties: false,
    required: ['rings'],
    description:
      'Rollout rings: changes of the fleet-wide layers (fleet.yaml, groups, rules and profile files) reach the rings one after another, through `kyma-fleet rollout start` and `rollout advance` (docs/rollout.md). Without it every change reaches every runtime at the next synth.',
    properties: {
      rings: {
        type: 'array',
        minItems: 1,
        maxItems: 16,
        description: 'The rings in rollout order. A runtime is in the first ring whose selector matches; runtimes no ring matches form the implicit last ring `rest`.',
        items: {
          type: 'object',
          additionalProperties: false,
          required: ['name', 'selector', 'bake'],
          properties: {
            name: { type: 'string', maxLength: 63, description: 'Ring name: a DNS-1123 label, unique, not `rest`.' },
            selector: { ...selector, description: 'Runtimes of the ring (the first ring whose selector matches a runtime has it). An empty selector matches every runtime and is allowed on the last ring only.' },
            bake: {
              type: 'string',
              maxLength: 32,
              description: 'Go duration (e.g. `24h`, `90m`): how long every runtime of the ring must have shown this ring\'s render in effect (Ready or Disabled) before `rollout advance` moves the next ring.',
              examples: ['24h', '48h'],
            },
            maxFailed: {
              type: 'integer',
              minimum: 0,
              maximum: 100000,
              description: 'How many runtimes of the ring may be Failed or Drifted when the next ring advances. @default 0',
            },
            windows: windowsSchema('ring'),
          },
        },
      },
      windows: windowsSchema('fleet'),
    },
    examples: [{ rings: [{ name: 'canary', selector: { matchLabels: { ring: 'canary' } }, bake: '24h' }] }],
  };
}

/**
 * The rollout rings of a schema-valid Fleet.spec, or undefined without `rollout`. Problems go to
 * `reporter` (paths relative to Fleet.spec); a ring with a problem is still returned so that the
 * other checks of the run can go on (the run fails on the error).
 */
export function readRolloutOptions(spec: Readonly<Record<string, unknown>>, reporter: RuleReporter): RolloutConfig | undefined {
  const rollout = spec.rollout as { rings?: ReadonlyArray<Record<string, unknown>>; windows?: unknown } | undefined;
  if (!rollout || !Array.isArray(rollout.rings)) return undefined;
  const windows = readWindows(rollout.windows, ['rollout', 'windows'], reporter, 'fleet-wide');
  const seen = new Map<string, number>();
  const rings: RingConfig[] = [];
  rollout.rings.forEach((ring, i) => {
    const name = String(ring.name);
    const at = ['rollout', 'rings', i];
    if (!isDNS1123Label(name)) {
      reporter.report([...at, 'name'], 'E_ROLLOUT_RING_NAME', `must be a DNS-1123 label: at most 63 lowercase alphanumeric characters or '-', starting and ending with an alphanumeric (got ${quote(name)})`);
    } else if (name === REST_RING) {
      reporter.report([...at, 'name'], 'E_ROLLOUT_RING_NAME', `${quote(REST_RING)} is the implicit last ring (the runtimes no ring matches); name this ring differently`);
    }
    const first = seen.get(name);
    if (first !== undefined) reporter.report([...at, 'name'], 'E_ROLLOUT_RING_DUPLICATE', `Duplicate value: ${quote(name)} (also rings[${first}])`);
    else seen.set(name, i);
    const bake = String(ring.bake);
    const parsed = parseGoDuration(bake);
    let bakeMs = 0;
    if (!parsed.ok) reporter.report([...at, 'bake'], 'E_ROLLOUT_BAKE', `must be a Go duration such as 24h or 90m: ${parsed.error}`);
    else if (parsed.nanoseconds < 0n) reporter.report([...at, 'bake'], 'E_ROLLOUT_BAKE', `must not be negative (got ${quote(bake)})`);
    else bakeMs = Number(parsed.nanoseconds / 1_000_000n);
    const selector = (ring.selector ?? {}) as LabelSelector;
    for (const [path, message] of selectorProblems(selector)) reporter.report([...at, 'selector', ...path], 'E_SELECTOR', message);
    if (isEmptySelector(selector) && i < rollout.rings!.length - 1) {
      const later = rollout.rings!.slice(i + 1).map((r) => String(r.name));
      reporter.report(
        [...at, 'selector'],
        'E_ROLLOUT_RING_UNREACHABLE',
        `an empty selector matches every runtime, so the rings after it (${later.join(', ')}) could never get one; give ring ${quote(name)} a selector or make it the last ring`,
      );
    }
    const own = readWindows(ring.windows, [...at, 'windows'], reporter, `ring ${name}`, windows?.timeZone);
    rings.push({ name, selector, bake, bakeMs, maxFailed: typeof ring.maxFailed === 'number' ? ring.maxFailed : 0, ...(own ? { windows: own } : {}) });
  });
  for (const w of neverOpenWindows(windows, rings)) reporter.report(w.path, 'W_ROLLOUT_WINDOW_NEVER_OPEN', w.message, { severity: 'warning' });
  return { rings, ...(windows ? { windows } : {}) };
}

/** True for a selector without any requirement: it matches every runtime. */
export function isEmptySelector(selector: LabelSelector): boolean {
  return Object.keys(selector.matchLabels ?? {}).length === 0 && (selector.matchExpressions ?? []).length === 0;
}
