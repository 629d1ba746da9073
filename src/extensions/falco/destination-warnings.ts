// Falco event destinations the fleet accepts but a landscape may refuse or change: warnings, not
// errors, because what decides is the landscape's Falco extension (its version, its operator flags)
// or its admission's defaults, which kyma-fleet cannot see. Split from ./rules.ts, which holds the
// checks the webhook always makes.

import type { RuleReporter } from '../types';

/** An enabled destination entry: its position in the list and its name. */
interface EnabledDestination {
  readonly index: number;
  readonly name: string;
}

/** The warnings about the enabled destinations of a runtime's resolved settings. */
export function warnAboutDestinations(enabled: readonly EnabledDestination[], emptiedLists: readonly string[] | undefined, reporter: RuleReporter): void {
  checkDestinationsNotEmptied(emptiedLists, reporter);
  checkDestinationCountAndPairing(enabled, reporter);
  checkOtlp(enabled, reporter);
}

/**
 * Every destination switched off (or `destinations: []`) does not stop Falco's events: the
 * admission mutator then adds its default destination, logging (./defaults.ts writes it out), so
 * the events go to the Gardener logging stack. Say so rather than render it silently.
 */
function checkDestinationsNotEmptied(emptiedLists: readonly string[] | undefined, reporter: RuleReporter): void {
  if (!emptiedLists?.includes('destinations')) return;
  reporter.report(
    ['destinations'],
    'W_FALCO_DEFAULT_DESTINATION',
    'every event destination is disabled, so the Falco admission adds its default destination "logging" (rendered as such): events go to the Gardener logging stack; enable the destination you want (e.g. stdout), or disable falco',
    { severity: 'warning' },
  );
}

/**
 * At most two destinations, and a second one only with stdout (catalogue H48). Wording of the
 * webhook versions that enforce this (maxEventDestinations = 2); see the report on this module:
 * newer webhook versions accept more destinations.
 */
function checkDestinationCountAndPairing(enabled: readonly EnabledDestination[], reporter: RuleReporter): void {
  // Older Falco webhooks refused these; the current one accepts them, so this only warns.
  const warning = { severity: 'warning' as const };
  if (enabled.length > 2) {
    reporter.report(['destinations', enabled[2]!.index, 'name'], 'W_FALCO_DESTINATIONS', 'more than 2 event destinations are refused by older Falco extension versions', warning);
  } else if (enabled.length === 2 && !enabled.some((d) => d.name === 'stdout')) {
    reporter.report(['destinations', enabled[1]!.index, 'name'], 'W_FALCO_DESTINATIONS', 'older Falco extension versions only pair an output destination with stdout', warning);
  }
}

/**
 * The Falco extension's admission refuses an `otlp` destination unless the landscape runs it with
 * --otlp-logging, which is off by default (pkg/admission/validator FalcoWebhookOptions.OtlpLogging;
 * the oracle judges both ways). Whether a landscape has it on is the Gardener operator's setting, not
 * the fleet's: warn, so that nobody learns it from a refused Shoot.
 */
function checkOtlp(enabled: readonly EnabledDestination[], reporter: RuleReporter): void {
  const otlp = enabled.find((d) => d.name === 'otlp');
  if (!otlp) return;
  reporter.report(
    ['destinations', otlp.index, 'name'],
    'W_FALCO_OTLP',
    'the Falco extension refuses the otlp destination unless the landscape runs its admission with --otlp-logging (off by default); ask your Gardener operator before you merge, or use another destination',
    { severity: 'warning' },
  );
}
