/** Writing files so that a crash leaves the old version or the new one, whole. */
import * as fs from 'node:fs';

/** temp file, fsync, rename, fsync the folder: a reader sees the old file or the new one, whole. */
export function writeFileDurably(path: string, data: Uint8Array): void {
  const tmp = `${path}.tmp-${process.pid}`;
  const fd = fs.openSync(tmp, 'w', 0o600);
  try {
    let written = 0;
    while (written < data.length) written += fs.writeSync(fd, data, written, data.length - written);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  fs.renameSync(tmp, path);
  syncDir(path);
}

/** fsyncs the folder holding a file, so a rename into it is durable. */
export function syncDir(filePath: string): void {
  const dir = filePath.replace(/[\\/][^\\/]*$/, '') || '.';
  try {
    const fd = fs.openSync(dir, 'r');
    try {
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    // Directories cannot be fsynced on every platform (Windows); the rename is still atomic.
  }
}
