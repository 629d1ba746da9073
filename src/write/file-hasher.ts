// Hashes the files of dist/ one after another for a scan (./tree-scan.ts): open, read into one
// buffer, close, with no stat and no allocation per small file; read as the run reads every file
// (lib/open-for-reading.ts: no access time written).

import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { sha256 } from '../lib/digest';
import { openForReading } from '../lib/open-for-reading';

/** Reads and hashes files through one buffer (open, read, close: no stat, no allocation per small file). */
export class FileHasher {
  private buffer = Buffer.allocUnsafe(1 << 16);
  private readonly prefix: string;
  constructor(root: string) {
    this.prefix = below(root);
  }

  /** sha256 of the file's bytes; undefined when it cannot be read. A symlink is not met here: the walks list it as another entry. */
  hash(rel: string): string | undefined {
    const file = this.prefix + rel;
    try {
      const fd = openForReading(file);
      try {
        const n = fs.readSync(fd, this.buffer, 0, this.buffer.length, 0);
        if (n < this.buffer.length) return sha256(this.buffer.subarray(0, n));
        // A larger file: the rest through the same buffer from the file already open (it was opened and read whole again).
        const hash = createHash('sha256').update(this.buffer);
        for (let at = n; ; ) {
          const more = fs.readSync(fd, this.buffer, 0, this.buffer.length, at);
          if (more === 0) return hash.digest('hex');
          hash.update(this.buffer.subarray(0, more));
          at += more;
        }
      } finally {
        fs.closeSync(fd);
      }
    } catch {
      return undefined;
    }
  }
}

/** `root` with a trailing separator: a listed path appended to it is the file's path (path.join per file cost 10% of a look). */
export function below(root: string): string {
  return root === '' || root.endsWith(path.sep) ? root : `${root}${path.sep}`;
}
