// The GitHub Actions workflow `kyma-fleet init` writes (.github/workflows/kyma-fleet.yml; also
// committed as examples/github-actions/kyma-fleet.yml and shown in docs/ci.md, which
// test/scaffold.test.ts compares). Its own file because it is the longest text init writes and
// because two tests hold it to what GitHub runs: test/actionlint/ lints it with rhysd/actionlint,
// and test/package/ci-runner.test.ts runs its pull-request job's commands on a fresh clone.
// Text in, text out: no I/O.
//
// What it must be (issue 26): green on a new repository's first commit, with no secret set. Every
// job that needs a secret or a repository variable that is not set is skipped with a notice that
// says what to set (the `preflight` job decides, as a job cannot test a secret in its own `if`);
// the first `apply garden` after a merge, which writes every Shoot and so needs
// --allow-mass-change, runs from the workflow itself (Run workflow: job `garden`,
// `allow-mass-change`), never from an edited copy.

/** The workflow file `init` writes; examples/github-actions/kyma-fleet.yml is the same text. */
export const WORKFLOW_PATH = '.github/workflows/kyma-fleet.yml';

/** The schedules of the two scheduled jobs (the preflight job compares github.event.schedule with them). */
export const ROLLOUT_CRON = '17 * * * *';
export const REFRESH_CRON = '23 5 * * 1';

/**
 * The pull request label that approves a destructive change (a consequence class of severity
 * destructive, `kyma-fleet diff --fail-on destructive`): without it the review job fails.
 */
export const APPROVE_DESTRUCTIVE_LABEL = 'kyma-fleet/approve-destructive';

/**
 * The workflow. The diff compares this pull request's rendering with the dist/ of the base branch:
 * against the pull request's own dist/ it would be empty whenever the author re-ran synth, which CI
 * requires.
 */
