// Template builders for `kyma-fleet init` and `kyma-fleet new`: text in, text out, no I/O, no
// clock, no randomness (IDs are passed in), so tests can pin every byte. The files they write must
// validate and render at once; test/scaffold.test.ts checks that through the real CLI.
// Over 400 lines on purpose: most of it is the literal text of the files init writes (the CI
// workflow above all), kept in one place so a test can compare it with examples/ and docs/ci.md;
// several engineers add jobs to it, so it is not split while they do (issue 18).

import { EXTENSIONS } from '../extensions';
import type { ScaffoldText } from '../extensions/types';
import { API_VERSION, type FleetKind } from '../validate/schema';
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
/** The workflow file `init` writes; examples/github-actions/kyma-fleet.yml is the same text. */
export const WORKFLOW_PATH = '.github/workflows/kyma-fleet.yml';

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
 * The GitHub Actions workflow (also committed as examples/github-actions/kyma-fleet.yml). The diff
 * compares this pull request's rendering with the dist/ of the base branch: against the pull
 * request's own dist/ it would be empty whenever the author re-ran synth, which CI requires.
 */
export function githubWorkflowYaml(): string {
  return `# kyma-fleet CI (written by \`kyma-fleet init\`). On every pull request: validate the fleet (under
# GitHub Actions each error is also an ::error annotation, shown inline on the diff), check that dist/
# was regenerated, comment on the pull request with what the change does to the rendered manifests,
# and show what \`kyma-fleet apply garden\` would write into the Shoots. After a merge to main: write
# the Shoot entries KIM does not manage with \`kyma-fleet apply garden\`, and commit its report. Hourly:
# the rollout rings job (status, rollout advance, synth; docs/rollout.md) proposes its result.
# Weekly: the refresh job (import runtimes, catalog and profile refresh; docs/onboarding.md) too.
# Needs a committed package-lock.json (npm ci), a committed dist/ (npx kyma-fleet synth) and, for the
# garden steps, the secret GARDEN_KUBECONFIG: a Garden kubeconfig (context "garden") of a service
# account with get and patch on shoots in the fleet's garden-<project> namespaces (docs/applying.md).
name: kyma-fleet

on:
  pull_request:
  push:
    branches: [main]
  schedule:
    - cron: '17 * * * *' # the rollout job, hourly
    - cron: '23 5 * * 1' # the refresh job, weekly
  workflow_dispatch:

permissions:
  contents: read
  pull-requests: write # the diff comment

jobs:
  fleet:
    if: \${{ github.event_name == 'pull_request' }}
    runs-on: ubuntu-latest
    timeout-minutes: 20
    concurrency:
      group: kyma-fleet-\${{ github.event.pull_request.number }}
      cancel-in-progress: true
    env:
      GARDEN_KUBECONFIG: \${{ secrets.GARDEN_KUBECONFIG }}
    steps:
      - uses: actions/checkout@v4
        with:
          # The merge commit and its first parent, the tip of the base branch.
          fetch-depth: 2

      - uses: actions/setup-node@v4
        with:
          node-version: 20
          cache: npm

      - run: npm ci

      - name: Read dist/ of the base branch
        # What is applied today. Empty on the first pull request: everything shows as new.
        run: |
          mkdir -p "$RUNNER_TEMP/base/dist"
          if git cat-file -e HEAD^1:dist 2>/dev/null; then git archive HEAD^1 dist | tar -x -C "$RUNNER_TEMP/base"; fi

      - name: Validate the fleet
        id: validate
        # --out: immutable fields are checked against what the base branch renders.
        run: npx kyma-fleet validate --out "$RUNNER_TEMP/base/dist"

      - name: Check that dist/ is up to date
        run: npx kyma-fleet synth --check

      - name: Diff against the base branch
        id: diff
        # Also when dist/ is stale: reviewers see the change either way. The comment groups runtimes
        # with the same change and stays under GitHub's size limit; kyma-fleet.diff has every patch.
        # Without --exit-code, diff exits 0 whether or not there are changes.
        if: \${{ !cancelled() && steps.validate.outcome == 'success' }}
        run: |
          npx kyma-fleet diff --out "$RUNNER_TEMP/base/dist" --output-file kyma-fleet.diff --output markdown > diff.md
          cat diff.md >> "$GITHUB_STEP_SUMMARY"

      - name: Attach the full diff
        if: \${{ !cancelled() && steps.diff.outcome == 'success' }}
        uses: actions/upload-artifact@v4
        with:
          name: kyma-fleet-diff
          path: kyma-fleet.diff

      - name: Comment on the pull request
        # marocchino/sticky-pull-request-comment keeps one comment per pull request and updates it
        # on every push; it finds its comment by the hidden header, whereas \`gh pr comment
        # --edit-last\` edits the last comment of github-actions[bot], which may be another
        # workflow's. Pull requests from forks get a read-only token: no comment there (the diff is
        # in the job summary). Pin the action to a commit SHA if your policy requires it.
        if: \${{ !cancelled() && steps.diff.outcome == 'success' && github.event.pull_request.head.repo.full_name == github.repository }}
        uses: marocchino/sticky-pull-request-comment@v2
        with:
          header: kyma-fleet-diff
          path: diff.md

      - name: What apply garden would write into the Shoots
        # Reads the Shoots, writes nothing. Skipped where the secret is not available (forks).
        if: \${{ !cancelled() && steps.validate.outcome == 'success' && env.GARDEN_KUBECONFIG != '' }}
        run: |
          printf '%s' "$GARDEN_KUBECONFIG" > "$RUNNER_TEMP/garden.yaml"
          npx kyma-fleet apply garden --dry-run --kubeconfig "$RUNNER_TEMP/garden.yaml" --garden-context garden

  garden:
    # After a merge: write the fleet's Shoot entries, then commit fleet/status/garden-apply.json,
    # which kyma-fleet status reads. Never cancelled half-way: one run after another.
    if: \${{ github.event_name == 'push' }}
    runs-on: ubuntu-latest
    timeout-minutes: 30
    permissions:
      contents: write # the report commit
    concurrency:
      group: kyma-fleet-garden
      cancel-in-progress: false
    steps:
      - uses: actions/checkout@v4

      - uses: actions/setup-node@v4
        with:
          node-version: 20
          cache: npm

      - run: npm ci

      - name: Apply the Shoot entries
        env:
          GARDEN_KUBECONFIG: \${{ secrets.GARDEN_KUBECONFIG }}
        run: |
          printf '%s' "$GARDEN_KUBECONFIG" > "$RUNNER_TEMP/garden.yaml"
          npx kyma-fleet apply garden --kubeconfig "$RUNNER_TEMP/garden.yaml" --garden-context garden

      - name: Commit the report
        if: \${{ !cancelled() }}
        run: |
          git add fleet/status/garden-apply.json
          git diff --cached --quiet && exit 0
          git -c user.name=kyma-fleet -c user.email=kyma-fleet@users.noreply.github.com commit -m "kyma-fleet apply garden: report"
          git push

  rollout:
    # Hourly, and on demand: observe the runtimes, move the next rollout ring when the gate of the
    # ring before it is open (docs/rollout.md), render, and propose the result (fleet/status/,
    # fleet/rollout/, dist/) as a pull request, or commit it to main when the repository variable
    # KYMA_FLEET_ROLLOUT_COMMIT is "true". A closed gate (exit 6) is no failure: the status it
    # observed is proposed all the same. Nothing to do for a fleet without spec.rollout. Needs the
    # secret KYMA_FLEET_KUBECONFIG: a kubeconfig with the contexts "kcp" and "garden" (docs/status.md).
    if: \${{ github.event_name == 'schedule' || github.event_name == 'workflow_dispatch' }}
    runs-on: ubuntu-latest
    timeout-minutes: 30
    permissions:
      contents: write # the branch or commit
      pull-requests: write # the pull request
    concurrency:
      group: kyma-fleet-rollout
      cancel-in-progress: false
    steps:
      - uses: actions/checkout@v4

      - uses: actions/setup-node@v4
        with:
          node-version: 20
          cache: npm

      - run: npm ci

      - name: Status, rollout advance, synth
        env:
          KYMA_FLEET_KUBECONFIG: \${{ secrets.KYMA_FLEET_KUBECONFIG }}
        run: |
          if ! npx kyma-fleet rollout status > /dev/null; then echo "no rollout rings in the fleet: nothing to do"; exit 0; fi
          printf '%s' "$KYMA_FLEET_KUBECONFIG" > "$RUNNER_TEMP/kubeconfig.yaml"
          live="--kubeconfig $RUNNER_TEMP/kubeconfig.yaml --kcp-context kcp --garden-context garden"
          npx kyma-fleet status $live
          code=0
          npx kyma-fleet rollout advance $live || code=$?
          if [ "$code" != 0 ] && [ "$code" != 6 ]; then exit "$code"; fi
          npx kyma-fleet synth

      - name: Propose the result
        env:
          GH_TOKEN: \${{ github.token }}
          COMMIT_TO_MAIN: \${{ vars.KYMA_FLEET_ROLLOUT_COMMIT }}
        run: |
          git add fleet/status fleet/rollout dist
          git diff --cached --quiet && exit 0
          git config user.name kyma-fleet
          git config user.email kyma-fleet@users.noreply.github.com
          if [ "$COMMIT_TO_MAIN" = true ]; then
            git commit -m "kyma-fleet rollout: status and advance"
            git push
          else
            branch="kyma-fleet/rollout-$(date -u +%Y%m%d-%H%M)"
            git switch -c "$branch"
            git commit -m "kyma-fleet rollout: status and advance"
            git push origin "$branch"
            gh pr create --base main --head "$branch" --title "kyma-fleet rollout: status and advance" --body "Written by the scheduled kyma-fleet rollout job: fleet/status/, fleet/rollout/ when a ring moved, and dist/ rendered from them (docs/rollout.md)."
          fi

  refresh:
    # Weekly (Mondays 05:23 UTC), and on demand: onboard the runtimes the KCP has and the fleet lacks
    # (import runtimes), refresh the module catalog and the snapshots fleet.yaml names (catalog
    # refresh, profile refresh), render, and propose the result as a pull request, which the checks
    # above then validate (docs/onboarding.md). Optional: does nothing until the repository variable
    # KYMA_FLEET_GARDEN_PROJECT names the Gardener project of the Shoots. Needs the secret
    # KYMA_FLEET_KUBECONFIG: a kubeconfig with the contexts "kcp" and "garden" (list on runtimes and
    # modulereleasemetas in the KCP namespace, get on the Garden's snapshot objects).
    if: \${{ (github.event_name == 'schedule' && github.event.schedule == '23 5 * * 1') || github.event_name == 'workflow_dispatch' }}
    runs-on: ubuntu-latest
    timeout-minutes: 30
    permissions:
      contents: write # the branch
      pull-requests: write # the pull request
    concurrency:
      group: kyma-fleet-refresh
      cancel-in-progress: false
    steps:
      - uses: actions/checkout@v4

      - uses: actions/setup-node@v4
        with:
          node-version: 20
          cache: npm

      - run: npm ci

      - name: Import runtimes, refresh the catalog and the snapshots, synth
        env:
          KYMA_FLEET_KUBECONFIG: \${{ secrets.KYMA_FLEET_KUBECONFIG }}
          GARDEN_PROJECT: \${{ vars.KYMA_FLEET_GARDEN_PROJECT }}
        run: |
          if [ -z "$GARDEN_PROJECT" ]; then echo "repository variable KYMA_FLEET_GARDEN_PROJECT is not set: nothing to do"; exit 0; fi
          printf '%s' "$KYMA_FLEET_KUBECONFIG" > "$RUNNER_TEMP/kubeconfig.yaml"
          kc="--kubeconfig $RUNNER_TEMP/kubeconfig.yaml"
          npx kyma-fleet import runtimes $kc --kcp-context kcp --project "$GARDEN_PROJECT"
          npx kyma-fleet catalog refresh $kc --kcp-context kcp
          # Exit 1 when fleet.yaml names no snapshot: nothing to refresh.
          npx kyma-fleet profile refresh $kc --garden-context garden || echo "profile refresh: nothing refreshed"
          # A refresh can leave the fleet invalid (a version expired): the pull request's checks show what to fix.
          npx kyma-fleet synth || echo "the refreshed fleet does not render; the pull request's checks show why"

      - name: Propose the result
        env:
          GH_TOKEN: \${{ github.token }}
        run: |
          git add fleet dist
          git diff --cached --quiet && exit 0
          git config user.name kyma-fleet
          git config user.email kyma-fleet@users.noreply.github.com
          branch="kyma-fleet/refresh-$(date -u +%Y%m%d-%H%M)"
          git switch -c "$branch"
          git commit -m "kyma-fleet: import runtimes, refresh the module catalog and the snapshots"
          git push origin "$branch"
          gh pr create --base main --head "$branch" --title "kyma-fleet: refresh from the landscape" --body "Written by the scheduled kyma-fleet refresh job: runtimes new in the KCP, the module catalog and the snapshots fleet.yaml names, and dist/ rendered from them (docs/onboarding.md)."
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
dist/                       rendered by \`npx kyma-fleet synth\`; commit it, never edit it
schemas/                    JSON Schemas: VS Code's YAML extension validates the fleet files as you type
.github/workflows/          CI: validate, \`synth --check\`, the rendered diff as a pull request comment
\`\`\`

## Set up

${installStep(kymaFleetVersion, kymaFleetFrom)}

2. Replace the two example runtimes (\`fleet/runtimes/example-*.yaml\`, random IDs) with yours; the IDs
   come from the Kyma Environment Broker (BTP cockpit: your Kyma environment):

   \`\`\`sh
   npx kyma-fleet new runtime my-runtime --runtime-id UUID --global-account ID --subaccount ID \\
     --region REGION --shoot SHOOT --project PROJECT --label tier=production
   \`\`\`

3. Render and commit: \`npx kyma-fleet synth\`, then \`git add . && git commit\`.

## Every change

\`\`\`sh
npx kyma-fleet validate          # YAML, schema, admission rules, layering (every error with file:line:col)
npx kyma-fleet explain RUNTIME   # resolved settings of one runtime, each value with the file that set it
npx kyma-fleet synth             # render dist/; commit it with the change
npx kyma-fleet diff              # what synth would change in dist/
\`\`\`

A pull request runs the same checks in CI and gets the rendered diff as a comment. Upgrading
kyma-fleet can change \`dist/\`: upgrade in its own pull request and run \`npx kyma-fleet synth\` there.
The JSON Schemas in \`schemas/\` were written by kyma-fleet ${kymaFleetVersion}; newer versions ship
newer ones in \`node_modules/kyma-fleet/schemas/\`.

## Apply

Flux in the Kyma Control Plane: a \`GitRepository\` named \`kyma-fleet\` in \`kcp-system\` holding this
repository (see \`gitops.flux\` in \`fleet/fleet.yaml\`) and one Kustomization for \`./dist/gitops/flux\`.
`;
}

