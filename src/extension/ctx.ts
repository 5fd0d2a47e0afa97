/**
 * The running extension, handed to every part as `ctx`: owns every disposable it creates
 * (connections, views, commands, the status bar, the HTTP child), the current settings, and the
 * events the parts listen to. deactivate() disposes it and nothing is left behind.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import { runningServicePid, stopService } from '../service/rpc/launch.js';
import { ServiceConnection, type ServiceState } from './connection.js';
import { readSettings, type Settings } from './config.js';
import { CONTEXT } from './common/ids.js';
import { MemorySource } from './views/common/source.js';

export class RecallExtension implements vscode.Disposable {
  readonly log: vscode.LogOutputChannel;
  /** The person: corrections and imports, human authority. Also the one that listens for changes. */
  readonly human: ServiceConnection;
  /** The model: native LM tools, agent authority. */
  readonly lm: ServiceConnection;
  readonly source: MemorySource;
  readonly cliScript: string;
  readonly serviceScript: string;
  private _settings: Settings;
  private readonly disposables: vscode.Disposable[] = [];
  private readonly changed = new vscode.EventEmitter<void>();
  private readonly folderChanged = new vscode.EventEmitter<string>();
  private changeTimer?: NodeJS.Timeout;
  private restarting?: Promise<void>;

  /** The memory changed (debounced): views and the status bar refresh. */
  readonly onDidChangeMemory = this.changed.event;
  /** The configured memory folder changed. */
  readonly onDidChangeFolder = this.folderChanged.event;

  constructor(readonly extension: vscode.ExtensionContext) {
    this.log = this.push(vscode.window.createOutputChannel('Recall', { log: true }));
    this._settings = readSettings();
    this.cliScript = path.join(extension.extensionPath, 'dist', 'cli.js');
    this.serviceScript = path.join(extension.extensionPath, 'dist', 'service.js');
    const memory = (): string => this._settings.memory;
    this.human = this.push(
      new ServiceConnection({ surface: 'extension', memory, serviceScript: this.serviceScript, log: this.log, stayConnected: true }),
    );
    this.lm = this.push(new ServiceConnection({ surface: 'lm', memory, serviceScript: this.serviceScript, log: this.log }));
    this.source = new MemorySource(this.human);
    this.push(this.human.onDidChangeMemory(() => this.memoryChanged()));
    this.push(this.human.onDidChangeState((s) => void vscode.commands.executeCommand('setContext', CONTEXT.state, s)));
    this.push(this.changed, this.folderChanged);
    // Connections made in Restricted Mode name no workspace (connection.ts); trusted, they connect again with it.
    this.push(
      vscode.workspace.onDidGrantWorkspaceTrust(() => {
        this.human.reset();
        this.lm.reset();
        this.memoryChanged(0);
      }),
    );
    void vscode.commands.executeCommand('setContext', CONTEXT.state, 'idle');
  }

  get settings(): Settings {
    return this._settings;
  }

  get memory(): string {
    return this._settings.memory;
  }

  get state(): ServiceState {
    return this.human.state;
  }

  push<T extends vscode.Disposable>(first: T, ...rest: vscode.Disposable[]): T {
    this.disposables.push(first, ...rest);
    return first;
  }

  /** Re-reads the settings; a different folder means new connections and fresh views. */
  reloadSettings(): { folderChanged: boolean } {
    const before = this._settings.memory;
    this._settings = readSettings();
    const folderChanged = before !== this._settings.memory;
    if (folderChanged) {
      this.log.info(`memory folder is now ${this._settings.memory}`);
      this.human.reset();
      this.lm.reset();
      this.folderChanged.fire(this._settings.memory);
      this.memoryChanged(0);
    }
    return { folderChanged };
  }

  /** Tells everything to refresh, soon (several writes in a row make one refresh). */
  memoryChanged(delayMs = 250): void {
    clearTimeout(this.changeTimer);
    this.changeTimer = setTimeout(() => this.changed.fire(), delayMs);
  }

  /** Connects the person's connection now if a service already runs (cheap); never starts one. */
  async connectIfRunning(): Promise<void> {
    if (runningServicePid(this.memory) !== undefined) await this.human.connect().catch(() => undefined);
  }

  /** Stops the service (it snapshots first) and connects again, which starts a fresh one. */
  restartService(why: string): Promise<void> {
    this.restarting ??= (async () => {
      this.log.info(`restarting the memory service: ${why}`);
      this.human.suspend(true);
      try {
        this.human.reset();
        this.lm.reset();
        const stopped = await stopService(this.memory);
        this.log.info(stopped ? 'memory service stopped' : 'no memory service was running');
        await this.human.connect();
      } finally {
        this.human.suspend(false);
        this.memoryChanged(0);
      }
    })().finally(() => (this.restarting = undefined));
    return this.restarting;
  }

  dispose(): void {
    clearTimeout(this.changeTimer);
    for (const d of this.disposables.splice(0).reverse()) {
      try {
        d.dispose();
      } catch (err) {
        console.error(err);
      }
    }
  }
}
