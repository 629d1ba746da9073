// State derivation (src/status/states.ts), table-driven: every state and every reason, starting
// from the realistic objects of the shipped sample dump and changing one thing per row.

import { describe, expect, it } from 'vitest';
import { EXTENSIONS } from '../../src/extensions';
import type { StatusHook, StatusHookInput } from '../../src/extensions/status-hook';
import type { ExtensionPlugin } from '../../src/extensions/types';
import { deriveStatus, READ_FAILURE_REASONS, REASONS, type StatusState, statusReasons, summaryState } from '../../src/status/states';
import { type AppliedFalco, derive, entry, loadExample, type Mutable, moduleStatus, observed, rcc, rccs } from './status-helpers';

const RC = 'registry-cache';
const FALCO = 'falco';
const LAKOM = 'lakom';

interface Row {
  readonly title: string;
  readonly runtime: string;
  readonly ext: string;
  readonly change?: (o: Mutable) => void;
  readonly state: StatusState;
  readonly reason: string;
  /** Substrings the message must contain. */
  readonly message?: readonly string[];
  /** What the last `apply garden` recorded for the Falco entry (none: no run recorded). */
  readonly applied?: AppliedFalco;
}

const PROD1 = 'acme-eu-prod-1'; // everything Ready in the sample
const SHOOT1 = 'Shoot garden-kyma-prod/c-3f1e8d6';
const RUNTIME1 = 'Runtime kcp-system/3f1e8d62-9c1a-4c4e-8a0e-2b7f6d1c9e01';

