// Preloaded (`node -r lib/bench/rss-probe.js ...`) by the benchmark when /usr/bin/time is missing:
// reports the peak RSS and CPU time of the whole process on exit, as one marked line on stderr.

import { writeSync } from 'node:fs';

process.on('exit', () => {
  const u = process.resourceUsage();
  const report = { maxRssKB: u.maxRSS, userS: u.userCPUTime / 1e6, sysS: u.systemCPUTime / 1e6 };
  writeSync(2, `\n@@bench-rss ${JSON.stringify(report)}\n`);
});
