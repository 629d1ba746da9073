// Template builders for `kyma-fleet init` and `kyma-fleet new`: text in, text out, no I/O, no
// clock, no randomness (IDs are passed in), so tests can pin every byte. The files they write must
// validate and render at once; test/scaffold.test.ts checks that through the real CLI.
// The CI workflow is in ./github-workflow.ts (issue 26 moved it there: two tests hold it to what
// GitHub runs).

import { EXTENSIONS } from '../extensions';
import type { ScaffoldText } from '../extensions/types';
import { API_VERSION, type FleetKind } from '../validate/schema';
import { githubWorkflowYaml, WORKFLOW_PATH } from './github-workflow';
import { yamlString } from './names';

/** The extensions' parts of what init writes (ScaffoldText), in registry order. */
function scaffolds(): ScaffoldText[] {
  return EXTENSIONS.flatMap((e) => (e.scaffold ? [e.scaffold] : []));
}

/** `# `-comment lines of at most 96 characters holding `text`. */
function commentLines(text: string): string {
  const lines: string[] = [];
  let line = '#';
  for (const word of text.split(' ')) {
    if (line.length + 1 + word.length > 96 && line !== '#') {
      lines.push(line);
      line = '#';
    }
    line += ` ${word}`;
  }
  return [...lines, line].join('\n') + '\n';
}

/** Where the editor schemas live relative to the repository root (as `npm run schemas` writes them). */
export const SCHEMAS_FOLDER = 'schemas';
/** The fleet folder of a scaffolded repository (the CLI default of --fleet). */
export const FLEET_FOLDER = 'fleet';
export { githubWorkflowYaml, WORKFLOW_PATH } from './github-workflow';
/** Where init puts the kyma-fleet tarball it vendors (--kyma-fleet-from FILE.tgz): package.json installs it from there. */
export const VENDOR_FOLDER = 'vendor';

export function schemaFileName(kind: FleetKind): string {
  return `${kind.toLowerCase()}.json`;
}

/** The first line that makes VS Code's YAML extension (yaml-language-server) validate the file. */
export function schemaComment(ref: string): string {
  return `# yaml-language-server: $schema=${ref}`;
}

export interface RuntimeIdentity {
  readonly runtimeID: string;
  readonly globalAccountID: string;
  readonly subaccountID: string;
  readonly region: string;
  readonly shoot: { readonly name: string; readonly project: string };
}

export interface RuntimeTemplate extends RuntimeIdentity {
  readonly name: string;
  /** Reference to kymaruntime.json (relative path or URL) for the first-line schema comment. */
  readonly schemaRef: string;
  /** In the order given; values are written as YAML strings. */
  readonly labels?: ReadonlyArray<readonly [string, string]>;
  /** Comment lines (without '# ') written after the schema comment. */
  readonly comments?: readonly string[];
}

/** A `KymaRuntime` file: identity only, settings come from the fleet defaults and groups. */
export function runtimeYaml(t: RuntimeTemplate): string {
  const lines = [schemaComment(t.schemaRef), ...(t.comments ?? []).map((c) => `# ${c}`.trimEnd())];
  lines.push(`apiVersion: ${API_VERSION}`, 'kind: KymaRuntime', 'metadata:', `  name: ${yamlString(t.name)}`);
  if (t.labels && t.labels.length > 0) {
    lines.push('  labels:');
    for (const [k, v] of t.labels) lines.push(`    ${yamlString(k)}: ${yamlString(v)}`);
  }
  lines.push(
    'spec:',
    `  runtimeID: ${yamlString(t.runtimeID)}`,
    `  globalAccountID: ${yamlString(t.globalAccountID)}`,
    `  subaccountID: ${yamlString(t.subaccountID)}`,
    `  region: ${yamlString(t.region)}`,
    '  shoot:',
    `    name: ${yamlString(t.shoot.name)}`,
    `    project: ${yamlString(t.shoot.project)}`,
  );
  return lines.join('\n') + '\n';
}