const ROWS: Row[] = [
  // Ready
  { title: 'everything agrees', runtime: PROD1, ext: RC, state: 'Ready', reason: 'Reconciled', message: [`${SHOOT1}: registry-cache matches the fleet`, `${RUNTIME1}: Ready`, 'module registry-cache Ready', '2 RegistryCacheConfigs Ready'] },
  { title: 'falco agrees', runtime: PROD1, ext: FALCO, state: 'Ready', reason: 'Reconciled', message: [`${SHOOT1}: shoot-falco-service matches the fleet`, 'module falco Ready'] },
  {
    title: 'KIM marshals ttl as 168h0m0s and a size as plain bytes: equal values, no drift',
    runtime: PROD1,
    ext: RC,
    change: (o) => {
      const caches = entry(o, 'registry-cache').providerConfig.caches;
      caches[0].volume.size = String(50 * 2 ** 30);
      caches[0].garbageCollection.ttl = '168h0m0s';
    },
    state: 'Ready',
    reason: 'Reconciled',
  },
  {
    title: 'fields the fragment leaves unset are not compared (remoteURL, highAvailability, http)',
    runtime: PROD1,
    ext: RC,
    change: (o) => {
      const c = entry(o, 'registry-cache').providerConfig.caches[0];
      Object.assign(c, { remoteURL: 'https://registry-1.docker.io', highAvailability: { enabled: true }, http: { tls: true } });
    },
    state: 'Ready',
    reason: 'Reconciled',
  },
  {
    title: 'a renamed credentials Secret (reg-cache-<uuid>) is compared by presence only',
    runtime: PROD1,
    ext: RC,
    change: (o) => {
      entry(o, 'registry-cache').providerConfig.caches[1].secretReferenceName = 'reg-cache-00000000-0000-4000-8000-000000000000';
    },
    state: 'Ready',
    reason: 'Reconciled',
  },
  { title: 'module Warning is not Ready', runtime: PROD1, ext: RC, change: (o) => void (moduleStatus(o, 'registry-cache').state = 'Warning'), state: 'Failed', reason: 'ModuleWarning' },

  // Disabled
  { title: 'off in the fleet, no entry in the Shoot', runtime: 'acme-us-dev-1', ext: RC, state: 'Disabled', reason: 'DisabledInFleet', message: ['spec.extensions has no registry-cache entry', 'the fleet disables registry-cache'] },
  { title: 'off in the fleet, disabled: true in the Shoot', runtime: 'acme-us-dev-1', ext: FALCO, state: 'Disabled', reason: 'DisabledInFleet', message: ['spec.extensions[type=shoot-falco-service] is disabled: true'] },
  {
    title: 'a disabled extension needs only the Shoot (SKR and KCP unread)',
    runtime: 'acme-eu-dev-1',
    ext: FALCO,
    change: (o) => {
      o.read = new Set(['garden']);
      o.failures = [
        { cluster: 'kcp', reason: 'Timeout', message: 'x' },
        { cluster: 'skr', reason: 'Forbidden', message: 'y' },
      ];
    },
    state: 'Disabled',
    reason: 'DisabledInFleet',
  },

  // Drifted
  { title: 'a cache volume size differs', runtime: 'acme-eu-prod-2', ext: RC, state: 'Drifted', reason: 'ShootConfigDrift', message: ['Shoot garden-kyma-prod/c-8b7c6d5: spec.extensions[type=registry-cache].providerConfig.caches[upstream=docker.io].volume.size is "50Gi"; the fleet renders "100Gi"'] },
  { title: 'on in the fleet, entry absent in the Shoot', runtime: PROD1, ext: RC, change: (o) => void (o.shoot.spec.extensions = o.shoot.spec.extensions.filter((e: any) => e.type !== 'registry-cache')), state: 'Drifted', reason: 'ShootExtensionDisabled', message: ['spec.extensions has no registry-cache entry; the fleet enables registry-cache'] },
  { title: 'on in the fleet, disabled: true in the Shoot after apply garden wrote it', applied: 'current', runtime: PROD1, ext: FALCO, change: (o) => void (entry(o, 'shoot-falco-service').disabled = true), state: 'Drifted', reason: 'ShootExtensionDisabled', message: ['is disabled: true; the fleet enables falco'] },
  { title: 'off in the fleet, enabled in the Shoot after apply garden wrote it', applied: 'current', runtime: 'acme-us-dev-1', ext: FALCO, change: (o) => void (entry(o, 'shoot-falco-service').disabled = false), state: 'Drifted', reason: 'ShootExtensionEnabled', message: ['is enabled; the fleet disables falco'] },
  { title: 'apply garden has never written the Falco entry', runtime: PROD1, ext: FALCO, change: (o) => void (o.shoot.spec.extensions = o.shoot.spec.extensions.filter((e: any) => e.type !== 'shoot-falco-service')), state: 'Progressing', reason: 'NotApplied', message: ['the rendered shoot-falco-service entry is not on the Shoot yet; kyma-fleet apply garden writes it (no run recorded for this runtime)'] },
  // Lakom: a Shoot entry only (no module, no config CR), written by apply garden; the generic rules.
  { title: 'lakom agrees', runtime: PROD1, ext: LAKOM, state: 'Ready', reason: 'Reconciled', message: [`${SHOOT1}: shoot-lakom-service matches the fleet`] },
  { title: 'lakom off in the fleet, disabled: true in the Shoot', runtime: 'acme-us-dev-1', ext: LAKOM, state: 'Disabled', reason: 'DisabledInFleet', message: ['spec.extensions[type=shoot-lakom-service] is disabled: true', 'the fleet disables lakom'] },
  { title: 'apply garden has never written the Lakom entry', runtime: PROD1, ext: LAKOM, change: (o) => void (o.shoot.spec.extensions = o.shoot.spec.extensions.filter((e: any) => e.type !== 'shoot-lakom-service')), state: 'Progressing', reason: 'NotApplied', message: ['the rendered shoot-lakom-service entry is not on the Shoot yet; kyma-fleet apply garden writes it (no run recorded for this runtime)'] },
  // Issue 26: an entry on the Shoot with other values is not "not on the Shoot yet".
  { title: 'a Lakom scope on the Shoot that apply garden has not written', runtime: PROD1, ext: LAKOM, change: (o) => void (entry(o, 'shoot-lakom-service').providerConfig.scope = 'Cluster'), state: 'Progressing', reason: 'NotApplied', message: ['the shoot-lakom-service entry on the Shoot has other values than the rendered one (spec.extensions[type=shoot-lakom-service].providerConfig.scope is "Cluster"', 'kyma-fleet apply garden writes it (no run recorded for this runtime)'] },
  { title: 'a Falco entry on the Shoot with other values that apply garden has not written', runtime: PROD1, ext: FALCO, change: (o) => void (entry(o, 'shoot-falco-service').providerConfig.autoUpdate = false), state: 'Progressing', reason: 'NotApplied', message: ['the shoot-falco-service entry on the Shoot has other values than the rendered one (spec.extensions[type=shoot-falco-service].providerConfig.autoUpdate is false'] },
  { title: 'a Falco entry disabled on the Shoot that apply garden has not written', runtime: PROD1, ext: FALCO, change: (o) => void (entry(o, 'shoot-falco-service').disabled = true), state: 'Progressing', reason: 'NotApplied', message: ['the shoot-falco-service entry on the Shoot is disabled; the rendered one enables it'] },
  { title: 'apply garden wrote an earlier render of the Falco entry', applied: 'earlier', runtime: PROD1, ext: FALCO, change: (o) => void (entry(o, 'shoot-falco-service').providerConfig.autoUpdate = false), state: 'Progressing', reason: 'NotApplied', message: ['the last run (2026-11-21T10:00:00Z) wrote an earlier render'] },
  { title: 'apply garden could not write this render (the Shoot admission refused it)', applied: 'failed', runtime: PROD1, ext: FALCO, change: (o) => void (entry(o, 'shoot-falco-service').providerConfig.autoUpdate = false), state: 'Failed', reason: 'ShootApplyFailed', message: ['could not write shoot-falco-service into Shoot garden-kyma-prod/c-3f1e8d6 (2026-11-21T10:00:00Z): Forbidden: admission webhook', 'version not found in possible versions'] },
  { title: 'registry-cache never consults the apply report (KIM writes it)', applied: 'failed', runtime: PROD1, ext: RC, change: (o) => void entry(o, 'registry-cache').providerConfig.caches.pop(), state: 'Drifted', reason: 'ShootConfigDrift' },
  { title: 'KIM mapped no credentials Secret (empty secretReferenceName)', runtime: PROD1, ext: RC, change: (o) => void (entry(o, 'registry-cache').providerConfig.caches[1].secretReferenceName = ''), state: 'Drifted', reason: 'ShootConfigDrift', message: ['caches[upstream=europe-docker.pkg.dev].secretReferenceName is ""', 'gar-europe-pull'] },
  {
    title: 'a cache the fleet does not render',
    runtime: PROD1,
    ext: RC,
    change: (o) => void entry(o, 'registry-cache').providerConfig.caches.push({ upstream: 'quay.io' }),
    state: 'Drifted',
    reason: 'ShootConfigDrift',
    message: ['caches[upstream=quay.io] is an entry the fleet does not render'],
  },
  { title: 'a cache the fleet renders is missing', runtime: PROD1, ext: RC, change: (o) => void entry(o, 'registry-cache').providerConfig.caches.pop(), state: 'Drifted', reason: 'ShootConfigDrift', message: ['caches[upstream=europe-docker.pkg.dev] is missing'] },
  { title: 'Falco standard rules differ', applied: 'current', runtime: PROD1, ext: FALCO, change: (o) => void (entry(o, 'shoot-falco-service').providerConfig.rules.standard = ['falco-rules']), state: 'Drifted', reason: 'ShootConfigDrift', message: ['providerConfig.rules.standard is ["falco-rules"]'] },
  { title: 'several differences are counted', applied: 'current', runtime: PROD1, ext: FALCO, change: (o) => Object.assign(entry(o, 'shoot-falco-service').providerConfig, { falcoVersion: '0.41.3', autoUpdate: false }), state: 'Drifted', reason: 'ShootConfigDrift', message: ['autoUpdate is false; the fleet renders true (and 1 more difference)'] },
  { title: 'providerConfig is not an object', applied: 'current', runtime: PROD1, ext: FALCO, change: (o) => void (entry(o, 'shoot-falco-service').providerConfig = 'x'), state: 'Drifted', reason: 'ShootConfigDrift', message: ['providerConfig is "x"; the fleet renders an object'] },

  // Failed
  { title: 'the RegistryCacheConfig is Failed, with its condition message', runtime: 'acme-us-prod-1', ext: RC, state: 'Failed', reason: 'RegistryCacheConfigFailed', message: ['RegistryCacheConfig kyma-system/us-docker.pkg.dev: state Failed, condition RegistryCacheConfigured False (RegistryCacheGardenClusterConfigurationFailed): failed to sync secret'] },
  { title: 'a RegistryCacheConfig state Failed', runtime: PROD1, ext: RC, change: (o) => void (rcc(o, 'docker.io').status.state = 'Failed'), state: 'Failed', reason: 'RegistryCacheConfigFailed' },
  {
    // Its CRD refuses `state: Error`, so a failed controller can leave Pending with a False condition.
    title: 'a RegistryCacheConfig Pending with a condition False is Failed, not Progressing',
    runtime: 'acme-us-prod-1',
    ext: RC,
    change: (o) => void (rcc(o, 'us-docker.pkg.dev').status.state = 'Pending'),
    state: 'Failed',
    reason: 'RegistryCacheConfigFailed',
    message: ['RegistryCacheConfig kyma-system/us-docker.pkg.dev: state Pending but condition RegistryCacheConfigured False (RegistryCacheGardenClusterConfigurationFailed): failed to sync secret'],
  },
  {
    title: 'a RegistryCacheConfig Ready with a condition False is Failed, not Ready',
    runtime: PROD1,
    ext: RC,
    change: (o) => void rcc(o, 'docker.io').status.conditions.push({ type: 'RegistryCacheValidated', status: 'False', reason: 'ValidationFailed', message: 'upstream does not resolve' }),
    state: 'Failed',
    reason: 'RegistryCacheConfigFailed',
    message: ['RegistryCacheConfig kyma-system/docker.io: state Ready but condition RegistryCacheValidated False (ValidationFailed): upstream does not resolve'],
  },
  { title: 'Shoot lastErrors name registry-cache', runtime: PROD1, ext: RC, change: (o) => void (o.shoot.status.lastErrors = [{ description: 'Error reconciling extension "registry-cache": volume quota exceeded', taskID: 'Waiting until extensions are ready' }]), state: 'Failed', reason: 'ShootLastError', message: [`${SHOOT1}: lastError (task Waiting until extensions are ready): Error reconciling extension "registry-cache": volume quota exceeded`] },
  { title: '... but not falco', runtime: PROD1, ext: FALCO, change: (o) => void (o.shoot.status.lastErrors = [{ description: 'extension "registry-cache" failed' }]), state: 'Ready', reason: 'Reconciled' },
  { title: 'lastErrors naming a longer type do not count (no-registry-cache-x)', runtime: PROD1, ext: RC, change: (o) => void (o.shoot.status.lastErrors = [{ description: 'extension my-registry-cache-x failed' }]), state: 'Ready', reason: 'Reconciled' },
  { title: 'Shoot lastOperation Failed', runtime: PROD1, ext: FALCO, change: (o) => Object.assign(o.shoot.status.lastOperation, { state: 'Failed', description: 'Flow "Shoot cluster reconciliation" encountered task errors' }), state: 'Failed', reason: 'ShootOperationFailed', message: [`${SHOOT1}: lastOperation Reconcile Failed: Flow "Shoot cluster reconciliation" encountered task errors`] },
  { title: 'Shoot lastOperation Error', runtime: PROD1, ext: RC, change: (o) => void (o.shoot.status.lastOperation.state = 'Error'), state: 'Failed', reason: 'ShootOperationFailed' },
  { title: 'Shoot lastOperation Aborted', runtime: PROD1, ext: RC, change: (o) => void (o.shoot.status.lastOperation.state = 'Aborted'), state: 'Failed', reason: 'ShootOperationFailed' },
  { title: 'module Error', runtime: PROD1, ext: FALCO, change: (o) => Object.assign(moduleStatus(o, 'falco'), { state: 'Error', message: 'no versions found for channel: regular in module falco' }), state: 'Failed', reason: 'ModuleError', message: ['Kyma kyma-system/default: module falco Error: no versions found for channel: regular in module falco'] },
  { title: 'Runtime state Failed (registry-cache goes through KIM)', runtime: PROD1, ext: RC, change: (o) => void (o.runtimeCR.status.state = 'Failed'), state: 'Failed', reason: 'RuntimeFailed', message: [`${RUNTIME1}: state Failed`] },
  { title: '... Falco does not', runtime: PROD1, ext: FALCO, change: (o) => void (o.runtimeCR.status.state = 'Failed'), state: 'Ready', reason: 'Reconciled' },
  {
    title: 'a Runtime condition False naming the registry cache',
    runtime: PROD1,
    ext: RC,
    change: (o) => {
      o.runtimeCR.status.state = 'Pending';
      o.runtimeCR.status.conditions.push({ type: 'Provisioned', status: 'False', reason: 'RegistryCacheConfigurationErr', message: 'Failed to configure registry cache' });
    },
    state: 'Failed',
    reason: 'RuntimeConditionFalse',
    message: ['condition Provisioned False (RegistryCacheConfigurationErr): Failed to configure registry cache'],
  },
  { title: 'off in the fleet but lastErrors name it (removal failed)', runtime: 'acme-us-dev-1', ext: FALCO, change: (o) => void (o.shoot.status.lastErrors = [{ description: 'cannot delete extension shoot-falco-service' }]), state: 'Failed', reason: 'ShootLastError' },

  // Progressing
  { title: 'stale observedGeneration', runtime: 'acme-us-dev-2', ext: RC, state: 'Progressing', reason: 'ShootGenerationStale', message: ['observedGeneration 14 < generation 15'] },
  { title: 'stale observedGeneration hides an old failed lastOperation', runtime: PROD1, ext: RC, change: (o) => { o.shoot.metadata.generation = 43; o.shoot.status.lastOperation.state = 'Failed'; }, state: 'Progressing', reason: 'ShootGenerationStale' },
  { title: 'stale is never Ready even when everything else is', runtime: PROD1, ext: FALCO, change: (o) => void (o.shoot.metadata.generation = 43), state: 'Progressing', reason: 'ShootGenerationStale' },
  { title: 'lastOperation Processing', runtime: PROD1, ext: RC, change: (o) => Object.assign(o.shoot.status.lastOperation, { state: 'Processing', description: 'Waiting until extensions are ready' }), state: 'Progressing', reason: 'ShootOperationProcessing', message: ['lastOperation Reconcile Processing: Waiting until extensions are ready'] },
  { title: 'lastOperation Pending', runtime: PROD1, ext: FALCO, change: (o) => void (o.shoot.status.lastOperation.state = 'Pending'), state: 'Progressing', reason: 'ShootOperationProcessing' },
  { title: 'Shoot without status', runtime: PROD1, ext: RC, change: (o) => void delete o.shoot.status, state: 'Progressing', reason: 'ShootNotReconciled', message: [`${SHOOT1}: no status yet`] },
  { title: 'Shoot without lastOperation', runtime: PROD1, ext: RC, change: (o) => void delete o.shoot.status.lastOperation, state: 'Progressing', reason: 'ShootNotReconciled' },
  { title: 'module Processing', runtime: PROD1, ext: RC, change: (o) => void (moduleStatus(o, 'registry-cache').state = 'Processing'), state: 'Progressing', reason: 'ModuleProcessing' },
  { title: 'module not yet listed', runtime: PROD1, ext: FALCO, change: (o) => void (o.skrKyma.status.modules = o.skrKyma.status.modules.filter((m: any) => m.name !== 'falco')), state: 'Progressing', reason: 'ModuleNotListed', message: ['module falco is not listed in status.modules yet'] },
  { title: 'Kyma without status: modules not listed', runtime: PROD1, ext: FALCO, change: (o) => void delete o.skrKyma.status, state: 'Progressing', reason: 'ModuleNotListed' },
  { title: 'RegistryCacheConfig Pending', runtime: PROD1, ext: RC, change: (o) => void (rcc(o, 'docker.io').status.state = 'Pending'), state: 'Progressing', reason: 'RegistryCacheConfigPending' },
  {
    // What KIM's SetStatusPending leaves when its later `state: Error` write is refused; the
    // Runtime CR says nothing about it (the sample's acme-us-prod-1 Runtime is set Ready here).
    title: 'a RegistryCacheConfig Pending with a condition Unknown stays Progressing, never Ready',
    runtime: 'acme-us-prod-1',
    ext: RC,
    change: (o) => {
      Object.assign(rcc(o, 'us-docker.pkg.dev').status, { state: 'Pending', conditions: [{ type: 'RegistryCacheConfigured', status: 'Unknown', reason: 'RegistryCacheConfigured', message: '', lastTransitionTime: '2026-11-21T23:02:17Z' }] });
      o.runtimeCR.status.state = 'Ready';
      o.runtimeCR.status.conditions = o.runtimeCR.status.conditions.filter((c: any) => c.status !== 'False');
    },
    state: 'Progressing',
    reason: 'RegistryCacheConfigPending',
    message: ['RegistryCacheConfig kyma-system/us-docker.pkg.dev: state Pending, condition RegistryCacheConfigured Unknown (RegistryCacheConfigured)'],
  },
  {
    title: 'a False condition for an older generation does not fail the current spec',
    runtime: PROD1,
    ext: RC,
    change: (o) => {
      const c = rcc(o, 'docker.io') as any;
      c.metadata.generation = 3;
      c.status.state = 'Pending';
      c.status.conditions = [{ type: 'RegistryCacheConfigured', status: 'False', reason: 'Failed', message: 'old', observedGeneration: 2 }];
    },
    state: 'Progressing',
    reason: 'RegistryCacheConfigPending',
  },
  { title: 'RegistryCacheConfig without status', runtime: PROD1, ext: RC, change: (o) => void delete (rcc(o, 'docker.io') as any).status, state: 'Progressing', reason: 'RegistryCacheConfigPending', message: ['RegistryCacheConfig kyma-system/docker.io: no status yet'] },
  {
    title: 'RegistryCacheConfig condition older than its generation',
    runtime: PROD1,
    ext: RC,
    change: (o) => {
      const c = rcc(o, 'docker.io') as any;
      c.metadata.generation = 3;
      c.status.conditions[0].observedGeneration = 2;
    },
    state: 'Progressing',
    reason: 'RegistryCacheConfigPending',
    message: ['is for generation 2, the spec is generation 3'],
  },
  { title: 'Runtime Pending without a registry cache problem', runtime: PROD1, ext: RC, change: (o) => void (o.runtimeCR.status.state = 'Pending'), state: 'Progressing', reason: 'RuntimePending' },
  { title: 'Runtime without status', runtime: PROD1, ext: RC, change: (o) => void delete o.runtimeCR.status, state: 'Progressing', reason: 'RuntimePending' },

  // Unknown
  { title: 'Garden not read', runtime: PROD1, ext: FALCO, change: (o) => { o.read.delete('garden'); o.failures.push({ cluster: 'garden', reason: 'Timeout', message: 'GET shoots: no answer in 10s' }); }, state: 'Unknown', reason: 'Timeout', message: ['Garden cluster not read: GET shoots: no answer in 10s'] },
  { title: 'Shoot not found', runtime: PROD1, ext: RC, change: (o) => void delete o.shoot, state: 'Unknown', reason: 'NotFound', message: [`${SHOOT1} not found in the Garden cluster`] },
  { title: 'a disabled extension with the Shoot not found', runtime: 'acme-us-dev-1', ext: RC, change: (o) => void delete o.shoot, state: 'Unknown', reason: 'NotFound' },
  { title: 'no SKR dump', runtime: 'acme-eu-sandbox', ext: RC, state: 'Unknown', reason: 'NotDumped', message: ['runtime cluster (SKR) not read: the dump has no runtimes/acme-eu-sandbox/ folder'] },
  { title: 'SKR unread: Falco falls back to the KCP Kyma module status', runtime: PROD1, ext: FALCO, change: (o) => { o.read.delete('skr'); o.failures.push({ cluster: 'skr', reason: 'NoCredentials', message: 'no secret' }); }, state: 'Ready', reason: 'Reconciled', message: ['Kyma kcp-system/3f1e8d62-9c1a-4c4e-8a0e-2b7f6d1c9e01: module falco Ready'] },
  {
    title: 'SKR and KCP unread: the module state is unknown',
    runtime: PROD1,
    ext: FALCO,
    change: (o) => {
      o.read = new Set(['garden']);
      o.failures = [
        { cluster: 'kcp', reason: 'Forbidden', message: 'kymas is forbidden' },
        { cluster: 'skr', reason: 'Unreachable', message: 'dial tcp: connection refused' },
      ];
    },
    state: 'Unknown',
    reason: 'Unreachable',
    message: ['runtime cluster (SKR) not read: dial tcp: connection refused'],
  },
  { title: 'KCP unread: the Runtime CR is needed for registry-cache', runtime: PROD1, ext: RC, change: (o) => { o.read.delete('kcp'); o.failures.push({ cluster: 'kcp', reason: 'Forbidden', message: 'runtimes.infrastructuremanager.kyma-project.io is forbidden: cannot list' }); }, state: 'Unknown', reason: 'Forbidden', message: ['Kyma Control Plane not read'] },
  { title: 'Runtime CR not found', runtime: PROD1, ext: RC, change: (o) => void delete o.runtimeCR, state: 'Unknown', reason: 'NotFound', message: [`${RUNTIME1} not found in the Kyma Control Plane`] },
  { title: 'RegistryCacheConfig not found', runtime: PROD1, ext: RC, change: (o) => void o.skrObjects.set('RegistryCacheConfig', rccs(o).filter((c) => c.spec.upstream !== 'docker.io')), state: 'Unknown', reason: 'NotFound', message: ['RegistryCacheConfig for upstream docker.io not found'] },
  { title: 'a RegistryCacheConfig in another namespace still counts', runtime: PROD1, ext: RC, change: (o) => void ((rcc(o, 'docker.io').metadata as any).namespace = 'team-a'), state: 'Ready', reason: 'Reconciled' },
  { title: 'no Kyma anywhere', runtime: PROD1, ext: FALCO, change: (o) => { delete o.skrKyma; delete o.kcpKyma; }, state: 'Unknown', reason: 'NotFound', message: ['Kyma kyma-system/default not found on the runtime'] },
  { title: 'Runtime conditions not a list', runtime: PROD1, ext: RC, change: (o) => void (o.runtimeCR.status.conditions = { type: 'Provisioned' }), state: 'Unknown', reason: 'InvalidData', message: ['status.conditions is not a list'] },
  { title: 'RegistryCacheConfig conditions not a list', runtime: PROD1, ext: RC, change: (o) => void (rcc(o, 'docker.io').status.conditions = 'True'), state: 'Unknown', reason: 'InvalidData', message: ['RegistryCacheConfig kyma-system/docker.io: status.conditions is not a list'] },
  { title: 'Kyma status.modules not a list', runtime: PROD1, ext: FALCO, change: (o) => void (o.skrKyma.status.modules = 'falco'), state: 'Unknown', reason: 'InvalidData', message: ['status.modules is not a list'] },
  { title: 'Shoot spec.extensions not a list', runtime: PROD1, ext: FALCO, change: (o) => void (o.shoot.spec.extensions = {}), state: 'Unknown', reason: 'InvalidData' },
  { title: 'Shoot lastErrors not a list', runtime: PROD1, ext: RC, change: (o) => void (o.shoot.status.lastErrors = 'boom'), state: 'Unknown', reason: 'InvalidData', message: ['status.lastErrors is not a list'] },
  { title: 'an unknown lastOperation state', runtime: PROD1, ext: RC, change: (o) => void (o.shoot.status.lastOperation.state = 'Exploded'), state: 'Unknown', reason: 'InvalidData' },
  { title: 'an unknown module state', runtime: PROD1, ext: RC, change: (o) => void (moduleStatus(o, 'registry-cache').state = 7), state: 'Unknown', reason: 'InvalidData' },
  { title: 'an unknown RegistryCacheConfig state', runtime: PROD1, ext: RC, change: (o) => void (rcc(o, 'docker.io').status.state = 'Sleeping'), state: 'Unknown', reason: 'InvalidData' },
  { title: 'an unknown Runtime state', runtime: PROD1, ext: RC, change: (o) => void (o.runtimeCR.status.state = 'Sleeping'), state: 'Unknown', reason: 'InvalidData' },
  { title: 'module Unmanaged', runtime: PROD1, ext: RC, change: (o) => void (moduleStatus(o, 'registry-cache').state = 'Unmanaged'), state: 'Unknown', reason: 'ModuleUnmanaged' },
  { title: 'an SKR of another subaccount (wrong kubeconfig or dump)', runtime: PROD1, ext: RC, change: (o) => void (o.skrKyma.metadata.labels['kyma-project.io/subaccount-id'] = '11111111-2222-4333-8444-555555555555'), state: 'Unknown', reason: 'IdentityMismatch', message: ['belongs to subaccount 11111111-2222-4333-8444-555555555555'] },

  // Precedence
  { title: 'Failed beats Drifted', runtime: 'acme-eu-prod-2', ext: RC, change: (o) => void (rcc(o, 'ghcr.io').status.state = 'Error'), state: 'Failed', reason: 'RegistryCacheConfigFailed' },
  { title: 'Drifted beats Unknown', runtime: 'acme-eu-prod-2', ext: RC, change: (o) => { o.read.delete('skr'); o.failures.push({ cluster: 'skr', reason: 'Timeout', message: 't' }); }, state: 'Drifted', reason: 'ShootConfigDrift' },
  { title: 'Unknown beats Progressing', runtime: 'acme-us-dev-2', ext: RC, change: (o) => void o.skrObjects.set('RegistryCacheConfig', []), state: 'Unknown', reason: 'NotFound' },
  { title: 'the config CR is named before the Runtime CR', runtime: 'acme-us-prod-1', ext: RC, change: (o) => void (o.runtimeCR.status.state = 'Failed'), state: 'Failed', reason: 'RegistryCacheConfigFailed' },
  {
    // As a real API server leaves acme-us-prod-1: the `state: Error` write refused, the config
    // Pending with KIM's Unknown condition; KIM's Runtime condition False still says it failed.
    title: 'a config stuck Pending by a refused Error write: the Runtime CR condition reports the failure',
    runtime: 'acme-us-prod-1',
    ext: RC,
    change: (o) => void Object.assign(rcc(o, 'us-docker.pkg.dev').status, { state: 'Pending', conditions: [{ type: 'RegistryCacheConfigured', status: 'Unknown', reason: 'RegistryCacheConfigured', message: '' }] }),
    state: 'Failed',
    reason: 'RuntimeConditionFalse',
    message: ['condition RegistryCacheConfigured False (RegistryCacheGardenClusterConfigurationFailed)'],
  },
];

