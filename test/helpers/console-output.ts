// How a documented console step's output is compared with what the command printed, shared by the
// README test (test/readme.test.ts) and the docs test (test/docs-console.test.ts), kept here so that
// importing it registers no tests.

/** Where `actual` does not print `expected` (undefined when it does): `...` any lines, a trailing `…` any rest of a line. */
export function outputMismatch(actual: string, expected: readonly string[]): string | undefined {
  const lines = actual.endsWith('\n') ? actual.slice(0, -1).split('\n') : actual === '' ? [] : actual.split('\n');
  const same = (a: string, e: string): boolean => (e.endsWith('…') ? a.startsWith(e.slice(0, -1)) : a === e);
  let at = 0;
  let gap = false;
  for (const e of expected) {
    if (e === '...') {
      gap = true;
      continue;
    }
    let found = -1;
    for (let j = at; j < (gap ? lines.length : Math.min(at + 1, lines.length)); j++) {
      if (same(lines[j]!, e)) {
        found = j;
        break;
      }
    }
    if (found < 0) return `expected ${JSON.stringify(e)}${gap ? '' : ` as line ${at + 1}`}; got:\n${actual}`;
    at = found + 1;
    gap = false;
  }
  if (!gap && at < lines.length) return `more output than shown, from ${JSON.stringify(lines[at])}`;
  return undefined;
}