/** `fleet/fleet.yaml`: channel regular, a few modules, each extension's defaults (ScaffoldText), Flux wiring. */
export function fleetYaml(name: string, schemaRef = `../${SCHEMAS_FOLDER}/${schemaFileName('Fleet')}`): string {
  return `${schemaComment(schemaRef)}
# Fleet-wide options and the defaults every runtime starts from (the lowest layer). Groups in
# groups/ override them for the runtimes their selector matches; a runtime file overrides both.
# See what a runtime ends up with: npx kyma-fleet explain RUNTIME
apiVersion: ${API_VERSION}
kind: Fleet
metadata:
  name: ${yamlString(name)}
spec:
  # Namespace of the Kyma and Runtime CRs (and of KIM's kubeconfig-<runtimeID> secrets) in the KCP.
  kcpNamespace: kcp-system
  # The API servers kyma-fleet status may contact with the kubeconfig-<runtimeID> Secrets it reads from
  # the KCP; a Secret pointing elsewhere is refused. Set it to your landscape's runtime API server domain.
  skrApiServers:
    - "*.kyma.ondemand.com"
${scaffolds().map((x) => x.fleetOptions ?? '').join('')}  # GitOps wiring in dist/gitops/flux/: one Flux Kustomization per runtime and target. Create the
  # GitRepository named here (holding this repository) and one Kustomization for ./dist/gitops/flux.
  gitops:
    flux:
      enabled: true
      sourceRef:
        kind: GitRepository
        name: kyma-fleet
      path: ./dist
      interval: 10m
  defaults:
    channel: regular
    modules:
      - name: api-gateway
      - name: istio
      - name: btp-operator
    extensions:
${scaffolds().map((x) => x.defaults).join('')}`;
}

/** The production group's `extensions:` block, or nothing when no extension has production settings. */
function productionExtensions(): string {
  const entries = scaffolds().map((x) => x.productionGroup ?? '').join('');
  return entries === '' ? '' : `    extensions:\n${entries}`;
}

/** `fleet/groups/production.yaml`: telemetry and each extension's production settings, for runtimes labelled tier: production. */
export function productionGroupYaml(schemaRef = `../../${SCHEMAS_FOLDER}/${schemaFileName('RuntimeGroup')}`): string {
  const summaries = scaffolds().flatMap((x) => (x.productionSummary ? [x.productionSummary] : []));
  return `${schemaComment(schemaRef)}
${commentLines(`Production runtimes (label tier: production): ${summaries.length > 0 ? summaries.join(' and ') : 'the Kyma telemetry module'}.`)}apiVersion: ${API_VERSION}
kind: RuntimeGroup
metadata:
  name: production
spec:
  selector:
    matchLabels:
      tier: production
  # Higher wins over lower; two groups of equal priority must not set the same field differently.
  priority: 10
  settings:
    modules:
      - name: telemetry
${productionExtensions()}`;
}

/** The Shoot name KEB gives a runtime: "c-" and the first 7 characters of a (random) ID. */
export function exampleShootName(id: string): string {
  return `c-${id.replace(/-/g, '').slice(0, 7).toLowerCase()}`;
}

export const EXAMPLE_RUNTIME_COMMENTS = [
  'Example runtime written by `kyma-fleet init`: the IDs below are random placeholders.',
  'Replace it with a real runtime (IDs from the Kyma Environment Broker or the BTP cockpit):',
  '  npx kyma-fleet new runtime NAME --runtime-id UUID --global-account ID --subaccount ID \\',
  '    --region REGION --shoot SHOOT --project PROJECT --label tier=production',
];

/** The two example runtimes: one development, one production (matched by the production group). */
export function exampleRuntimes(newId: () => string): RuntimeTemplate[] {
  const schemaRef = `../../${SCHEMAS_FOLDER}/${schemaFileName('KymaRuntime')}`;
  const make = (name: string, tier: string, project: string): RuntimeTemplate => {
    const runtimeID = newId();
    return {
      name,
      schemaRef,
      comments: EXAMPLE_RUNTIME_COMMENTS,
      labels: [['tier', tier]],
      runtimeID,
      globalAccountID: newId(),
      subaccountID: newId(),
      region: 'eu-central-1',
      shoot: { name: exampleShootName(runtimeID), project },
    };
  };
  return [make('example-dev', 'development', 'kyma-dev'), make('example-prod', 'production', 'kyma-prod')];
}

