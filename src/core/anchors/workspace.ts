/** Which workspace a command-line client stands in: the git repository around a folder, else the folder. */
import * as fs from 'node:fs';
import * as path from 'node:path';

export function workspaceRoot(dir: string): string {
  const start = path.resolve(dir);
  for (let d = start; ; d = path.dirname(d)) {
    if (fs.existsSync(path.join(d, '.git'))) return d;
    if (path.dirname(d) === d) return start;
  }
}
