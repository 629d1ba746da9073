// Table of the core (non-extension) rules: every rule of the fleet format with the exact line it
// prints. Each case edits a copy of the example fleet; `bad.yaml` is runtime() from the catalogue.

import { runtime } from '../hostile/catalogue';

export interface CoreCase {
  readonly name: string;
  readonly files: Readonly<Record<string, string | null>>;
  /** In-place edits of example-fleet files: [file, text, replacement]. */
  readonly replace?: ReadonlyArray<readonly [string, string, string]>;
  readonly exit?: number;
  readonly expect: readonly string[];
}

const bad = (extra: string): Record<string, string> => ({ 'runtimes/bad.yaml': runtime('bad', extra) });
const group = (name: string, body: string): Record<string, string> => ({
  [`groups/${name}.yaml`]: `apiVersion: kyma-fleet.dev/v1alpha1\nkind: RuntimeGroup\nmetadata:\n  name: ${name}\nspec:\n${body}`,
});

export const CORE_CASES: readonly CoreCase[] = [
  { name: 'channel shorter than 3', files: bad('  channel: ab\n'), expect: [
    "fleet/runtimes/bad.yaml:13:12: error at channel: should be at least 3 chars long (got \"ab\") [E_CHANNEL]",
  ] },
  { name: 'channel longer than 32', files: bad('  channel: ' + 'a'.repeat(33) + '\n'), expect: [
    "fleet/runtimes/bad.yaml:13:12: error at channel: must be at most 32 characters (got 33) [E_TOO_LONG]",
  ] },
  { name: 'channel with a digit', files: bad('  channel: fast1\n'), expect: [
    "fleet/runtimes/bad.yaml:13:12: error at channel: must be lowercase letters only (got \"fast1\") [E_CHANNEL]",
  ] },
  { name: 'channel none', files: bad('  channel: none\n'), expect: [
    "fleet/runtimes/bad.yaml:13:12: error at channel: value \"none\" is not allowed in spec.channel [E_CHANNEL]",
  ] },
  { name: 'duplicate module', files: bad('  modules:\n    - name: serverless\n    - name: serverless\n'), expect: [
    "fleet/runtimes/bad.yaml:15:13: error at modules[1].name: Duplicate value: \"serverless\" (first defined at modules[0]) [E_MODULE_DUPLICATE]",
  ] },
  { name: 'module name outside the catalog pattern', files: bad('  modules:\n    - name: registrycache_1\n'), expect: [
    "fleet/runtimes/bad.yaml:14:13: error at modules[name=registrycache_1].name: must be the name of a module: lowercase words of at least 3 letters joined by '-', so no module can have this name (got \"registrycache_1\") [E_MODULE_NAME]",
  ] },
  { name: 'extension module listed as a regular module', files: bad('  modules:\n    - name: registry-cache\n'), expect: [
    "fleet/runtimes/bad.yaml:14:13: error at modules[name=registry-cache].name: module \"registry-cache\" is added by extensions.registry-cache; enable the extension instead of listing the module [E_MODULE_MANAGED_BY_EXTENSION]",
  ] },
  { name: 'module channel none', files: bad('  modules:\n    - name: serverless\n      channel: none\n'), expect: [
    "fleet/runtimes/bad.yaml:15:16: error at modules[name=serverless].channel: invalid configuration in Kyma spec.modules for module serverless: Channel \"none\" is not allowed [E_CHANNEL]",
  ] },
  { name: 'customResourcePolicy not in the enum', files: bad('  modules:\n    - name: serverless\n      customResourcePolicy: Delete\n'), expect: [
    "fleet/runtimes/bad.yaml:15:29: error at modules[name=serverless].customResourcePolicy: Unsupported value: \"Delete\": supported values: \"CreateAndDelete\", \"Ignore\" [E_ENUM]",
  ] },
  { name: 'module version', files: bad('  modules:\n    - name: serverless\n      version: 1.2.3\n'), expect: [
    "fleet/runtimes/bad.yaml:15:7: error at modules[name=serverless].version: unknown field \"version\": Kyma does not accept module versions (the field is pruned); pin a channel instead [E_UNKNOWN_FIELD]",
  ] },
  { name: 'module without name', files: bad('  modules:\n    - channel: fast\n'), expect: [
    "fleet/runtimes/bad.yaml:14:7: error at modules[0].name: Required value: field is required [E_REQUIRED]",
  ] },
  { name: 'runtime ID not a UUID', files: { 'runtimes/bad.yaml': runtime('bad', '', 'not-a-uuid') }, expect: [
    "fleet/runtimes/bad.yaml:6:14: error at runtimeID: must be a UUID such as 3f1e8d62-9c1a-4c4e-8a0e-2b7f6d1c9e01 (got \"not-a-uuid\") [E_RUNTIME_ID]",
  ] },
  { name: 'account ID not a label value', files: { 'runtimes/bad.yaml': runtime('bad').replace('globalAccountID: ga-1', 'globalAccountID: "-ga"') }, expect: [
    "fleet/runtimes/bad.yaml:7:20: error at globalAccountID: label value must be at most 63 characters of alphanumerics, '-', '_' or '.', starting and ending with an alphanumeric (got \"-ga\") [E_IDENTITY]",
  ] },
  { name: 'shoot name not a DNS label', files: { 'runtimes/bad.yaml': runtime('bad').replace('name: c-bad', 'name: C_Bad') }, expect: [
    "fleet/runtimes/bad.yaml:11:11: error at shoot.name: must be a DNS-1123 label (got \"C_Bad\"); use \"c-bad\" [E_IDENTITY]",
  ] },
  { name: 'two runtimes on one Shoot', files: { 'runtimes/bad.yaml': runtime('bad').replace('name: c-bad', 'name: c-3f1e8d6').replace('project: kyma-dev', 'project: kyma-prod') }, expect: [
    "fleet/runtimes/acme-eu-prod-1.yaml:15:11: error at shoot.name: Shoot garden-kyma-prod/c-3f1e8d6 is also declared in fleet/runtimes/bad.yaml:11:11 (git cannot tell which file is new); keep it in one file [E_DUPLICATE_SHOOT]",
    "fleet/runtimes/bad.yaml:11:11: error at shoot.name: Shoot garden-kyma-prod/c-3f1e8d6 is also declared in fleet/runtimes/acme-eu-prod-1.yaml:15:11 (git cannot tell which file is new); keep it in one file [E_DUPLICATE_SHOOT]",
  ] },
  { name: 'invalid label key and value', files: { 'runtimes/bad.yaml': runtime('bad').replace('metadata:\n', 'metadata:\n  labels:\n    "-tier": x\n    geo: "eu!"\n') }, expect: [
    "fleet/runtimes/bad.yaml:5:5: error at metadata.labels.-tier: label key name must be 1-63 characters of alphanumerics, '-', '_' or '.', starting and ending with an alphanumeric (got \"-tier\") [E_LABEL]",
    "fleet/runtimes/bad.yaml:6:10: error at metadata.labels.geo: label value must be at most 63 characters of alphanumerics, '-', '_' or '.', starting and ending with an alphanumeric (got \"eu!\") [E_LABEL]",
  ] },
  { name: 'wrong apiVersion', files: { 'runtimes/bad.yaml': runtime('bad').replace('kyma-fleet.dev/v1alpha1', 'kyma-fleet.dev/v1') }, expect: [
    "fleet/runtimes/bad.yaml:1:13: error at apiVersion: apiVersion must be \"kyma-fleet.dev/v1alpha1\" (got \"kyma-fleet.dev/v1\") [E_API_VERSION]",
  ] },
  { name: 'wrong kind for the folder', files: { 'runtimes/bad.yaml': runtime('bad').replace('kind: KymaRuntime', 'kind: RuntimeGroup') }, expect: [
    "fleet/runtimes/bad.yaml:2:7: error at kind: files in runtimes/ must declare kind KymaRuntime (got \"RuntimeGroup\") [E_KIND]",
  ] },
  { name: 'a list instead of a map', files: { 'runtimes/bad.yaml': '- a\n- b\n' }, expect: [
    "fleet/runtimes/bad.yaml:1:1: error: a fleet file must be a map with apiVersion, kind, metadata and spec (got a list) [E_TYPE]",
  ] },
  { name: 'missing identity fields', files: { 'runtimes/bad.yaml': 'apiVersion: kyma-fleet.dev/v1alpha1\nkind: KymaRuntime\nmetadata:\n  name: bad\nspec:\n  region: eu-central-1\n' }, expect: [
    "fleet/runtimes/bad.yaml:6:3: error at globalAccountID: Required value: field is required [E_REQUIRED]",
    "fleet/runtimes/bad.yaml:6:3: error at runtimeID: Required value: field is required [E_REQUIRED]",
    "fleet/runtimes/bad.yaml:6:3: error at shoot: Required value: field is required [E_REQUIRED]",
    "fleet/runtimes/bad.yaml:6:3: error at subaccountID: Required value: field is required [E_REQUIRED]",
  ] },
  { name: 'unknown field with a suggestion', files: bad('  chanel: fast\n'), expect: [
    "fleet/runtimes/bad.yaml:13:3: error at chanel: unknown field \"chanel\" (did you mean \"channel\"?) [E_UNKNOWN_FIELD]",
  ] },
  { name: 'selector In without values', files: group('g', '  selector:\n    matchExpressions:\n      - key: tier\n        operator: In\n  priority: 1\n'), expect: [
    "fleet/groups/g.yaml:8:9: error at selector.matchExpressions[0].values: values: Required value: must be specified when operator is In [E_SELECTOR]",
  ] },
  { name: 'selector Exists with values', files: group('g', '  selector:\n    matchExpressions:\n      - key: tier\n        operator: Exists\n        values: [a]\n  priority: 1\n'), expect: [
    "fleet/groups/g.yaml:10:17: error at selector.matchExpressions[0].values: values: Forbidden: may not be specified when operator is Exists [E_SELECTOR]",
  ] },
  { name: 'selector operator not in the enum', files: group('g', '  selector:\n    matchExpressions:\n      - key: tier\n        operator: Equals\n        values: [a]\n  priority: 1\n'), expect: [
    "fleet/groups/g.yaml:9:19: error at selector.matchExpressions[0].operator: Unsupported value: \"Equals\": supported values: \"In\", \"NotIn\", \"Exists\", \"DoesNotExist\" [E_ENUM]",
  ] },
  { name: 'group priority not an integer', files: group('g', '  selector: {}\n  priority: 1.5\n'), expect: [
    "fleet/groups/g.yaml:7:13: error at priority: must be an integer (got number 1.5) [E_TYPE]",
  ] },
  { name: 'group name differs from the file', files: { 'groups/g.yaml': group('h', '  selector: {}\n  priority: 1\n')['groups/h.yaml']! }, expect: [
    "fleet/groups/g.yaml:4:9: error at metadata.name: must equal the file name \"g\" (got \"h\"); rename the file or the declaration [E_NAME_MISMATCH]",
  ] },
  { name: 'fleet.yaml missing', files: { 'fleet.yaml': null }, expect: [
    "fleet/fleet.yaml:1:1: error: the fleet folder needs a fleet.yaml (kind: Fleet) [E_MISSING_FLEET_FILE]",
  ] },
  { name: 'fleet.yml next to fleet.yaml', files: { 'fleet.yml': 'x: 1\n' }, expect: [
    "fleet/fleet.yml:1:1: error: fleet files end in .yaml; rename fleet.yml to fleet.yaml [E_FILE_EXTENSION]",
  ] },
  { name: 'policy requiring an unknown extension', files: {}, replace: [['fleet.yaml', '        - falco\n', '        - falko\n']], expect: [
    "fleet/fleet.yaml:33:11: error at policies[name=production-runs-falco].requireExtensions[0]: unknown extension \"falko\"; supported: registry-cache, falco, lakom [E_EXTENSION_UNKNOWN]",
  ] },
  { name: 'extensionModules true', files: {}, replace: [['fleet.yaml', '  kim:\n', '  extensionModules:\n    falco: true\n  kim:\n']], expect: [
    "fleet/fleet.yaml:12:12: error at extensionModules.falco: must be a module name or false (got true) [E_TYPE]",
  ] },
  { name: 'kcpNamespace not a DNS label', files: {}, replace: [['fleet.yaml', 'kcpNamespace: kcp-system', 'kcpNamespace: KCP']], expect: [
    "fleet/fleet.yaml:8:17: error at kcpNamespace: must be a DNS-1123 label (got \"KCP\"); use \"kcp\" [E_NAMESPACE]",
  ] },
  { name: 'no layer sets a channel', files: {}, replace: [['fleet.yaml', '    channel: regular\n', '']], expect: [
    "fleet/runtimes/acme-eu-prod-1.yaml:10:3: error at channel: spec.channel: Required value: no layer sets the Kyma channel of runtime \"acme-eu-prod-1\"; set channel in fleet.yaml defaults [E_CHANNEL]",
    "fleet/runtimes/acme-eu-prod-2.yaml:10:3: error at channel: spec.channel: Required value: no layer sets the Kyma channel of runtime \"acme-eu-prod-2\"; set channel in fleet.yaml defaults [E_CHANNEL]",
    "fleet/runtimes/acme-eu-sandbox.yaml:10:3: error at channel: spec.channel: Required value: no layer sets the Kyma channel of runtime \"acme-eu-sandbox\"; set channel in fleet.yaml defaults [E_CHANNEL]",
    "fleet/runtimes/acme-us-dev-1.yaml:10:3: error at channel: spec.channel: Required value: no layer sets the Kyma channel of runtime \"acme-us-dev-1\"; set channel in fleet.yaml defaults [E_CHANNEL]",
    "fleet/runtimes/acme-us-dev-2.yaml:10:3: error at channel: spec.channel: Required value: no layer sets the Kyma channel of runtime \"acme-us-dev-2\"; set channel in fleet.yaml defaults [E_CHANNEL]",
    "fleet/runtimes/acme-us-prod-1.yaml:10:3: error at channel: spec.channel: Required value: no layer sets the Kyma channel of runtime \"acme-us-prod-1\"; set channel in fleet.yaml defaults [E_CHANNEL]",
  ] },
  { name: 'extension configured but never enabled (warning)', exit: 0, files: bad('  extensions:\n    falco:\n      autoUpdate: false\n'), replace: [['fleet.yaml', '      falco:\n        enabled: false\n', '']], expect: [
    "fleet/runtimes/bad.yaml:15:19: warning at extensions.falco.autoUpdate: extensions.falco is configured for runtime \"bad\" but no layer sets enabled: true, so it stays off [W_EXTENSION_NOT_ENABLED]",
  ] },
  { name: 'a file that is not YAML in runtimes/ (warning)', exit: 0, files: { 'runtimes/README.md': '# notes\n' }, expect: [
    "fleet/runtimes/README.md:1:1: warning: only *.yaml files are read in runtimes/; this file is ignored [W_IGNORED_FILE]",
  ] },
  { name: 'a subfolder in runtimes/ (warning)', exit: 0, files: { 'runtimes/old/x.yaml': 'x: 1\n' }, expect: [
    "fleet/runtimes/old:1:1: warning: subfolders of runtimes/ are not read [W_IGNORED_FILE]",
  ] },
];