/** Ignored files: dependencies, the parse cache, the writer's lock, leftovers of a killed synth and shard folders (CI artifacts). */
export function gitignore(): string {
  return `node_modules/
.cache/
*.lock
.dist.tmp-*
.dist.old-*
dist.shard-*/
`;
}

/**
 * package.json of the fleet repository. kyma-fleet is pinned exactly: dist/ is a function of the
 * fleet and of the renderer, so an upgrade is a deliberate change with its own re-synth.
 * The name never equals "kyma-fleet" (npm refuses a package depending on its own name).
 */
export function fleetPackageJson(name: string, kymaFleetVersion: string, kymaFleetFrom: string = kymaFleetVersion): string {
  const pkg = {
    name: `${name}-config`,
    version: '0.0.0',
    private: true,
    description: `Kyma fleet configuration of ${name}, rendered by kyma-fleet`,
    scripts: {
      validate: 'kyma-fleet validate',
      synth: 'kyma-fleet synth',
      diff: 'kyma-fleet diff',
      check: 'kyma-fleet validate && kyma-fleet synth --check',
    },
    engines: { node: '>=20.19' },
    devDependencies: { 'kyma-fleet': kymaFleetFrom },
  };
  return JSON.stringify(pkg, null, 2) + '\n';
}

export function fleetReadme(name: string, kymaFleetVersion: string, kymaFleetFrom: string = kymaFleetVersion): string {
  return `# ${name}

The Kyma fleet configuration of ${name}: which Gardener extensions (${scaffolds().map((x) => x.displayName).join(', ')}) and Kyma
modules each Kyma runtime gets. kyma-fleet validates it
and renders plain manifests into \`dist/\`, which Flux (or Argo CD) applies.

\`\`\`
fleet/fleet.yaml            kind: Fleet          fleet-wide options and defaults
fleet/groups/*.yaml         kind: RuntimeGroup   label selector + priority + settings overlay
fleet/runtimes/*.yaml       kind: KymaRuntime    one runtime per file (file name = metadata.name)
dist/                       rendered by \`npx --no-install kyma-fleet synth\`; commit it, never edit it
schemas/                    JSON Schemas: VS Code's YAML extension validates the fleet files as you type
.github/workflows/          CI: validate, \`synth --check\`, the rendered diff as a pull request comment
${kymaFleetFrom.startsWith(`file:${VENDOR_FOLDER}/`) ? `${kymaFleetFrom.slice('file:'.length).padEnd(28)}kyma-fleet itself, which package.json installs (commit it)\n` : ''}\`\`\`

## Set up

${installStep(kymaFleetVersion, kymaFleetFrom)}

2. Replace the two example runtimes (\`fleet/runtimes/example-*.yaml\`, random IDs) with yours; the IDs
   come from the Kyma Environment Broker (BTP cockpit: your Kyma environment):

   \`\`\`sh
   npx --no-install kyma-fleet new runtime my-runtime --runtime-id UUID --global-account ID --subaccount ID \\
     --region REGION --shoot SHOOT --project PROJECT --label tier=production
   \`\`\`

3. Render and commit: \`npx --no-install kyma-fleet synth\`, then \`git add . && git commit\`.

## Every change

\`\`\`sh
npx --no-install kyma-fleet validate         # YAML, schema, admission rules, layering (every error with file:line:col)
npx --no-install kyma-fleet explain RUNTIME  # resolved settings of one runtime, each value with the file that set it
npx --no-install kyma-fleet synth            # render dist/; commit it with the change
npx --no-install kyma-fleet diff             # what synth would change in dist/
\`\`\`

A pull request runs the same checks in CI and gets the rendered diff as a comment. Upgrading
kyma-fleet can change \`dist/\`: upgrade in its own pull request and run \`npx --no-install kyma-fleet synth\` there.
The JSON Schemas in \`schemas/\` were written by kyma-fleet ${kymaFleetVersion}; newer versions ship
newer ones in \`node_modules/kyma-fleet/schemas/\`.

## Apply

Flux in the Kyma Control Plane: a \`GitRepository\` named \`kyma-fleet\` in \`kcp-system\` holding this
repository (see \`gitops.flux\` in \`fleet/fleet.yaml\`) and one Kustomization for \`./dist/gitops/flux\`.
`;
}