describe('deriveStatus', () => {
  it.each(ROWS.map((r) => [`${r.state}/${r.reason}: ${r.title} (${r.runtime} ${r.ext})`, r] as const))('%s', (_title, row) => {
    const status = derive(row.runtime, row.change, undefined, row.applied);
    const e = status.extensions[row.ext]!;
    expect({ state: e.state, reason: e.reason }).toEqual({ state: row.state, reason: row.reason });
    for (const m of row.message ?? []) expect(e.message).toContain(m);
    expect(e.message.length).toBeGreaterThan(0);
    expect(e.message).not.toMatch(/[\u0000-\u001f\u007f]/);
  });

  it('covers every state and every reason of the vocabulary in the table above', () => {
    const seen = new Set(ROWS.map((r) => `${r.state}/${r.reason}`));
    const failureRows = new Set(READ_FAILURE_REASONS.map((r) => `Unknown/${r}`));
    for (const [state, reasons] of Object.entries(REASONS)) {
      for (const reason of reasons) {
        const key = `${state}/${reason}`;
        if (failureRows.has(key)) continue; // every read failure reason: the next test
        expect(seen.has(key), key).toBe(true);
      }
    }
  });

  it.each(READ_FAILURE_REASONS.map((r) => [r]))('reports the read failure %s as Unknown with that reason', (reason) => {
    const status = derive(PROD1, (o) => {
      o.read.delete('garden');
      o.failures.push({ cluster: 'garden', reason, message: `the ${reason} message` });
    });
    for (const ext of [RC, FALCO]) expect(status.extensions[ext]).toEqual({ state: 'Unknown', reason, message: `Garden cluster not read: the ${reason} message` });
  });

  it('treats an extension no layer mentions (unset) like a disabled one', () => {
    const ex = loadExample();
    const resolved = ex.resolved(PROD1);
    const { falco: _falco, ...rest } = resolved.settings.extensions;
    const unset = { ...resolved, settings: { ...resolved.settings, extensions: rest } };
    // An unset extension renders no Shoot entry.
    const shoot = structuredClone(ex.shoot(PROD1)!) as any;
    shoot.spec.extensions = shoot.spec.extensions.filter((e: any) => e.type !== 'shoot-falco-service');
    const off = derive(PROD1, (o) => void (o.shoot.spec.extensions = o.shoot.spec.extensions.filter((e: any) => e.type !== 'shoot-falco-service')), unset, undefined, shoot);
    expect(off.extensions.falco).toMatchObject({ state: 'Disabled', reason: 'DisabledInFleet' });
    const on = derive(PROD1, undefined, unset, undefined, shoot);
    expect(on.extensions.falco).toMatchObject({ state: 'Drifted', reason: 'ShootExtensionEnabled' });
  });

  it('gives a runtime the worst state of its extensions', () => {
    expect(derive(PROD1).state).toBe('Ready');
    expect(derive('acme-us-dev-1').state).toBe('Disabled');
    expect(derive('acme-eu-dev-1').state).toBe('Ready'); // Ready + Disabled
    expect(derive('acme-eu-sandbox').state).toBe('Unknown'); // Unknown + Disabled
    expect(derive('acme-us-prod-1').state).toBe('Failed'); // Failed + Ready
    expect(summaryState(['Progressing', 'Unknown', 'Ready'])).toBe('Unknown');
    expect(summaryState(['Progressing', 'Drifted', 'Unknown'])).toBe('Drifted');
    expect(summaryState(['Drifted', 'Failed'])).toBe('Failed');
    expect(summaryState([])).toBe('Disabled');
  });

  it('sanitises cluster text: ANSI escapes, control characters, newlines, 1 MB', () => {
    const hostile = '\u001b[31mred\u001b[0m\r\nline two\u0007 ' + '${HOME} <img src=x onerror=alert(1)> ' + 'x'.repeat(1024 * 1024);
    const status = derive('acme-us-prod-1', (o) => void (rcc(o, 'us-docker.pkg.dev').status.conditions[0].message = hostile));
    const m = status.extensions[RC]!.message;
    expect(m).toContain('red line two ${HOME} <img src=x onerror=alert(1)> xxx');
    expect(m).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/);
    expect(Array.from(m).length).toBe(512);
    expect(m.endsWith('…')).toBe(true);
  });

  it('never throws on objects of the wrong shape', () => {
    const ex = loadExample();
    const weird: unknown[] = [null, 7, 'x', [], {}, { spec: [] }, { status: [] }];
    for (const name of ['acme-eu-prod-1', 'acme-us-dev-1']) {
      for (const w of weird) {
        const o = observed(name);
        for (const field of ['spec', 'status'] as const) {
          o.shoot[field] = w;
          o.runtimeCR[field] = w;
          o.skrKyma[field] = w;
          for (const c of rccs(o)) c[field] = w;
          const s = deriveStatus(o as any, ex.resolved(name), ex.shoot(name), ex.model.options.extensionModules);
          expect(Object.keys(s.extensions).sort()).toEqual(['falco', 'lakom', 'registry-cache']);
        }
      }
    }
  });

  it('is deterministic: the same observation gives the same status', () => {
    expect(JSON.stringify(derive('acme-eu-prod-2'))).toBe(JSON.stringify(derive('acme-eu-prod-2')));
  });
});

