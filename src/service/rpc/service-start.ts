/**
 * Watching a service this client started, so that one that exits says why at once instead of the
 * client waiting out its start timeout. The service writes why it could not start to an extra
 * pipe (fd 3, named by RECALL_START_FD) and closes it once it listens; a full disk that keeps the
 * reason out of service.log still gets it to the person.
 */
import type { ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import type { Readable } from 'node:stream';

/** The environment variable naming the fd a starting service reports its failure on. */
export const START_FD_ENV = 'RECALL_START_FD';
export const START_FD = 3;

/** How long after the process exits its last words may still be arriving on the pipe. */
const LAST_WORDS_MS = 300;

export class ServiceStart {
  private exit?: { code: number | null; signal: NodeJS.Signals | null; at: number };
  private closed = false;
  private said = '';
  private readonly pipe?: Readable;

  constructor(
    child: ChildProcess,
    private readonly logFile: string,
    private readonly logStart: number,
  ) {
    this.pipe = (child.stdio[START_FD] ?? undefined) as Readable | undefined;
    this.pipe?.on('data', (chunk: Buffer) => (this.said = (this.said + chunk.toString('utf8')).slice(-2000)));
    this.pipe?.on('error', () => {});
    // The pipe must not keep this process alive (a CLI exits while the service runs on).
    (this.pipe as unknown as { unref?: () => void } | undefined)?.unref?.();
    child.once('exit', (code, signal) => (this.exit = { code, signal, at: Date.now() }));
    child.once('close', () => (this.closed = true));
    child.once('error', (err) => {
      this.said ||= err.message;
      this.exit ??= { code: -1, signal: null, at: Date.now() };
    });
  }

  /** undefined while it runs; 'stepped-aside' when it exited cleanly (another service owns the folder). */
  get outcome(): 'failed' | 'stepped-aside' | undefined {
    if (!this.exit || (!this.closed && Date.now() - this.exit.at < LAST_WORDS_MS)) return undefined;
    return this.exit.code === 0 ? 'stepped-aside' : 'failed';
  }

  /** Why it exited: its own words, else the log's new lines, else how it ended. */
  why(): string {
    const words = this.said.trim() || this.logTail();
    const how = this.exit?.signal ? `killed by ${this.exit.signal}` : `exit code ${this.exit?.code}`;
    return words ? `${words} (${how})` : `it ended with ${how} and said nothing`;
  }

  /** Stops listening once the service answers. */
  detach(): void {
    this.pipe?.destroy();
  }

  private logTail(): string {
    try {
      const fd = fs.openSync(this.logFile, 'r');
      try {
        const size = fs.fstatSync(fd).size;
        const start = Math.max(this.logStart, size - 4096);
        const buf = Buffer.alloc(Math.max(0, size - start));
        fs.readSync(fd, buf, 0, buf.length, start);
        return buf.toString('utf8').trim().split('\n').slice(-3).join('\n');
      } finally {
        fs.closeSync(fd);
      }
    } catch {
      return '';
    }
  }
}