/** Step 1 of the README: how \`package.json\` installs kyma-fleet (vendored tarball, another spec, or the registry version). */
function installStep(version: string, from: string): string {
  const notOnNpm = `Run it as \`npx --no-install kyma-fleet\`: kyma-fleet is not on the npm registry and its name is
   not registered there, so a plain \`npx kyma-fleet\` where it is not installed would download and
   run whatever package someone publishes under that name.`;
  if (from.startsWith(`file:${VENDOR_FOLDER}/`)) {
    const file = from.slice('file:'.length);
    return `1. Install kyma-fleet (Node.js 20.19 or later): \`npm install\`. \`package.json\` installs it from
   \`${file}\`, the tarball \`kyma-fleet init\` copied into this repository: commit it with
   \`package-lock.json\`, and CI's \`npm ci\` installs exactly that on any runner. ${notOnNpm}
   To upgrade, \`npm run pack\` in a clone of the new kyma-fleet, copy its tarball into \`${VENDOR_FOLDER}/\`,
   \`npm install --save-dev --save-exact ./${VENDOR_FOLDER}/kyma-fleet-<version>.tgz\`, delete the old tarball,
   run \`npx --no-install kyma-fleet synth\` and commit it all in one pull request.`;
  }
  if (from !== version) {
    return `1. Install kyma-fleet (Node.js 20.19 or later): \`npm install\`. \`package.json\` installs it from
   \`${from}\` (\`kyma-fleet init --kyma-fleet-from\`). Commit \`package-lock.json\`: CI installs exactly
   that with \`npm ci\`. ${notOnNpm}`;
  }
  return `1. Install kyma-fleet (Node.js 20.19 or later). \`package.json\` asks the npm registry for kyma-fleet ${version},
   which no registry serves yet: do not run a plain \`npm install\` before you say where kyma-fleet
   comes from, or it fetches whatever package of that name the public registry holds. Build the
   tarball in a clone of kyma-fleet (\`npm ci && npm run pack\`), copy it into \`${VENDOR_FOLDER}/\` and install
   it from there, so that CI's \`npm ci\` finds it on any runner:

   \`\`\`sh
   npm install --save-dev --save-exact ./${VENDOR_FOLDER}/kyma-fleet-${version}.tgz
   \`\`\`

   (\`kyma-fleet init --kyma-fleet-from kyma-fleet-${version}.tgz\` does both at once.) Commit the tarball and
   \`package-lock.json\`. ${notOnNpm}`;
}

export interface ScaffoldInput {
  /** The fleet name (metadata.name of fleet.yaml), a DNS-1123 label. */
  readonly name: string;
  /** The kyma-fleet version the repository depends on. */
  readonly kymaFleetVersion: string;
  /**
   * Where package.json installs kyma-fleet from (an npm spec: version, tarball, git URL); default the
   * version. `file:vendor/<name>.tgz` when init vendors the tarball (init.ts writes that file itself).
   */
  readonly kymaFleetFrom?: string;
  /** schemas/*.json by file name (renderFleetSchemas()). */
  readonly schemas: ReadonlyMap<string, string>;
  /** Fresh UUIDs (crypto.randomUUID in the CLI). */
  readonly newId: () => string;
}

/** Every file of a new fleet repository, by path relative to its root ('/' separators), sorted. */
export function scaffoldFleetRepo(input: ScaffoldInput): Map<string, string> {
  const files = new Map<string, string>();
  files.set(WORKFLOW_PATH, githubWorkflowYaml());
  files.set('.gitignore', gitignore());
  files.set('README.md', fleetReadme(input.name, input.kymaFleetVersion, input.kymaFleetFrom));
  files.set(`${FLEET_FOLDER}/fleet.yaml`, fleetYaml(input.name));
  files.set(`${FLEET_FOLDER}/groups/production.yaml`, productionGroupYaml());
  for (const r of exampleRuntimes(input.newId)) files.set(`${FLEET_FOLDER}/runtimes/${r.name}.yaml`, runtimeYaml(r));
  files.set('package.json', fleetPackageJson(input.name, input.kymaFleetVersion, input.kymaFleetFrom));
  for (const [name, text] of input.schemas) files.set(`${SCHEMAS_FOLDER}/${name}`, text);
  return new Map([...files].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}