export function githubWorkflowYaml(): string {
  return `# kyma-fleet CI (written by \`kyma-fleet init\`). On every pull request, in one \`kyma-fleet check\`:
# validate the fleet (under GitHub Actions each error is also an ::error annotation, shown inline on
# the diff), check that dist/ was regenerated, and comment on the pull request with what the change
# does to the rendered manifests; then show what \`kyma-fleet apply garden\` would write into the
# Shoots. After a merge to main: write the Shoot entries KIM does not manage with
# \`kyma-fleet apply garden\`, and commit its report. Hourly:
# the rollout rings job (status, rollout advance, synth; docs/rollout.md) proposes its result.
# Weekly: the refresh job (import runtimes, catalog and profile refresh; docs/onboarding.md) too.
# A destructive change (a cache's images or a module's resources lost) fails the pull request's
# check until a maintainer adds the label ${APPROVE_DESTRUCTIVE_LABEL} (docs/ci.md).
# Needs a committed package-lock.json (npm ci installs kyma-fleet from the tarball in vendor/) and a
# committed dist/ (npx kyma-fleet synth). The secrets are optional: a job whose secret or variable is
# not set is skipped with a notice saying what to set. GARDEN_KUBECONFIG: a Garden kubeconfig
# (context "garden") that may get and patch the fleet's Shoots; KYMA_FLEET_KUBECONFIG: the contexts
# "kcp" and "garden" (docs/access.md lists the rights). Run workflow (workflow_dispatch) runs one job
# by hand: rollout, refresh, or garden, the last with allow-mass-change for the first apply.
name: kyma-fleet

on:
  pull_request:
    # labeled and unlabeled too: the approval label is read when the job runs.
    types: [opened, synchronize, reopened, labeled, unlabeled]
  push:
    branches: [main]
  schedule:
    - cron: '${ROLLOUT_CRON}' # the rollout job, hourly
    - cron: '${REFRESH_CRON}' # the refresh job, weekly
  workflow_dispatch:
    inputs:
      job:
        description: 'The job to run: rollout (status, rollout advance, synth), refresh (import runtimes, catalog and profile refresh) or garden (apply garden)'
        type: choice
        options: [rollout, refresh, garden]
        default: rollout
      allow-mass-change:
        description: 'garden: write more Shoots in one run than Fleet spec.removalGuard.maxShare allows (the first apply after init or an import)'
        type: boolean
        default: false

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

      - name: Validate, check that dist/ is up to date, diff against the base branch
        id: diff
        # One process (kyma-fleet check) answers the three questions: the fleet is validated
        # (immutable fields against what the base branch renders; under GitHub Actions each error is
        # also an ::error annotation), dist/ must be what synth writes (exit 3 when it was not
        # regenerated), and diff.md, the comment, says what the change does against the base
        # branch's dist/: it opens with what the change does on the clusters, groups runtimes with
        # the same change and stays under GitHub's size limit; kyma-fleet.diff has every patch. Only
        # the runtimes whose inputs differ from those recorded in dist/'s index are rendered.
        # diff.md is written whenever the fleet is valid, also when dist/ is stale: reviewers see the
        # change either way. With diff.md written, exit 1 means --fail-on destructive matched (a
        # runtime would lose something), which the approval step below turns into a failed check
        # unless the pull request has the label.
        run: |
          code=0
          npx kyma-fleet check --base "$RUNNER_TEMP/base/dist" --markdown diff.md --output-file kyma-fleet.diff --fail-on destructive || code=$?
          if [ -f diff.md ]; then cat diff.md >> "$GITHUB_STEP_SUMMARY"; fi
          if [ "$code" = 1 ] && [ -f diff.md ]; then echo "destructive=true" >> "$GITHUB_OUTPUT"; elif [ "$code" != 0 ]; then exit "$code"; fi

      - name: Attach the full diff
        if: \${{ !cancelled() && hashFiles('kyma-fleet.diff') != '' }}
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
        if: \${{ !cancelled() && hashFiles('diff.md') != '' && github.event.pull_request.head.repo.full_name == github.repository }}
        uses: marocchino/sticky-pull-request-comment@v2
        with:
          header: kyma-fleet-diff
          path: diff.md

      - name: A destructive change needs the label ${APPROVE_DESTRUCTIVE_LABEL}
        # The comment names what would be lost and where. A maintainer who agrees adds the label;
        # the workflow runs again (labeled) and this step passes. Make this job a required check.
        if: \${{ !cancelled() && steps.diff.outcome == 'success' }}
        env:
          DESTRUCTIVE: \${{ steps.diff.outputs.destructive }}
          APPROVED: \${{ contains(github.event.pull_request.labels.*.name, '${APPROVE_DESTRUCTIVE_LABEL}') }}
        run: |
          if [ "$DESTRUCTIVE" != true ]; then echo "no destructive change"; exit 0; fi
          if [ "$APPROVED" = true ]; then echo "::notice title=kyma-fleet destructive change approved::the label ${APPROVE_DESTRUCTIVE_LABEL} is set"; exit 0; fi
          echo "::error title=kyma-fleet: a destructive change needs approval::the comment lists what this pull request deletes on the clusters; if that is intended, add the label ${APPROVE_DESTRUCTIVE_LABEL} (docs/ci.md)"
          exit 1

      - name: No dry run of apply garden without the secret GARDEN_KUBECONFIG
        if: \${{ env.GARDEN_KUBECONFIG == '' }}
        run: echo "::notice title=kyma-fleet apply garden --dry-run skipped::the secret GARDEN_KUBECONFIG is not set (or not given to pull requests from forks), so the Shoots were not read; see docs/ci.md"

      - name: What apply garden would write into the Shoots
        # Reads the Shoots, writes nothing. Skipped where the secret is not available (forks).
        # diff.md exists when the fleet is valid.
        if: \${{ !cancelled() && hashFiles('diff.md') != '' && env.GARDEN_KUBECONFIG != '' }}
        run: |
          printf '%s' "$GARDEN_KUBECONFIG" > "$RUNNER_TEMP/garden.yaml"
          npx kyma-fleet apply garden --dry-run --kubeconfig "$RUNNER_TEMP/garden.yaml" --garden-context garden

  preflight:
    # Everything but pull requests: which of the jobs below has the secret or variable it needs. A
    # job that has not is skipped, and this job leaves a notice saying what to set; a repository
    # without any secret stays green. (A job's own \`if\` cannot read secrets.)
    if: \${{ github.event_name != 'pull_request' }}
    runs-on: ubuntu-latest
    timeout-minutes: 5
    permissions: {}
    outputs:
      garden: \${{ steps.check.outputs.garden }}
      rollout: \${{ steps.check.outputs.rollout }}
      refresh: \${{ steps.check.outputs.refresh }}
    steps:
      - name: Which secrets and variables are set
        id: check
        env:
          GARDEN_KUBECONFIG: \${{ secrets.GARDEN_KUBECONFIG }}
          KYMA_FLEET_KUBECONFIG: \${{ secrets.KYMA_FLEET_KUBECONFIG }}
          GARDEN_PROJECT: \${{ vars.KYMA_FLEET_GARDEN_PROJECT }}
          EVENT: \${{ github.event_name }}
          SCHEDULE: \${{ github.event.schedule }}
          JOB: \${{ inputs.job }}
        run: |
          skipped() { echo "::notice title=kyma-fleet $1 job skipped::$2; see docs/ci.md"; }
          garden=false; rollout=false; refresh=false
          if [ -n "$GARDEN_KUBECONFIG" ]; then garden=true; fi
          if [ -n "$KYMA_FLEET_KUBECONFIG" ]; then rollout=true; fi
          if [ -n "$KYMA_FLEET_KUBECONFIG" ] && [ -n "$GARDEN_PROJECT" ]; then refresh=true; fi
          case "$EVENT:$SCHEDULE$JOB" in
            push:|workflow_dispatch:garden)
              [ "$garden" = true ] || skipped garden "the secret GARDEN_KUBECONFIG is not set, so no Shoot entry was written: set it to a Garden kubeconfig whose context garden may get and patch the fleet's Shoots" ;;
            'schedule:${ROLLOUT_CRON}'|workflow_dispatch:rollout)
              [ "$rollout" = true ] || skipped rollout "the secret KYMA_FLEET_KUBECONFIG is not set: set it to a kubeconfig with the contexts kcp and garden" ;;
            'schedule:${REFRESH_CRON}'|workflow_dispatch:refresh)
              if [ -z "$GARDEN_PROJECT" ]; then skipped refresh "the repository variable KYMA_FLEET_GARDEN_PROJECT is not set: set it to the Gardener project of the Shoots"
              elif [ "$refresh" != true ]; then skipped refresh "the secret KYMA_FLEET_KUBECONFIG is not set: set it to a kubeconfig with the contexts kcp and garden"; fi ;;
          esac
          { echo "garden=$garden"; echo "rollout=$rollout"; echo "refresh=$refresh"; } >> "$GITHUB_OUTPUT"

  garden:
    # After a merge (and on demand: Run workflow, job garden): write the fleet's Shoot entries, then
    # commit fleet/status/garden-apply.json, which kyma-fleet status reads. Never cancelled half-way:
    # one run after another. The first apply writes every Shoot, more than Fleet
    # spec.removalGuard.maxShare allows: it stops with E_MASS_CHANGE, and Run workflow with job
    # garden and allow-mass-change checked applies it.
    needs: preflight
    if: \${{ (github.event_name == 'push' || (github.event_name == 'workflow_dispatch' && inputs.job == 'garden')) && needs.preflight.outputs.garden == 'true' }}
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
          ALLOW_MASS_CHANGE: \${{ inputs.allow-mass-change }}
        run: |
          printf '%s' "$GARDEN_KUBECONFIG" > "$RUNNER_TEMP/garden.yaml"
          mass=()
          if [ "$ALLOW_MASS_CHANGE" = true ]; then mass=(--allow-mass-change); fi
          code=0
          npx kyma-fleet apply garden --kubeconfig "$RUNNER_TEMP/garden.yaml" --garden-context garden "\${mass[@]}" 2> "$RUNNER_TEMP/apply.err" || code=$?
          cat "$RUNNER_TEMP/apply.err" >&2
          if grep -q E_MASS_CHANGE "$RUNNER_TEMP/apply.err"; then
            echo "::error title=kyma-fleet apply garden stopped::it would write more Shoots than Fleet spec.removalGuard.maxShare allows (nothing written). If that is intended (the first apply), run this workflow by hand: Actions, kyma-fleet, Run workflow, job garden, allow-mass-change"
          fi
          exit "$code"

      - name: Commit the report
        if: \${{ !cancelled() }}
        run: |
          git add fleet/status/garden-apply.json
          git diff --cached --quiet && exit 0
          git -c user.name=kyma-fleet -c user.email=kyma-fleet@users.noreply.github.com commit -m "kyma-fleet apply garden: report"
          git push

  rollout:
    # Hourly, and on demand (Run workflow, job rollout): observe the runtimes, move the next rollout
    # ring when the gate of the ring before it is open (docs/rollout.md), render, and propose the
    # result (fleet/status/, fleet/rollout/, dist/) as a pull request, or commit it to main when the
    # repository variable KYMA_FLEET_ROLLOUT_COMMIT is "true". A closed gate (exit 6) is no failure:
    # the status it observed is proposed all the same. Nothing to do for a fleet without
    # spec.rollout. Needs the secret KYMA_FLEET_KUBECONFIG: a kubeconfig with the contexts "kcp" and
    # "garden" (docs/access.md).
    needs: preflight
    if: \${{ ((github.event_name == 'schedule' && github.event.schedule == '${ROLLOUT_CRON}') || (github.event_name == 'workflow_dispatch' && inputs.job == 'rollout')) && needs.preflight.outputs.rollout == 'true' }}
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
          live=(--kubeconfig "$RUNNER_TEMP/kubeconfig.yaml" --kcp-context kcp --garden-context garden)
          npx kyma-fleet status "\${live[@]}"
          code=0
          npx kyma-fleet rollout advance "\${live[@]}" || code=$?
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
    # Weekly (Mondays 05:23 UTC), and on demand (Run workflow, job refresh): onboard the runtimes the
    # KCP has and the fleet lacks (import runtimes), refresh the module catalog and the snapshots
    # fleet.yaml names (catalog refresh, profile refresh), render, and propose the result as a pull
    # request, which the checks above then validate (docs/onboarding.md). Optional: skipped until the
    # repository variable KYMA_FLEET_GARDEN_PROJECT names the Gardener project of the Shoots. Needs
    # the secret KYMA_FLEET_KUBECONFIG: a kubeconfig with the contexts "kcp" and "garden" (list on
    # runtimes and modulereleasemetas in the KCP namespace, get on the Garden's snapshot objects).
    needs: preflight
    if: \${{ ((github.event_name == 'schedule' && github.event.schedule == '${REFRESH_CRON}') || (github.event_name == 'workflow_dispatch' && inputs.job == 'refresh')) && needs.preflight.outputs.refresh == 'true' }}
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
          printf '%s' "$KYMA_FLEET_KUBECONFIG" > "$RUNNER_TEMP/kubeconfig.yaml"
          kc=(--kubeconfig "$RUNNER_TEMP/kubeconfig.yaml")
          npx kyma-fleet import runtimes "\${kc[@]}" --kcp-context kcp --project "$GARDEN_PROJECT"
          npx kyma-fleet catalog refresh "\${kc[@]}" --kcp-context kcp
          # Exit 1 when fleet.yaml names no snapshot: nothing to refresh.
          npx kyma-fleet profile refresh "\${kc[@]}" --garden-context garden || echo "profile refresh: nothing refreshed"
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
