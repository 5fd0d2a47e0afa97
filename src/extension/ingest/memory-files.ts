/**
 * The memory files this workspace keeps (AGENTS.md and CLAUDE.md, nested ones in its subfolders
 * too, Copilot's and Cursor's rules, Cline's memory bank…) and the person's own for it
 * (~/.claude/CLAUDE.md, Claude Code's auto memory of this project) read into the memory as
 * knowledge items: each at start, and again when it is written, made or deleted (its items follow
 * its lines; a deleted file's end); so are the files a CLAUDE.md imports, watched while it imports
 * them. Only in a trusted workspace (extension.ts starts it through whenTrusted); the instructions
 * file Recall writes is never read back. A file that fails is logged and skipped: nothing here
 * interrupts anyone.
 */
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import {
  autoMemoryFolders,
  isWorkspaceMemoryFile,
  userMemoryFiles,
  WORKSPACE_MEMORY_GLOB,
  workspaceMemoryFiles,
} from '../../core/ingest/memory-files.js';
import { MemoryError } from '../../core/model/errors.js';
import { readSettings } from '../config.js';
import type { RecallExtension } from '../ctx.js';
import { sendMemoryFile } from './common/memory-file-sync.js';

/** Quiet time after a file's last write before it is read (an editor saves in bursts). */
const SETTLE_MS = 1500;

/** A person's own file (read as their words; a global one's items to the global memory), else the workspace's. */
type Own = { global: boolean } | undefined;

export class WorkspaceMemoryFiles implements vscode.Disposable {
  private readonly watchers: vscode.FileSystemWatcher[] = [];
  /** The files each CLAUDE.md imports, watched so an edit to one, or its deletion, is read as its own. */
  private readonly importWatchers = new Map<string, vscode.FileSystemWatcher[]>();
  private readonly timers = new Map<string, NodeJS.Timeout>();
  /** Reads never overlap: one file at a time, in the order they settled. */
  private queue: Promise<unknown> = Promise.resolve();
  private disposed = false;

  /** `itemsAdded`: told when a read added items (the JoinOffer asks a model which say the same). */
  constructor(
    private readonly ctx: RecallExtension,
    private readonly itemsAdded: () => void = () => {},
  ) {
    for (const folder of this.folders()) {
      this.watch(folder, WORKSPACE_MEMORY_GLOB, (file) => (isWorkspaceMemoryFile(folder, file) ? undefined : false));
      for (const dir of autoMemoryFolders(folder, this.claudeProjects())) this.watch(dir, '*.md', () => ({ global: false }));
    }
    if (this.folders().length) this.watch(path.join(os.homedir(), '.claude'), 'CLAUDE.md', () => ({ global: true }));
    this.readAll();
  }

  /** Every memory file of the workspace and the person's own for it, read again (at start, and into another memory folder). */
  readAll(): void {
    for (const folder of this.folders()) {
      for (const file of workspaceMemoryFiles(folder)) this.schedule(file, undefined);
      for (const { file, global } of userMemoryFiles(folder, os.homedir(), this.claudeProjects())) this.schedule(file, { global });
    }
  }

  private folders(): string[] {
    return (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file').map((f) => f.uri.fsPath);
  }

  private claudeProjects(): string {
    return readSettings().autoIngest.claudeCodeFolder;
  }

  /** Watches `glob` under `base`; `own` says whose a changed file is (false: not one to read). */
  private watch(base: string, glob: string, own: (file: string) => Own | false): void {
    const watcher = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(vscode.Uri.file(base), glob));
    const changed = (uri: vscode.Uri): void => {
      const whose = own(uri.fsPath);
      if (whose !== false) this.schedule(uri.fsPath, whose);
    };
    watcher.onDidCreate(changed);
    watcher.onDidChange(changed);
    watcher.onDidDelete(changed);
    this.watchers.push(watcher);
  }

  private schedule(file: string, own: Own, importer?: string): void {
    clearTimeout(this.timers.get(file));
    this.timers.set(
      file,
      setTimeout(() => {
        this.timers.delete(file);
        this.queue = this.queue.then(() => this.read(file, own, importer));
      }, SETTLE_MS),
    );
  }

  /** Watches what `importer` imports now (and no longer what it imported before). */
  private watchImports(importer: string, own: Own, files: string[]): void {
    for (const w of this.importWatchers.get(importer) ?? []) w.dispose();
    const watchers = files.map((file) => {
      const w = vscode.workspace.createFileSystemWatcher(
        new vscode.RelativePattern(vscode.Uri.file(path.dirname(file)), path.basename(file)),
      );
      const changed = (): void => this.schedule(file, own, importer);
      w.onDidCreate(changed);
      w.onDidChange(changed);
      w.onDidDelete(changed);
      return w;
    });
    if (watchers.length) this.importWatchers.set(importer, watchers);
    else this.importWatchers.delete(importer);
  }

  private async read(file: string, own: Own, importer?: string): Promise<void> {
    if (this.disposed) return;
    try {
      const r = await sendMemoryFile(file, this.ctx.human, own, importer);
      if (!r) return;
      if (!importer)
        this.watchImports(
          file,
          own,
          (r.imports ?? []).map((i) => i.file),
        );
      if ([r, ...(r.imports ?? [])].some((x) => x.added || x.ended)) this.ctx.memoryChanged();
      if ([r, ...(r.imports ?? [])].some((x) => x.added)) this.itemsAdded();
      const wrong = r.rejected ? `, ${r.rejected} marked wrong (left out)` : '';
      this.ctx.log.info(
        `memory file ${file} (${r.label}${own ? ', yours' : ''}): ${r.items} item(s), ${r.added} new, ${r.ended} ended${wrong}`,
      );
      for (const i of r.imports ?? []) this.ctx.log.info(`  imported ${i.file}: ${i.items} item(s), ${i.added} new, ${i.ended} ended`);
      for (const u of r.unread ?? []) this.ctx.log.warn(`  imported ${u.file} not read: ${u.error}`);
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
    for (const ws of this.importWatchers.values()) for (const w of ws) w.dispose();
    this.importWatchers.clear();
  }
}
