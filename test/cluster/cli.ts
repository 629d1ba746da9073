// `npm run test-cluster -- build|start|stop [--dir DIR]`: a test cluster (harness.ts) for people, running
// in the background until stopped. build only builds (or finds in the tool cache) etcd, kube-apiserver
// and kubectl and prints their paths. start builds or reuses the binaries, starts etcd and kube-apiserver
// detached in DIR (pids and ports in DIR/state.json, logs beside it), installs every CRD of
// imports/crds/ and prints the path of an admin kubeconfig as its last line. stop ends those processes
// and removes DIR. DIR defaults to .test-cluster/ in the project (gitignored).

import * as path from 'node:path';
import { startTestCluster, stopClusterInDir } from './harness';
import { PROJECT_ROOT } from './paths';
import { ensureClusterBinaries } from './tools';

const USAGE = 'usage: npm run test-cluster -- build | start [--dir DIR] | stop [--dir DIR]   (DIR default: .test-cluster/ in the project)';

function parseArgs(argv: string[]): { command: 'build' | 'start' | 'stop'; dir: string } {
  const [command, ...rest] = argv;
  if (command !== 'build' && command !== 'start' && command !== 'stop') throw new Error(USAGE);
  let dir = path.join(PROJECT_ROOT, '.test-cluster');
  for (let i = 0; i < rest.length; i++) {
    if (rest[i] === '--dir' && rest[i + 1] && !rest[i + 1].startsWith('--')) dir = path.resolve(rest[++i]);
    else if (rest[i].startsWith('--dir=') && rest[i].length > '--dir='.length) dir = path.resolve(rest[i].slice('--dir='.length));
    else throw new Error(`unknown argument "${rest[i]}"; ${USAGE}`);
  }
  return { command, dir };
}

async function main(): Promise<number> {
  let args;
  try {
    args = parseArgs(process.argv.slice(2));
  } catch (err) {
    process.stderr.write(`test-cluster: ${(err as Error).message}\n`);
    return 2;
  }
  if (args.command === 'build') {
    const built = await ensureClusterBinaries((line) => process.stdout.write(`test-cluster: ${line}\n`));
    process.stdout.write(`kube-apiserver ${built.kubeApiserver}\nkubectl ${built.kubectl}\netcd ${built.etcd}\n`);
    return 0;
  }
  if (args.command === 'stop') {
    const stopped = await stopClusterInDir(args.dir);
    process.stdout.write(stopped ? `test-cluster: stopped the cluster in ${args.dir} and removed the folder\n` : `test-cluster: no test cluster in ${args.dir}\n`);
    return 0;
  }
  const cluster = await startTestCluster({ dir: args.dir, detached: true, log: (line) => process.stdout.write(`test-cluster: ${line}\n`) });
  process.stdout.write([
    `test-cluster: kube-apiserver pid ${cluster.pids.apiserver}, etcd pid ${cluster.pids.etcd}; logs in ${cluster.dir}`,
    `test-cluster: narrow user (no rights on Shoots): ${cluster.narrowKubeconfig}`,
    `test-cluster: stop it with: npm run test-cluster -- stop${args.dir === path.join(PROJECT_ROOT, '.test-cluster') ? '' : ` --dir ${args.dir}`}`,
    `test-cluster: try: kubectl --kubeconfig ${cluster.adminKubeconfig} apply --server-side -k dist/runtimes/<name>/skr`,
    cluster.adminKubeconfig,
  ].join('\n') + '\n');
  return 0;
}

main().then((code) => process.exit(code), (err: Error) => {
  process.stderr.write(`test-cluster: ${err.message}\n`);
  process.exit(1);
});
