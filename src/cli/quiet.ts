// --quiet and --output json as the streams see them. main() wraps the process streams once; its
// preAction hook tells the wrapper what the command line asked for. Under --quiet only errors are
// printed: stdout's text report goes (a JSON document asked for with --output json stays: it is the
// result, not chatter), and so do warnings on stderr with their indented continuation lines
// (`<where>: warning: ...`, `<file>:<line>:<col>: warning at <field>: ...`, `::warning` annotations), and the progress bar.

import type { Streams } from './report';

export interface OutputMode {
  readonly quiet: boolean;
  readonly json: boolean;
}

const WARNING_LINE = /(^|: )warning(:| at )|^::warning /;

/** A line filter that drops warning lines and the indented lines that continue them. */
function warningFilter(): (text: string) => string {
  let dropping = false;
  return (text) =>
    text
      .split(/(?<=\n)/)
      .filter((line) => {
        if (/^[ \t]/.test(line)) return !dropping;
        dropping = WARNING_LINE.test(line);
        return !dropping;
      })
      .join('');
}

export interface GatedStreams {
  readonly streams: Streams;
  setMode(mode: OutputMode): void;
}

export function gatedStreams(base: Streams): GatedStreams {
  let mode: OutputMode = { quiet: false, json: false };
  let errFilter = warningFilter();
  let outFilter = warningFilter();
  const streams: Streams = {
    out: (text) => {
      if (!mode.quiet || mode.json) return base.out(text);
      // Under GitHub Actions, error annotations are errors too.
      const kept = outFilter(text)
        .split(/(?<=\n)/)
        .filter((l) => l.startsWith('::error'))
        .join('');
      if (kept !== '') base.out(kept);
    },
    err: (text) => {
      if (!mode.quiet) return base.err(text);
      const kept = errFilter(text);
      if (kept !== '') base.err(kept);
    },
    env: base.env,
    get cwd() {
      return base.cwd;
    },
    get progressStream() {
      return mode.quiet ? undefined : base.progressStream;
    },
  };
  return {
    streams,
    setMode(m) {
      mode = m;
      errFilter = warningFilter();
      outFilter = warningFilter();
    },
  };
}
