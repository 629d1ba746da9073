// "Did you mean …?" for an unknown key under `extensions` (issue 21): the suggestion knows the Shoot
// extension type each plug-in renders and compares types by the part that names the extension, so
// shoot-lakom-service never suggests falco, with or without Lakom registered.

import { describe, expect, it } from 'vitest';
import { EXTENSIONS } from '../../src/extensions';
import { extensionTypeCore, suggestExtension } from '../../src/validate/schema-check';
import { checkFleet } from '../../src/run/check';
import { FleetFixture, NOW } from '../helpers/fleet-fixture';

const WITHOUT_LAKOM = EXTENSIONS.filter((e) => e.name !== 'lakom');

/** [key, suggestion with every extension, suggestion without lakom]; 'type:' when the key was taken for the Shoot type. */
const CASES: ReadonlyArray<readonly [string, string | undefined, string | undefined]> = [
  ['shoot-lakom-service', 'type:lakom', undefined],
  ['shoot_lakom_service', 'type:lakom', undefined],
  ['shoot-lakom', 'type:lakom', undefined],
  ['lakom-service', 'type:lakom', undefined],
  ['shoot-lakom-svc', 'type:lakom', undefined],
  ['lakon', 'lakom', undefined],
  ['shoot-falco-service', 'type:falco', 'type:falco'],
  ['shoot-falco-servce', 'type:falco', 'type:falco'],
  ['shoot-falco', 'type:falco', 'type:falco'],
  ['falco-service', 'type:falco', 'type:falco'],
  ['falko', 'falco', 'falco'],
  ['registrycache', 'registry-cache', 'registry-cache'],
  ['registry-cach', 'registry-cache', 'registry-cache'],
  ['shoot-registry-cache-service', 'registry-cache', 'registry-cache'],
  ['shoot-dns', undefined, undefined],
  ['shoot-networking-problemdetector', undefined, undefined],
  ['istio', undefined, undefined],
];

const shown = (s: ReturnType<typeof suggestExtension>): string | undefined => (s ? `${s.asShootType ? 'type:' : ''}${s.plugin.name}` : undefined);

describe('the suggestion for an unknown extension', () => {
  it.each(CASES)('%s -> %s (without lakom: %s)', (key, all, withoutLakom) => {
    expect(shown(suggestExtension(key, EXTENSIONS))).toBe(all);
    expect(shown(suggestExtension(key, WITHOUT_LAKOM))).toBe(withoutLakom);
  });

  it('takes the part of a Shoot type that names the extension', () => {
    expect(extensionTypeCore('shoot-lakom-service')).toBe('lakom');
    expect(extensionTypeCore('Shoot_Falco_Service')).toBe('falco');
    expect(extensionTypeCore('registry-cache')).toBe('registry-cache');
    expect(extensionTypeCore('service')).toBe('service');
  });

  it('says it in the validation error, with file, line, column and field', () => {
    const fx = FleetFixture.example();
    try {
      fx.append('runtimes/acme-eu-dev-1.yaml', '  extensions:\n    shoot-lakom-service: {enabled: true}\n');
      const checked = checkFleet({ fleetDir: fx.fleetDir, cwd: fx.dir, now: new Date(NOW) });
      const d = checked.diagnostics.find((x) => x.code === 'E_EXTENSION_UNKNOWN' && x.field === 'extensions.shoot-lakom-service')!;
      expect(d).toMatchObject({ file: 'fleet/runtimes/acme-eu-dev-1.yaml', field: 'extensions.shoot-lakom-service' });
      expect(d.line).toBeGreaterThan(1);
      expect(d.message).toContain('(did you mean "lakom"? the Shoot extension shoot-lakom-service is configured as extensions.lakom)');
      const without = checkFleet({ fleetDir: fx.fleetDir, cwd: fx.dir, now: new Date(NOW), extensions: WITHOUT_LAKOM });
      const w = without.diagnostics.find((x) => x.code === 'E_EXTENSION_UNKNOWN' && x.field === 'extensions.shoot-lakom-service')!;
      expect(w.message).toMatch(/^unknown extension "shoot-lakom-service"; supported: /);
    } finally {
      fx.cleanup();
    }
  });
});
