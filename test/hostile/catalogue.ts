// The hostile-input catalogue of ../shared/reference/hostile-inputs.md (H01–H52) as data: the bad
// fleet each row describes, and the exact one-line error(s) `kyma-fleet validate` must print.
// Rows are applied to a copy of the example fleet; `bad.yaml` is a minimal runtime no group selects.

export interface HostileCase {
  readonly id: string;
  readonly title: string;
  /** Files to write into the fleet folder (relative paths); `null` deletes. */
  readonly files?: Readonly<Record<string, string | Uint8Array | null>>;
  /** Symlinks to create: fleet-relative path -> target (absolute or relative). */
  readonly symlinks?: Readonly<Record<string, string>>;
  /** Files to write and synth into dist/ BEFORE `files` are applied (the previous render). */
  readonly renderedBefore?: Readonly<Record<string, string>>;
  readonly args?: readonly string[];
  /** Expected exit code (default 1). */
  readonly exit?: number;
  /** Lines that must appear exactly on stderr. */
  readonly expect: readonly string[];
}

/** A runtime file with identity on lines 1-12 and `extra` from line 13. */
export function runtime(name: string, extra = '', id = '5c0ffee0-0000-4000-8000-000000000001'): string {
  return [
    'apiVersion: kyma-fleet.dev/v1alpha1',
    'kind: KymaRuntime',
    'metadata:',
    `  name: ${name}`,
    'spec:',
    `  runtimeID: ${id}`,
    '  globalAccountID: ga-1',
    '  subaccountID: sa-1',
    '  region: eu-central-1',
    '  shoot:',
    `    name: c-${name.slice(0, 20)}`,
    '    project: kyma-dev',
    extra,
  ].join('\n');
}

const bad = (extra: string): Record<string, string> => ({ 'runtimes/bad.yaml': runtime('bad', extra) });

