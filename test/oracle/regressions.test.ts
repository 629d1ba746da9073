// Product bugs the oracle found, kept as regression tests (docs/testing.md, "The upstream oracle").
//
// 1. A Falco destination Secret whose name contains "reg-cache-" (e.g. falco-reg-cache-webhook) was
//    accepted by kyma-fleet and rendered into the Shoot's spec.resources; KIM's patch drops every
//    resource whose name contains "reg-cache-" (the judge reported `KIM registry-cache: differs:
//    spec.resources: kyma-fleet writes {name: falco-reg-cache-webhook, ...}, KIM does not`), after which
//    the custom destination fails Falco admission ("custom event destination config ... not found in
//    resources"). kyma-fleet now refuses the name, as it does for registry-cache and Lakom Secrets.

import { afterEach, expect, it } from 'vitest';
import { FleetFixture } from '../helpers/fleet-fixture';
import { describeWithOracle } from './describe-with-oracle';
import { Oracle } from './oracle';

const DESTINATIONS = `        destinations:
          - name: logging
          - name: stdout`;
const CUSTOM = (secret: string) => `        destinations:
          - name: stdout
          - name: custom
            resourceSecretName: ${secret}`;

let fixture: FleetFixture | undefined;
afterEach(() => {
  fixture?.cleanup();
  fixture = undefined;
});

it('kyma-fleet refuses a Falco destination Secret named with KIM\'s reserved "reg-cache-"', async () => {
  fixture = FleetFixture.example().replace('groups/production.yaml', DESTINATIONS, CUSTOM('falco-reg-cache-webhook'));
  const r = await fixture.validate();
  expect(r.code).toBe(1);
  expect(r.errLines).toContainEqual(
    expect.stringMatching(
      /^fleet\/groups\/production\.yaml:\d+:\d+: error at settings\.extensions\.falco\.destinations\[name=custom\]\.resourceSecretName: must not contain "reg-cache-": KIM removes the Shoot resources whose name contains it \(got "falco-reg-cache-webhook"\) \[E_FALCO_DESTINATION\]$/,
    ),
  );
  // Other names stay fine.
  fixture.cleanup();
  fixture = FleetFixture.example().replace('groups/production.yaml', DESTINATIONS, CUSTOM('falco-webhook'));
  expect((await fixture.validate()).code).toBe(0);
});

describeWithOracle('why: KIM drops such a resource', () => {
  it('the oracle shows KIM removing a resource named with "reg-cache-" that another extension needs', async () => {
    const oracle = await Oracle.start();
    try {
      const secret = (name: string) => ({ name, resourceRef: { apiVersion: 'v1', kind: 'Secret', name } });
      const rendered = (name: string) => ({
        apiVersion: 'core.gardener.cloud/v1beta1',
        kind: 'Shoot',
        metadata: { name: 'c-1', namespace: 'garden-p' },
        spec: {
          extensions: [{ type: 'shoot-falco-service', providerConfig: { apiVersion: 'falco.extensions.gardener.cloud/v1alpha1', kind: 'FalcoServiceConfig', destinations: [{ name: 'custom', resourceSecretName: name }] } }],
          resources: [secret(name)],
        },
      });
      const runtime = { apiVersion: 'infrastructuremanager.kyma-project.io/v1', kind: 'Runtime', metadata: { name: 'rt' }, spec: { imageRegistryCache: [] } };
      const bad = await oracle.ask('kim/registry-cache', { runtime, rendered: rendered('falco-reg-cache-webhook') });
      expect(bad.comparison!.differences).toEqual([
        'spec.resources: kyma-fleet writes {name: falco-reg-cache-webhook, resourceRef: {apiVersion: v1, kind: Secret, name: falco-reg-cache-webhook}}, KIM does not (KIM drops every resource whose name contains "reg-cache-")',
      ]);
      const good = await oracle.ask('kim/registry-cache', { runtime, rendered: rendered('falco-webhook') });
      expect(good.comparison).toMatchObject({ equal: true });
    } finally {
      await oracle.close();
    }
  });
});
