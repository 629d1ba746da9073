#!/usr/bin/env node
// Entry point of the kyma-fleet CLI: runs the compiled program (npm install builds lib/).
'use strict';
require('../lib/src/cli/main.js').main(process.argv).then(
  (code) => { process.exitCode = code; },
  (err) => { process.stderr.write(`internal error: ${err && err.stack ? err.stack : err}\n`); process.exitCode = 70; },
);