export const CATALOGUE: readonly HostileCase[] = [
  { id: 'H01', title: 'malformed YAML: unclosed quote', files: bad('  channel: "regular\n'), expect: [
      "fleet/runtimes/bad.yaml:14:1: error: a quoted value is not closed: add the closing quote [E_YAML_SYNTAX]",
    ] },
  { id: 'H01b', title: 'malformed YAML: a: b: c', files: bad('  channel: a: b\n'), expect: [
      "fleet/runtimes/bad.yaml:13:12: error: a value runs on into the next line, which YAML then reads as a key: check the indentation of the next line, or quote a value that contains \": \" [E_YAML_SYNTAX]",
    ] },
  { id: 'H02', title: 'tabs as indentation', files: bad('  extensions:\n\tfalco: {}\n'), expect: [
      "fleet/runtimes/bad.yaml:14:1: error: a tab is used for indentation: indent with spaces [E_YAML_SYNTAX]",
    ] },
  { id: 'H03', title: 'two documents in one file', files: bad('---\nkind: KymaRuntime\n'), expect: [
      "fleet/runtimes/bad.yaml:13:1: error: file holds 2 YAML documents; exactly one declaration per file is allowed [E_MULTI_DOC]",
    ] },
  { id: 'H04', title: 'empty file', files: { 'runtimes/bad.yaml': '# nothing here\n' }, expect: [
      "fleet/runtimes/bad.yaml:1:1: error: file holds no YAML document (exactly one declaration per file is expected) [E_EMPTY_FILE]",
    ] },
  { id: 'H05', title: 'Latin-1 bytes', files: { 'runtimes/bad.yaml': Buffer.from(runtime('bad', '  channel: caf\xe9\n'), 'latin1') }, expect: [
      "fleet/runtimes/bad.yaml:13:15: error: invalid UTF-8 sequence at byte offset 261; save the file as UTF-8 [E_ENCODING]",
    ] },
  { id: 'H06', title: 'UTF-16 file', files: { 'runtimes/bad.yaml': Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(runtime('bad'), 'utf16le')]) }, expect: [
      "fleet/runtimes/bad.yaml:1:1: error: file is UTF-16 encoded; save it as UTF-8 [E_ENCODING]",
    ] },
  { id: 'H07', title: 'UTF-8 BOM is accepted', files: { 'runtimes/bad.yaml': '\ufeff' + runtime('bad') }, exit: 0, expect: [] },
  { id: 'H08', title: 'CRLF line endings are accepted', files: { 'runtimes/bad.yaml': runtime('bad', '  channel: fast\n').replace(/\n/g, '\r\n') }, exit: 0, expect: [] },
  { id: 'H09', title: 'NUL written as an escape in a value', files: bad('  channel: "re\\0gular"\n'), expect: [
      "fleet/runtimes/bad.yaml:13:12: error at channel: character U+0000 (NUL) is not allowed in values [E_CONTROL_CHAR]",
    ] },
  { id: 'H09b', title: 'raw NEL and LINE SEPARATOR in values', files: bad('  modules:\n    - name: a\u0085b\n    - name: c\u2028d\n'), expect: [
      "fleet/runtimes/bad.yaml:14:14: error: character U+0085 (NEL (next line)) is not allowed [E_CONTROL_CHAR]",
      "fleet/runtimes/bad.yaml:15:14: error: character U+2028 (LINE SEPARATOR) is not allowed [E_CONTROL_CHAR]",
    ] },
  { id: 'H10', title: 'bidi override in a key', files: bad('  chan\u202Enel: regular\n'), expect: [
      "fleet/runtimes/bad.yaml:13:7: error: character U+202E (RIGHT-TO-LEFT OVERRIDE) is not allowed [E_CONTROL_CHAR]",
    ] },
  { id: 'H11', title: 'implicit key over 1024 characters', files: bad('  ' + 'k'.repeat(1100) + ': 1\n'), expect: [
      "fleet/runtimes/bad.yaml:13:3: error: a key is longer than 1024 characters (or a line YAML reads as a key runs on): shorten it, or check the indentation and quoting [E_YAML_SYNTAX]",
    ] },
  { id: 'H12', title: 'billion laughs (anchors and aliases)', files: bad('  modules: &a [{name: lol}]\n  channel: *a\n'), expect: [
      "fleet/runtimes/bad.yaml:13:15: error at modules: YAML anchors are not allowed (found &a) [E_ANCHOR_FORBIDDEN]",
      "fleet/runtimes/bad.yaml:14:12: error at channel: YAML aliases are not allowed (found *a) [E_ALIAS_FORBIDDEN]",
    ] },
  { id: 'H13', title: 'merge key <<', files: bad('  extensions:\n    falco:\n      <<: {enabled: true}\n'), expect: [
      "fleet/runtimes/bad.yaml:15:7: error at extensions.falco[\"<<\"]: YAML merge keys (<<) are not allowed [E_MERGE_KEY_FORBIDDEN]",
    ] },
  { id: 'H14', title: 'deep flow nesting', files: bad('  channel: ' + '['.repeat(5000) + '\n'), expect: [
      "fleet/runtimes/bad.yaml:13:74: error: nesting deeper than 64 levels is not allowed [E_TOO_DEEP]",
    ] },
  { id: 'H14b', title: 'deep block sequence nesting', files: bad('  modules:\n' + '    ' + '- '.repeat(3000) + 'x\n'), expect: [
      "fleet/runtimes/bad.yaml:14:5: error: nesting deeper than 64 levels is not allowed [E_TOO_DEEP]",
    ] },
  { id: 'H15', title: 'huge file', files: { 'runtimes/bad.yaml': new Uint8Array(50 * 1024 * 1024) }, expect: [
      "fleet/runtimes/bad.yaml:1:1: error: file is 52428800 bytes; the limit is 1048576 bytes [E_FILE_TOO_LARGE]",
    ] },
  { id: 'H16', title: 'very long scalar', files: bad('  channel: ' + 'a'.repeat(5000) + '\n'), expect: [
      "fleet/runtimes/bad.yaml:13:12: error at channel: must be at most 32 characters (got 5000) [E_TOO_LONG]",
    ] },
  { id: 'H17', title: 'string built to backtrack a pattern', files: bad('  channel: "' + 'a'.repeat(30) + '!"\n'), expect: [
      "fleet/runtimes/bad.yaml:13:12: error at channel: must be lowercase letters only (got \"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!\") [E_CHANNEL]",
    ] },
  { id: 'H19', title: 'no runtimes at all', files: Object.fromEntries(['acme-eu-dev-1', 'acme-eu-prod-1', 'acme-eu-prod-2', 'acme-eu-sandbox', 'acme-us-dev-1', 'acme-us-dev-2', 'acme-us-prod-1'].map((n) => [`runtimes/${n}.yaml`, null])), expect: [
      "fleet/runtimes:1:1: error: the fleet declares no runtimes; an empty fleet would remove every runtime from dist/ (pass --allow-empty if that is intended) [E_EMPTY_FLEET]",
    ] },
  { id: 'H20', title: 'duplicate keys', files: bad('  channel: fast\n  channel: regular\n'), expect: [
      "fleet/runtimes/bad.yaml:14:3: error at channel: duplicate key \"channel\" (first defined at line 13) [E_DUPLICATE_KEY]",
    ] },
  { id: 'H20b', title: 'duplicate keys 1 and "1"', files: bad('  extensions:\n    1: a\n    "1": b\n'), expect: [
      "fleet/runtimes/bad.yaml:15:5: error at extensions.1: duplicate key \"1\" (first defined at line 14) [E_DUPLICATE_KEY]",
    ] },
  { id: 'H21', title: 'typo in a field name', files: bad('  extensions:\n    registry-cache:\n      enabled: true\n      caches:\n        - upstrem: docker.io\n'), expect: [
      "fleet/runtimes/bad.yaml:17:11: error at extensions.registry-cache.caches[0].upstream: Required value: field is required [E_REQUIRED]",
      "fleet/runtimes/bad.yaml:17:11: error at extensions.registry-cache.caches[0].upstrem: unknown field \"upstrem\" (did you mean \"upstream\"?) [E_UNKNOWN_FIELD]",
    ] },
  { id: 'H22', title: 'wrong type', files: bad('  extensions:\n    registry-cache:\n      enabled: "true"\n      caches: {upstream: docker.io}\n'), expect: [
      "fleet/runtimes/bad.yaml:15:16: error at extensions.registry-cache.enabled: must be a boolean (got string \"true\") [E_TYPE]",
      "fleet/runtimes/bad.yaml:16:15: error at extensions.registry-cache.caches: must be a list (got a map) [E_TYPE]",
    ] },
  { id: 'H23', title: 'YAML 1.1 boolean', files: bad('  extensions:\n    falco:\n      enabled: yes\n'), expect: [
      "fleet/runtimes/bad.yaml:15:16: error at extensions.falco.enabled: must be a boolean (got string \"yes\"): YAML 1.1 word \"yes\" is a string in YAML 1.2; write true instead [E_TYPE]",
    ] },
  { id: 'H24', title: '%YAML 1.1 directive', files: { 'runtimes/bad.yaml': '%YAML 1.1\n---\n' + runtime('bad') }, expect: [
      "fleet/runtimes/bad.yaml:1:1: error: YAML directives are not allowed (found \"%YAML 1.1\"); files are always read as YAML 1.2 [E_DIRECTIVE_FORBIDDEN]",
    ] },
  { id: 'H25', title: 'version read as a number', files: bad('  extensions:\n    falco:\n      enabled: true\n      falcoVersion: 0.40\n'), expect: [
      "fleet/runtimes/bad.yaml:16:21: error at extensions.falco.falcoVersion: must be a string (got number 0.40); quote it: \"0.40\" [E_TYPE]",
    ] },
  { id: 'H26', title: 'hex and octal numbers', files: { 'groups/hex.yaml': 'apiVersion: kyma-fleet.dev/v1alpha1\nkind: RuntimeGroup\nmetadata:\n  name: hex\nspec:\n  selector: {}\n  priority: 0x1F\n' }, expect: [
      "fleet/groups/hex.yaml:7:13: error at priority: numbers must be written in plain decimal (got 0x1F); quote the value if it is text [E_NUMBER_FORMAT]",
    ] },
  { id: 'H27', title: 'sizes as numbers and bad units', files: bad('  extensions:\n    registry-cache:\n      caches:\n        - upstream: docker.io\n          volume:\n            size: 10GB\n        - upstream: quay.io\n          volume:\n            size: 10\n        - upstream: gcr.io\n          volume:\n            size: "-5Gi"\n'), expect: [
      "fleet/runtimes/bad.yaml:18:19: error at extensions.registry-cache.caches[upstream=docker.io].volume.size: Invalid value: \"10GB\": not a Kubernetes quantity: write 10Gi (binary, 10×2^30 bytes: what disk sizes usually mean) or 10G (decimal, 10×10^9 bytes), without a space [E_QUANTITY]",
      "fleet/runtimes/bad.yaml:21:19: error at extensions.registry-cache.caches[upstream=quay.io].volume.size: must be a quantity with a unit (got number 10): write 10Gi for 10 gibibytes (or 10G for 10×10^9 bytes); a number without a unit counts bytes [E_TYPE]",
      "fleet/runtimes/bad.yaml:24:19: error at extensions.registry-cache.caches[upstream=gcr.io].volume.size: Invalid value: \"-5Gi\": must be greater than 0 [E_QUANTITY]",
    ] },
  { id: 'H29', title: 'invalid durations', files: bad('  extensions:\n    registry-cache:\n      caches:\n        - upstream: docker.io\n          garbageCollection:\n            ttl: 7d\n        - upstream: quay.io\n          garbageCollection:\n            ttl: -1h\n'), expect: [
      "fleet/runtimes/bad.yaml:18:18: error at extensions.registry-cache.caches[upstream=docker.io].garbageCollection.ttl: Invalid value: \"7d\": time: unknown unit \"d\" in duration \"7d\" [E_DURATION]",
      "fleet/runtimes/bad.yaml:21:18: error at extensions.registry-cache.caches[upstream=quay.io].garbageCollection.ttl: Invalid value: \"-1h0m0s\": ttl must be a non-negative duration [E_DURATION]",
    ] },
  { id: 'H28', title: 'size and storage class change of an already rendered cache', renderedBefore: bad('  extensions:\n    registry-cache:\n      caches:\n        - upstream: quay.io\n          volume:\n            size: 10Gi\n'), files: bad('  extensions:\n    registry-cache:\n      caches:\n        - upstream: quay.io\n          volume:\n            size: 20Gi\n            storageClassName: fast\n'), expect: [
      "fleet/runtimes/bad.yaml:18:19: error at extensions.registry-cache.caches[upstream=quay.io].volume.size: Invalid value: \"20Gi\": field is immutable (the last synth rendered \"10Gi\"); to change it, remove the cache in one synth and add it again in a later one (its cached images are lost) [E_IMMUTABLE_FIELD]",
      "fleet/runtimes/bad.yaml:19:31: error at extensions.registry-cache.caches[upstream=quay.io].volume.storageClassName: Invalid value: \"fast\": field is immutable (the last synth rendered nothing); to change it, remove the cache in one synth and add it again in a later one (its cached images are lost) [E_IMMUTABLE_FIELD]",
    ] },
  { id: 'H30', title: 'garbage collection switched back on', renderedBefore: bad('  extensions:\n    registry-cache:\n      caches:\n        - upstream: quay.io\n          garbageCollection:\n            ttl: 0s\n'), files: bad('  extensions:\n    registry-cache:\n      caches:\n        - upstream: quay.io\n          garbageCollection:\n            ttl: 24h\n'), expect: [
      "fleet/runtimes/bad.yaml:18:18: error at extensions.registry-cache.caches[upstream=quay.io].garbageCollection.ttl: garbage collection cannot be enabled (ttl > 0) once it is disabled (ttl = 0); to change it, remove the cache in one synth and add it again in a later one (its cached images are lost) [E_GC_REENABLE]",
    ] },
  { id: 'H31', title: 'explicit tags', files: bad('  channel: !!binary aGVsbG8=\n'), expect: [
      "fleet/runtimes/bad.yaml:13:12: error: YAML tags are not allowed [E_TAG_FORBIDDEN]",
    ] },
  { id: 'H32', title: 'integers beyond 2^53 and .inf', files: { 'groups/big.yaml': 'apiVersion: kyma-fleet.dev/v1alpha1\nkind: RuntimeGroup\nmetadata:\n  name: big\nspec:\n  selector: {}\n  priority: 12345678901234567890\n' }, expect: [
      "fleet/groups/big.yaml:7:13: error at priority: number 12345678901234567890 is out of the safe range [E_NUMBER_RANGE]",
    ] },
  { id: 'H33', title: 'explicit null for a required field', files: bad('  modules:\n    - name:\n'), expect: [
      "fleet/runtimes/bad.yaml:14:12: error at modules[0].name: must be a string, not null: remove the field or give it a value [E_TYPE]",
    ] },
  { id: 'H34', title: '__proto__ key', files: bad('  extensions:\n    __proto__:\n      isAdmin: true\n'), expect: [
      "fleet/runtimes/bad.yaml:14:5: error at extensions.__proto__: key \"__proto__\" is not allowed [E_FORBIDDEN_KEY]",
    ] },
  { id: 'H35', title: 'runtime name that is not a DNS-1123 label', files: { 'runtimes/RT_1.yaml': runtime('RT_1') }, expect: [
      "fleet/runtimes/RT_1.yaml:4:9: error at metadata.name: must be a DNS-1123 label: at most 63 lowercase alphanumeric characters or '-', starting and ending with an alphanumeric (got \"RT_1\"); use \"rt-1\" [E_NAME_DNS1123]",
    ] },
  { id: 'H36', title: 'derived name over its limit', files: { 'runtimes/bad.yaml': runtime('bad').replace('project: kyma-dev', 'project: ' + 'p'.repeat(60)) }, expect: [
      "fleet/runtimes/bad.yaml:12:14: error at shoot.project: must be a DNS-1123 label of at most 56 characters, so that garden-<project> is a namespace name (got \"pppppppppppppppppppppppppppppppppppppppppppppppppppppppppppp\") [E_IDENTITY]",
    ] },
  { id: 'H37', title: 'file name differs from metadata.name', files: { 'runtimes/bad.yaml': runtime('other') }, expect: [
      "fleet/runtimes/bad.yaml:4:9: error at metadata.name: must equal the file name \"bad\" (got \"other\"); rename the file or the declaration [E_NAME_MISMATCH]",
    ] },
  { id: 'H37b', title: 'the same runtime as .yaml and .yml', files: { 'runtimes/bad.yaml': runtime('bad'), 'runtimes/bad.yml': runtime('bad') }, expect: [
      "fleet/runtimes/bad.yml:1:1: error: fleet files end in .yaml; rename bad.yml to bad.yaml [E_FILE_EXTENSION]",
    ] },
  { id: 'H37c', title: 'duplicate runtime ID (case-insensitive)', files: { 'runtimes/bad.yaml': runtime('bad', '', '3F1E8D62-9C1A-4C4E-8A0E-2B7F6D1C9E01') }, expect: [
      "fleet/runtimes/acme-eu-prod-1.yaml:10:14: error at runtimeID: runtime ID \"3f1e8d62-9c1a-4c4e-8a0e-2b7f6d1c9e01\" is also declared in fleet/runtimes/bad.yaml:6:14 (git cannot tell which file is new); keep it in one file [E_DUPLICATE_RUNTIME_ID]",
      "fleet/runtimes/bad.yaml:6:14: error at runtimeID: runtime ID \"3F1E8D62-9C1A-4C4E-8A0E-2B7F6D1C9E01\" is also declared in fleet/runtimes/acme-eu-prod-1.yaml:10:14 (git cannot tell which file is new); keep it in one file [E_DUPLICATE_RUNTIME_ID]",
    ] },
  { id: 'H38', title: 'two upstreams rendered as the same object', files: bad('  extensions:\n    registry-cache:\n      caches:\n        - upstream: my-reg.io:5000\n        - upstream: my-reg.io-5000\n'), expect: [
      'fleet/runtimes/bad.yaml:16:21: error at extensions.registry-cache.caches[upstream=my-reg.io:5000].upstream: upstreams "my-reg.io-5000" and "my-reg.io:5000" would both be rendered as RegistryCacheConfig "my-reg.io-5000"; only one of them can be cached [E_OUTPUT_COLLISION]',
    ] },
  { id: 'H38b', title: 'two rules files rendered as the same ConfigMap', files: { ...bad('  extensions:\n    falco:\n      enabled: true\n      rules:\n        custom:\n          - file: rules/team/web.yaml\n          - file: rules/team-web.yaml\n'), 'rules/team/web.yaml': '- macro: a\n  condition: b\n', 'rules/team-web.yaml': '- macro: c\n  condition: d\n' }, expect: [
      'fleet/runtimes/bad.yaml:18:11: error at extensions.falco.rules.custom: rules files "rules/team/web.yaml" and "rules/team-web.yaml" would both be rendered as ConfigMap "falco-rules-team-web"; rename one of them [E_OUTPUT_COLLISION]',
    ] },
  { id: 'H39', title: 'Windows device name', files: { 'runtimes/con.yaml': runtime('con') }, expect: [
      "fleet/runtimes/con.yaml:4:9: error at metadata.name: \"con\" is a reserved device name on Windows and cannot be a folder in dist/ [E_NAME_RESERVED]",
    ] },
  { id: 'H40', title: 'path traversal in a runtime name', files: { 'runtimes/bad.yaml': runtime('../../etc') }, expect: [
      "fleet/runtimes/bad.yaml:4:9: error at metadata.name: must be a DNS-1123 label: at most 63 lowercase alphanumeric characters or '-', starting and ending with an alphanumeric (got \"../../etc\"); use \"etc\" [E_NAME_DNS1123]",
      "fleet/runtimes/bad.yaml:4:9: error at metadata.name: must equal the file name \"bad\" (got \"../../etc\"); rename the file or the declaration [E_NAME_MISMATCH]",
    ] },
  { id: 'H41', title: 'rules file outside the fleet', files: bad('  extensions:\n    falco:\n      enabled: true\n      rules:\n        custom:\n          - file: ../../etc/passwd\n          - file: https://example.com/rules.yaml\n'), expect: [
      "fleet/runtimes/bad.yaml:18:19: error at extensions.falco.rules.custom[0].file: must be a path under rules/ inside the fleet folder (got \"../../etc/passwd\") [E_PATH_OUTSIDE_ROOT]",
      "fleet/runtimes/bad.yaml:19:19: error at extensions.falco.rules.custom[1].file: must be a path under rules/ inside the fleet folder (got \"https://example.com/rules.yaml\") [E_PATH_OUTSIDE_ROOT]",
    ] },
  { id: 'H42', title: 'symlink leaving the fleet', symlinks: { 'runtimes/evil.yaml': '/etc/passwd' }, expect: [
      "fleet/runtimes/evil.yaml:1:1: error: symbolic link points outside the fleet folder; refusing to read it [E_SYMLINK_OUT_OF_BOUNDS]",
    ] },
  { id: 'H44', title: 'editor and backup files are ignored', files: { 'runtimes/.bad.yaml.swp': 'garbage: [', 'runtimes/bad.yaml~': 'garbage: [', 'runtimes/.DS_Store': 'x' }, exit: 0, expect: [] },
  { id: 'H45', title: 'extension managed by KIM', files: bad('  extensions:\n    shoot-dns-service:\n      enabled: true\n'), expect: [
      "fleet/runtimes/bad.yaml:14:5: error at extensions.shoot-dns-service: extension \"shoot-dns-service\" is managed by KIM (Kyma Infrastructure Manager) on every Shoot and cannot be configured by the fleet; supported: registry-cache, falco, lakom [E_EXTENSION_OPERATOR_MANAGED]",
    ] },
  { id: 'H46', title: 'misspelled extension type', files: bad('  extensions:\n    shoot-falco-servce:\n      enabled: true\n'), expect: [
      "fleet/runtimes/bad.yaml:14:5: error at extensions.shoot-falco-servce: unknown extension \"shoot-falco-servce\" (did you mean \"falco\"? the Shoot extension shoot-falco-service is configured as extensions.falco); supported: registry-cache, falco, lakom [E_EXTENSION_UNKNOWN]",
    ] },
  { id: 'H47', title: 'registry cache admission rules', files: bad('  extensions:\n    registry-cache:\n      caches:\n        - upstream: https://docker.io\n        - upstream: my-registry.io:65536\n          remoteURL: registry-1.docker.io\n          volume:\n            storageClassName: Premium_SSD\n        - upstream: quay.io\n        - upstream: quay.io\n'), expect: [
      "fleet/runtimes/bad.yaml:16:21: error at extensions.registry-cache.caches[upstream=https://docker.io].upstream: Invalid value: \"https://docker.io\": drop \"https://\": an upstream is host[:port], without scheme: write \"docker.io\" [E_REGCACHE_UPSTREAM]",
      "fleet/runtimes/bad.yaml:17:21: error at extensions.registry-cache.caches[upstream=my-registry.io:65536].upstream: Invalid value: \"my-registry.io:65536\": port '65536' is not valid, valid port must be in the range [1, 65535] [E_REGCACHE_UPSTREAM]",
      "fleet/runtimes/bad.yaml:18:22: error at extensions.registry-cache.caches[upstream=my-registry.io:65536].remoteURL: Invalid value: \"registry-1.docker.io\": url must start with 'http://' or 'https://' scheme [E_REGCACHE_URL]",
      "fleet/runtimes/bad.yaml:20:31: error at extensions.registry-cache.caches[upstream=my-registry.io:65536].volume.storageClassName: Invalid value: \"Premium_SSD\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com'); use \"premium-ssd\" [E_REGCACHE_STORAGE_CLASS]",
      "fleet/runtimes/bad.yaml:22:21: error at extensions.registry-cache.caches[3].upstream: Duplicate value: \"quay.io\" (first defined at caches[2]) [E_REGCACHE_DUPLICATE]",
    ] },
  { id: 'H48', title: 'Falco admission rules', files: bad('  extensions:\n    falco:\n      enabled: true\n      falcoVersion: "0.39.0"\n      rules:\n        standard: [falco-default-rules]\n      destinations:\n        - name: logging\n        - name: custom\n'), expect: [
      "fleet/runtimes/bad.yaml:16:21: error at extensions.falco.falcoVersion: version not found in possible versions (got \"0.39.0\") [E_FALCO_VERSION]",
      "fleet/runtimes/bad.yaml:18:20: error at extensions.falco.rules.standard[0]: unknown standard rule falco-default-rules [E_FALCO_RULES]",
      "fleet/runtimes/bad.yaml:20:17: error at extensions.falco.destinations[name=logging].name: logging and custom destinations cannot be used together [E_FALCO_DESTINATION]",
      "fleet/runtimes/bad.yaml:20:17: warning at extensions.falco.destinations[name=logging].name: older Falco extension versions only pair an output destination with stdout [W_FALCO_DESTINATIONS]",
      "fleet/runtimes/bad.yaml:21:17: error at extensions.falco.destinations[name=custom].name: custom event destination is set but no custom config is defined [E_FALCO_DESTINATION]",
    ] },
  { id: 'H48b', title: 'expired Falco version', files: bad('  extensions:\n    falco:\n      enabled: true\n      falcoVersion: "0.40.0"\n'), expect: [
      "fleet/runtimes/bad.yaml:16:21: error at extensions.falco.falcoVersion: chosen version is marked as deprecated (got \"0.40.0\", expired 2026-07-31T23:59:59Z) [E_FALCO_VERSION]",
    ] },
  { id: 'H49', title: 'secret material inline', files: bad('  extensions:\n    registry-cache:\n      caches:\n        - upstream: docker.io\n          password: hunter2hunter2\n          secretReferenceName: "-----BEGIN RSA PRIVATE KEY-----"\n'), expect: [
      "fleet/runtimes/bad.yaml:17:11: error at extensions.registry-cache.caches[upstream=docker.io].password: field \"password\" holds credentials (value redacted); secrets are never written into the fleet: create a Secret on the cluster and reference it by name [E_SECRET_INLINE]",
      "fleet/runtimes/bad.yaml:18:11: error at extensions.registry-cache.caches[upstream=docker.io].secretReferenceName: value looks like a private key (redacted); secrets are never written into the fleet: create a Secret on the cluster and reference it by name [E_SECRET_INLINE]",
      "fleet/runtimes/bad.yaml:18:32: error at extensions.registry-cache.caches[upstream=docker.io].secretReferenceName: a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com') (got \"-----BEGIN RSA PRIVATE KEY-----\") [E_SECRET_NAME]",
    ] },
  { id: 'H50', title: 'substitution variables', files: bad('  extensions:\n    registry-cache:\n      caches:\n        - upstream: docker.io\n          remoteURL: https://${REGISTRY}\n'), expect: [
      "fleet/runtimes/bad.yaml:17:22: error at extensions.registry-cache.caches[upstream=docker.io].remoteURL: Invalid value: \"https://${REGISTRY}\": failed to parse url: parse \"https://${REGISTRY}\": invalid character \"{\" in host name [E_REGCACHE_URL]",
      "fleet/runtimes/bad.yaml:17:22: error at extensions.registry-cache.caches[upstream=docker.io].remoteURL: \"${REGISTRY}\" would be replaced by Flux post-build substitution; the fleet does not template values, remove it [E_SUBSTITUTION_SYNTAX]",
    ] },
  { id: 'H51', title: 'equal-priority groups disagree', files: { 'groups/fast-lane.yaml': 'apiVersion: kyma-fleet.dev/v1alpha1\nkind: RuntimeGroup\nmetadata:\n  name: fast-lane\nspec:\n  selector:\n    matchLabels:\n      geo: eu\n  priority: 10\n  settings:\n    extensions:\n      registry-cache:\n        caches:\n          - upstream: europe-docker.pkg.dev\n            volume:\n              size: 40Gi\n' }, expect: [
      "fleet/groups/fast-lane.yaml:16:21: error at settings.extensions.registry-cache.caches[upstream=europe-docker.pkg.dev].volume.size: set to \"40Gi\" here and to \"30Gi\" by group \"europe\" (fleet/groups/europe.yaml:20:21); both groups have priority 10 and match runtime \"acme-eu-dev-1\": give one a higher priority or make them agree [E_OVERRIDE_CONFLICT]",
    ] },
  { id: 'H52', title: 'overlay disables what a policy requires', files: { 'runtimes/acme-us-prod-1.yaml': runtime('acme-us-prod-1', '  extensions:\n    falco:\n      enabled: false\n', '4a5b6c7d-8e9f-4a0b-9c1d-2e3f4a5b6c84').replace('metadata:\n', 'metadata:\n  labels:\n    tier: production\n') }, expect: [
      "fleet/runtimes/acme-us-prod-1.yaml:17:16: error at extensions.falco.enabled: policy \"production-runs-falco\" requires extension falco on runtime \"acme-us-prod-1\", but it is disabled here [E_POLICY]",
    ] },
];
