/**
 * One connection to the memory service for one surface. `extension` is a person (the only
 * human-authority writes: corrections from commands and tree items); `lm` is a model (native LM
 * tools, agent authority). Connects on first use, so activating the extension starts nothing;
 * the person's connection listens for change notifications and reconnects after the service
 * went away, so the views stay live.
 */
import * as vscode from 'vscode';
import { deriveProject } from '../core/model/project.js';
import { MemoryClient } from '../service/rpc/client.js';
import type { Method, ParamsOf, ResultOf, Surface } from '../service/rpc/protocol.js';
import type { MemoryAccess } from '../tools/catalogue.js';

export type ServiceState = 'idle' | 'connecting' | 'connected' | 'disconnected' | 'error';

export interface ServiceConnectionOptions {
  surface: Surface;
  memory: () => string;
  serviceScript: string;
  log: vscode.LogOutputChannel;
  /** Reconnect by itself after the service went away (to keep receiving change notifications). */
  stayConnected?: boolean;
}

const derived = new Map<string, { project: string; workspace: string }>();

/**
 * The open workspace's project (its first folder's, project.ts); none without a folder on disk.
 * Read once per folder: tree rows ask for it while rendering, and a remote changes rarely.
 */
export function workspaceProject(): { project?: string; workspace?: string } {
  const folder = vscode.workspace.workspaceFolders?.find((f) => f.uri.scheme === 'file')?.uri.fsPath;
  if (!folder) return {};
  let known = derived.get(folder);
  if (!known) {
    const p = deriveProject(folder);
    derived.set(folder, (known = { project: p.key, workspace: p.root }));
  }
  return known;
}

export class ServiceConnection implements MemoryAccess, vscode.Disposable {
  private client?: Promise<MemoryClient>;
  private reconnectTimer?: NodeJS.Timeout;
  private backoffMs = 1000;
  private disposed = false;
  private suspended = false;
  private _state: ServiceState = 'idle';
  private readonly stateEmitter = new vscode.EventEmitter<ServiceState>();
  private readonly changedEmitter = new vscode.EventEmitter<void>();
  /** Fires whenever the state changes. */
  readonly onDidChangeState = this.stateEmitter.event;
  /** Fires when the service says the memory changed (any client's write), and after reconnecting. */
  readonly onDidChangeMemory = this.changedEmitter.event;

  constructor(private readonly opts: ServiceConnectionOptions) {}

  get state(): ServiceState {
    return this._state;
  }

  get connected(): boolean {
    return this._state === 'connected';
  }

  async call<M extends Method>(method: M, params: ParamsOf<M>): Promise<ResultOf<M>> {
    const client = await this.get();
    return client.call(method, params);
  }

  /** Connects now (starting the service if none runs). */
  async connect(): Promise<void> {
    await this.get();
  }

  /** Drops the connection; the next call connects again (to the folder `memory()` names then). */
  reset(): void {
    clearTimeout(this.reconnectTimer);
    const old = this.client;
    this.client = undefined;
    old?.then(
      (c) => c.close(),
      () => undefined,
    );
    this.setState('idle');
  }

  /** While suspended (a restart in progress), a lost connection is not re-established by itself. */
  suspend(on: boolean): void {
    this.suspended = on;
    if (on) clearTimeout(this.reconnectTimer);
  }

  dispose(): void {
    this.disposed = true;
    this.reset();
    this.stateEmitter.dispose();
    this.changedEmitter.dispose();
  }

  private get(): Promise<MemoryClient> {
    if (this.disposed) return Promise.reject(new Error('Recall is shutting down.'));
    if (!this.client) {
      const memory = this.opts.memory();
      this.setState('connecting');
      const { project, workspace } = workspaceProject();
      const pending = MemoryClient.connect({
        memory,
        surface: this.opts.surface,
        project,
        // The service takes and checks code anchors in this root: in Restricted Mode it reads none of the workspace's files.
        workspace: vscode.workspace.isTrusted ? workspace : undefined,
        serviceScript: this.opts.serviceScript,
        log: (m) => this.opts.log.info(`[${this.opts.surface}] ${m}`),
      }).then(
        (client) => {
          if (this.client !== pending) {
            client.close();
            throw new Error('The memory folder changed while connecting.');
          }
          this.wire(client, memory);
          return client;
        },
        (err: Error) => {
          if (this.client === pending) {
            this.client = undefined;
            this.setState('error');
          }
          this.opts.log.error(`[${this.opts.surface}] cannot reach the memory service for ${memory}: ${err.message}`);
          throw err;
        },
      );
      this.client = pending;
    }
    return this.client;
  }

  private wire(client: MemoryClient, memory: string): void {
    this.opts.log.info(`[${this.opts.surface}] connected to the memory service for ${memory}`);
    this.backoffMs = 1000;
    this.setState('connected');
    client.onChanged((n) => {
      this.opts.log.trace(`[${this.opts.surface}] memory changed (${n.method}, seq ${n.seq})`);
      this.changedEmitter.fire();
    });
    client.on('connected', () => {
      this.backoffMs = 1000;
      this.setState('connected');
      this.changedEmitter.fire(); // writes may have happened while we were away
    });
    client.on('disconnected', () => {
      if (this.disposed) return;
      this.opts.log.warn(`[${this.opts.surface}] the memory service connection closed`);
      this.setState('disconnected');
      this.scheduleReconnect(client);
    });
  }

  private scheduleReconnect(client: MemoryClient): void {
    if (!this.opts.stayConnected || this.suspended || this.disposed) return;
    clearTimeout(this.reconnectTimer);
    this.reconnectTimer = setTimeout(() => {
      if (this.disposed || this.suspended || this.connected) return;
      client.call('ping', {}).catch((err: Error) => {
        this.opts.log.warn(`[${this.opts.surface}] reconnecting failed: ${err.message}`);
        this.setState('error');
        this.backoffMs = Math.min(this.backoffMs * 2, 60_000);
        this.scheduleReconnect(client);
      });
    }, this.backoffMs);
  }

  private setState(s: ServiceState): void {
    if (this._state === s) return;
    this._state = s;
    if (!this.disposed) this.stateEmitter.fire(s);
  }
}
