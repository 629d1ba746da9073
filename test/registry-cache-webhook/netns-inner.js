// Runs inside the private network and mount namespace of the registry-cache webhook (webhook.ts):
// bridges the two TCP connections the webhook needs across the namespace boundary through Unix
// sockets in the run folder, starts the module's binary, and ends it when the test process (or the
// binary) goes. Plain JavaScript, run by `node` directly: it is not compiled with the tests.
//
// argv: <runDir> <apiserverPort> <parentPid> <binary> [binary args...]
//   - the binary's API server is https://127.0.0.1:<apiserverPort>: here a listener on that port
//     forwards each connection to <runDir>/api.sock, which the test process forwards to the real API
//     server (TLS passes through unchanged, so the server's certificate for 127.0.0.1 still matches);
//   - the API server calls the webhook at the port the test process listens on, which forwards to
//     <runDir>/hook.sock, which this process forwards to 127.0.0.1:9443 here (the binary's fixed port:
//     one per network namespace, hence the namespace).
'use strict';
const net = require('node:net');
const path = require('node:path');
const { spawn } = require('node:child_process');

const [runDir, apiserverPort, parentPid, binary, ...args] = process.argv.slice(2);

function pipe(a, b) {
  a.on('error', () => b.destroy());
  b.on('error', () => a.destroy());
  a.pipe(b);
  b.pipe(a);
}

net.createServer((c) => pipe(c, net.connect(path.join(runDir, 'api.sock')))).listen(Number(apiserverPort), '127.0.0.1');
net.createServer((c) => pipe(c, net.connect(9443, '127.0.0.1'))).listen(path.join(runDir, 'hook.sock'));

const child = spawn(binary, args, { stdio: 'inherit', env: { ...process.env, KUBECONFIG: '/tmp/kubeconfig' } });
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
const end = () => {
  child.kill('SIGTERM');
  setTimeout(() => child.kill('SIGKILL'), 3000).unref();
};
process.on('SIGTERM', end);
process.on('SIGINT', end);
setInterval(() => {
  try {
    process.kill(Number(parentPid), 0);
  } catch {
    end();
  }
}, 500);