/** Step 1 of the README: how \`package.json\` installs kyma-fleet (\`init --kyma-fleet-from\`, or the registry version). */
function installStep(version: string, from: string): string {
  if (from !== version) {
    return `1. Install kyma-fleet (Node.js 20): \`npm install\`. \`package.json\` installs it from \`${from}\`
   (\`kyma-fleet init --kyma-fleet-from\`). Commit \`package-lock.json\`: CI installs exactly that with
   \`npm ci\`.`;
  }
  return `1. Install kyma-fleet (Node.js 20). \`package.json\` asks the npm registry for kyma-fleet ${version},
   which no registry serves yet: do not run a plain \`npm install\` before you say where kyma-fleet
   comes from, or it fetches whatever package of that name the public registry holds. Install the
   tarball that \`npm pack\` builds in a clone of kyma-fleet, or a git tag of your kyma-fleet clone
   (npm then records it in \`package.json\`), e.g.

   \`\`\`sh
   npm install --save-dev --save-exact ../kyma-fleet/kyma-fleet-${version}.tgz
   \`\`\`

   (\`kyma-fleet init --kyma-fleet-from SPEC\` writes it into \`package.json\` at once.) Commit
   \`package-lock.json\`: CI installs exactly that with \`npm ci\`.`;
}

export interface ScaffoldInput {
  /** The fleet name (metadata.name of fleet.yaml), a DNS-1123 label. */
  readonly name: string;
  /** The kyma-fleet version the repository depends on. */
  readonly kymaFleetVersion: string;
  /** Where package.json installs kyma-fleet from (an npm spec: version, tarball, git URL); default the version. */
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