describe('the status hook: the core asks every plug-in, by what it declares, never by name', () => {
  const WIDGET = { group: 'widgets.example.dev', version: 'v1', plural: 'widgets', kind: 'Widget' };
  const widget = { apiVersion: 'widgets.example.dev/v1', kind: 'Widget', metadata: { name: 'w1', namespace: 'a' }, status: { state: 'Pending' } };

  /** The registry-cache plug-in with another hook (and other fields overridden): the core must follow the declarations. */
  function withHook(hook: Partial<StatusHook> | undefined, overrides: Partial<ExtensionPlugin<any>> = {}): ExtensionPlugin<any>[] {
    const status: StatusHook | undefined = hook && { skrKinds: [WIDGET], reasons: { Progressing: ['WidgetPending'] }, findings: () => ({ findings: [], ready: [] }), ...hook };
    return EXTENSIONS.map((e) => (e.name === RC ? { ...e, status, ...overrides } : e));
  }

  function deriveWith(extensions: ExtensionPlugin<any>[], change?: (o: Mutable) => void) {
    const ex = loadExample();
    const o = observed(PROD1);
    o.skrObjects.set('Widget', [widget]);
    change?.(o);
    return deriveStatus(o as any, ex.resolved(PROD1), ex.shoot(PROD1), ex.model.options.extensionModules, extensions).extensions[RC]!;
  }

  it('hands the hook its resolved settings and the objects of its own kinds only, and merges what it finds', () => {
    const seen: StatusHookInput[] = [];
    const s = deriveWith(withHook({ findings: (input) => (seen.push(input), { findings: [{ state: 'Progressing', reason: 'WidgetPending', message: 'Widget a/w1: state Pending' }], ready: [] }) }));
    expect(s).toEqual({ state: 'Progressing', reason: 'WidgetPending', message: 'Widget a/w1: state Pending' });
    expect(seen).toHaveLength(1);
    expect(seen[0]!.config).toEqual(loadExample().resolved(PROD1).settings.extensions[RC]!.config);
    expect([...seen[0]!.skrObjects.keys()]).toEqual(['Widget']);
    expect(seen[0]!.skrObjects.get('Widget')).toEqual([widget]);
  });

  it('a hook finding wins over the Kyma module within one state, and the worst state wins across sources', () => {
    const failedWidget = { findings: () => ({ findings: [{ state: 'Failed' as const, reason: 'WidgetFailed', message: 'Widget a/w1: Failed' }], ready: [] }) };
    expect(deriveWith(withHook(failedWidget), (o) => void (moduleStatus(o, 'registry-cache').state = 'Error')).reason).toBe('WidgetFailed');
    const pendingWidget = { findings: () => ({ findings: [{ state: 'Progressing' as const, reason: 'WidgetPending', message: 'p' }], ready: [] }) };
    expect(deriveWith(withHook(pendingWidget), (o) => void (moduleStatus(o, 'registry-cache').state = 'Error')).reason).toBe('ModuleError');
  });

  it('the hook\'s ready phrases join the Ready message; an SKR not read is Unknown without asking the hook', () => {
    const ready = deriveWith(withHook({ findings: () => ({ findings: [], ready: ['1 Widget Ready'] }) }));
    expect(ready.state).toBe('Ready');
    expect(ready.message).toContain('lastOperation Reconcile Succeeded; 1 Widget Ready; Kyma kyma-system/default: module registry-cache Ready');
    let asked = false;
    const unread = deriveWith(withHook({ findings: () => ((asked = true), { findings: [], ready: [] }) }), (o) => {
      o.read.delete('skr');
      o.failures.push({ cluster: 'skr', reason: 'Forbidden', message: 'list widgets: 403' });
    });
    expect(unread).toEqual({ state: 'Unknown', reason: 'Forbidden', message: 'runtime cluster (SKR) not read: list widgets: 403' });
    expect(asked).toBe(false);
  });

  it('without a hook the extension\'s SKR objects are not judged; the Runtime CR matters only for entries KIM writes', () => {
    expect(deriveWith(withHook(undefined), (o) => void (rcc(o, 'docker.io').status.state = 'Failed'))).toMatchObject({ state: 'Ready', reason: 'Reconciled' });
    const runtimeFailed = (o: Mutable): void => void (o.runtimeCR.status.state = 'Failed');
    expect(deriveWith(withHook(undefined), runtimeFailed).reason).toBe('RuntimeFailed');
    expect(deriveWith(withHook(undefined, { shootEntryWrittenBy: undefined }), runtimeFailed)).toMatchObject({ state: 'Ready', reason: 'Reconciled' });
  });

  it('a Runtime condition False fails the extension only when its hook claims that condition', () => {
    const condition = (o: Mutable): void => {
      o.runtimeCR.status.state = 'Pending';
      o.runtimeCR.status.conditions.push({ type: 'WidgetsConfigured', status: 'False', reason: 'Broken', message: 'widgets broken' });
    };
    expect(deriveWith(withHook({}), condition).reason).toBe('RuntimePending');
    expect(deriveWith(withHook({ runtimeConditions: /widget/i }), condition)).toMatchObject({ state: 'Failed', reason: 'RuntimeConditionFalse' });
  });

  it('the vocabulary holds the reasons the hooks declare', () => {
    expect(REASONS.Failed).toContain('RegistryCacheConfigFailed');
    expect(REASONS.Progressing).toContain('RegistryCacheConfigPending');
    expect(statusReasons(withHook({})).Progressing).toContain('WidgetPending');
    expect(statusReasons(withHook({})).Progressing).not.toContain('RegistryCacheConfigPending');
  });
});
