// The cdk8s app entry (cdk8s.yaml: `app: node lib/src/main.js`). `cdk8s synth` empties the
// output folder and runs this with CDK8S_OUTDIR set; it renders exactly what `kyma-fleet synth`
// renders. The fleet folder is KYMA_FLEET_DIR (default: fleet).

import { main } from './cli/main';

main(['node', 'kyma-fleet', 'synth', '--fleet', process.env.KYMA_FLEET_DIR ?? 'fleet', '--out', process.env.CDK8S_OUTDIR ?? 'dist']).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`internal error: ${err instanceof Error ? err.stack : String(err)}\n`);
    process.exitCode = 70;
  },
);
