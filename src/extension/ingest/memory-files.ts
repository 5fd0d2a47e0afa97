/**
 * The memory files this workspace keeps (AGENTS.md, CLAUDE.md, Copilot's and Cursor's rules, Cline's
 * memory bank…) read into the memory as knowledge items: each at start, and again when it is
 * written, made or deleted (its items follow its lines; a deleted file's end). Only in a trusted
 * workspace (extension.ts starts it through whenTrusted); the instructions file Recall writes is
 * never read back. A file that fails is logged and skipped: nothing here interrupts anyone.
 */
import * as vscode from 'vscode';
import { WORKSPACE_MEMORY_GLOB, workspaceMemoryFiles } from '../../core/ingest/memory-files.js';
import { MemoryError } from '../../core/model/errors.js';
import type { RecallExtension } from '../ctx.js';
import { sendMemoryFile } from './common/memory-file-sync.js';

/** Quiet time after a file's last write before it is read (an editor saves in bursts). */
const SETTLE_MS = 1500;

export class WorkspaceMemoryFiles implements vscode.Disposable {
  private readonly watchers: vscode.FileSystemWatcher[] = [];
  private readonly timers = new Map<string, NodeJS.Timeout>();
  /** Reads never overlap: one file at a time, in the order they settled. */
  private queue: Promise<unknown> = Promise.resolve();
  private disposed = false;

  constructor(private readonly ctx: RecallExtension) {
    for (const folder of vscode.workspace.workspaceFolders ?? []) {
      if (folder.uri.scheme !== 'file') continue;
      const watcher = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(folder.uri, WORKSPACE_MEMORY_GLOB));
      const changed = (uri: vscode.Uri): void => this.schedule(uri.fsPath);
      watcher.onDidCreate(changed);
      watcher.onDidChange(changed);
      watcher.onDidDelete(changed);
      this.watchers.push(watcher);
    }
    this.readAll();
  }

  /** Every memory file of the workspace, read again (at start, and into another memory folder). */
  readAll(): void {
    for (const folder of vscode.workspace.workspaceFolders ?? [])
      if (folder.uri.scheme === 'file') for (const file of workspaceMemoryFiles(folder.uri.fsPath)) this.schedule(file);
  }

  private schedule(file: string): void {
    clearTimeout(this.timers.get(file));
    this.timers.set(
      file,
      setTimeout(() => {
        this.timers.delete(file);
        this.queue = this.queue.then(() => this.read(file));
      }, SETTLE_MS),
    );
  }

  private async read(file: string): Promise<void> {
    if (this.disposed) return;
    try {
      const r = await sendMemoryFile(file, this.ctx.human);
      if (!r) return;
      if (r.added || r.ended) this.ctx.memoryChanged();
      this.ctx.log.info(`memory file ${file} (${r.label}): ${r.items} item(s), ${r.added} new, ${r.ended} ended`);
    } catch (err) {
      const why = err instanceof MemoryError ? `${err.message}${err.hint ? ` ${err.hint}` : ''}` : String(err);
      this.ctx.log.warn(`memory file ${file} not read: ${why}`);
    }
  }

  dispose(): void {
    this.disposed = true;
    for (const t of this.timers.values()) clearTimeout(t);
    this.timers.clear();
    for (const w of this.watchers.splice(0)) w.dispose();
  }
}
