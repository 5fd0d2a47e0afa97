/** Writing files so that a crash leaves the old version or the new one, whole. */
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';

/**
 * temp file, fsync, rename, fsync the folder: a reader sees the old file or the new one, whole.
 * A failed write leaves no temp file behind.
 */
export function writeFileDurably(file: string, data: Uint8Array | Uint8Array[]): void {
  const tmp = `${file}.tmp-${process.pid}-${crypto.randomBytes(4).toString('hex')}`;
  const fd = fs.openSync(tmp, 'w', 0o600);
  try {
    for (const chunk of Array.isArray(data) ? data : [data]) {
      let written = 0;
      while (written < chunk.length) written += fs.writeSync(fd, chunk, written, chunk.length - written);
    }
    fs.fsyncSync(fd);
    fs.closeSync(fd);
    fs.renameSync(tmp, file);
  } catch (e) {
    try {
      fs.closeSync(fd);
    } catch {
      // Already closed.
    }
    fs.rmSync(tmp, { force: true });
    throw e;
  }
  syncDir(file);
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
