/**
 * The optional MCP Streamable HTTP transport (`recall.http.enabled`): `dist/cli.js mcp --http`
 * on 127.0.0.1, run by the extension for as long as it is enabled, so MCP clients that speak
 * HTTP can use the same memory. Loopback only, and with the memory folder's bearer token (shared
 * with `recall mcp --http`), so other users of the machine cannot read the memory through it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import * as vscode from 'vscode';
import { httpTokenPath, memoryFolderToken } from '../../mcp/http-token.js';
import type { RecallExtension } from '../ctx.js';

export class HttpTransport implements vscode.Disposable {
  private child?: ChildProcess;
  private running?: { port: number; memory: string };

  constructor(private readonly ctx: RecallExtension) {}

  get url(): string | undefined {
    return this.running ? `http://127.0.0.1:${this.running.port}/mcp` : undefined;
  }

  /** Starts, stops or restarts it to match the settings. */
  apply(): void {
    const { http } = this.ctx.settings;
    const want = http.enabled ? { port: http.port, memory: this.ctx.memory } : undefined;
    if (want && this.running && want.port === this.running.port && want.memory === this.running.memory && this.child?.exitCode === null)
      return;
    this.stop();
    if (want) this.start(want.port, want.memory);
  }

  private start(port: number, memory: string): void {
    const log = this.ctx.log;
    // Made here, not left to the child, so the file named in the log is the one the server reads.
    try {
      memoryFolderToken(memory);
    } catch (err) {
      log.error(`MCP over HTTP not started: ${(err as Error).message}`);
      return;
    }
    const tokenFile = httpTokenPath(memory);
    const child = spawn(
      process.execPath,
      [this.ctx.cliScript, '--memory', memory, 'mcp', '--http', '--port', String(port), '--host', '127.0.0.1', '--token-file', tokenFile],
      {
        env: { ...process.env, ELECTRON_RUN_AS_NODE: '1' },
        stdio: ['ignore', 'pipe', 'pipe'],
        windowsHide: true,
      },
    );
    this.child = child;
    this.running = { port, memory };
    log.info(
      `MCP over HTTP starting at http://127.0.0.1:${port}/mcp (pid ${child.pid}); clients send "Authorization: Bearer <the contents of ${tokenFile}>"`,
    );
    const relay = (chunk: Buffer): void => {
      for (const line of chunk.toString('utf8').split('\n')) if (line.trim()) log.info(`[http] ${line}`);
    };
    child.stdout?.on('data', relay);
    child.stderr?.on('data', relay);
    child.on('exit', (code, signal) => {
      if (this.child !== child) return;
      this.child = undefined;
      this.running = undefined;
      log.warn(`MCP over HTTP stopped (${signal ?? `exit ${code}`})`);
      if (code)
        void vscode.window
          .showWarningMessage(`Recall: the MCP HTTP server on port ${port} stopped (exit ${code}). See the Recall log.`, 'Show Log')
          .then((a) => a && log.show());
    });
  }

  stop(): void {
    const child = this.child;
    this.child = undefined;
    this.running = undefined;
    if (child && child.exitCode === null) child.kill('SIGTERM');
  }

  dispose(): void {
    this.stop();
  }
}
