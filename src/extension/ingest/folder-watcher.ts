/**
 * Tells when transcript files in a folder were written, once the writing settles. Used for
 * Copilot Chat's session folder and Claude Code's projects folder, both outside the workspace.
 *
 * vscode.workspace.createFileSystemWatcher with a RelativePattern on a file URI: measured in
 * code-server 1.104 (extension host on Node 22) to fire create and change events for folders
 * outside the workspace (the workspace storage folder, a temporary folder), files in subfolders
 * made after the watcher started included. It stays silent when the folder itself does not exist
 * yet, so a missing folder is looked for every 30 s and watched once it appears.
 */
import * as fs from 'node:fs';
import * as vscode from 'vscode';

export interface FolderWatcherOptions {
  /** Quiet time after the last event before `onSettled` (a chat streams many writes a second). */
  debounceMs?: number;
  /** Longest wait while events keep coming, so a long busy session is still read now and then. */
  maxWaitMs?: number;
  /** How often a missing folder is looked for. */
  pollMs?: number;
  /** A scan this often whatever the events say: a file watcher can miss an event (a full queue, a race with a new folder). */
  rescanMs?: number;
}

export class FolderWatcher implements vscode.Disposable {
  private watcher?: vscode.FileSystemWatcher;
  private poll?: NodeJS.Timeout;
  private rescan?: NodeJS.Timeout;
  private timer?: NodeJS.Timeout;
  private firstEventAt?: number;
  private readonly debounceMs: number;
  private readonly maxWaitMs: number;

  /** Calls `onSettled` once soon after it starts (files written while VS Code was closed), then after each burst of writes. */
  constructor(
    readonly folder: string,
    private readonly glob: string,
    private readonly onSettled: () => void,
    opts: FolderWatcherOptions = {},
  ) {
    this.debounceMs = opts.debounceMs ?? 2000;
    this.maxWaitMs = opts.maxWaitMs ?? 20_000;
    this.rescan = setInterval(() => this.watcher && this.schedule(), opts.rescanMs ?? 5 * 60_000);
    if (fs.existsSync(folder)) this.watch();
    else {
      this.poll = setInterval(() => {
        if (!fs.existsSync(folder)) return;
        clearInterval(this.poll);
        this.poll = undefined;
        this.watch();
      }, opts.pollMs ?? 30_000);
    }
  }

  get watching(): boolean {
    return this.watcher !== undefined;
  }

  private watch(): void {
    // Deletions are ignored: the memory keeps what was said even when the transcript goes.
    this.watcher = vscode.workspace.createFileSystemWatcher(
      new vscode.RelativePattern(vscode.Uri.file(this.folder), this.glob),
      false,
      false,
      true,
    );
    this.watcher.onDidCreate(() => this.schedule());
    this.watcher.onDidChange(() => this.schedule());
    this.schedule();
  }

  private schedule(): void {
    const now = Date.now();
    this.firstEventAt ??= now;
    clearTimeout(this.timer);
    const wait = Math.max(0, Math.min(this.debounceMs, this.firstEventAt + this.maxWaitMs - now));
    this.timer = setTimeout(() => {
      this.firstEventAt = undefined;
      this.onSettled();
    }, wait);
  }

  dispose(): void {
    clearInterval(this.poll);
    clearInterval(this.rescan);
    clearTimeout(this.timer);
    this.watcher?.dispose();
  }
}
