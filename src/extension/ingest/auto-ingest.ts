/**
 * Chat sessions become memory as they happen, from the sources of chat-sources.ts, each behind its
 * `recall.autoIngest.*` setting: on by default for this workspace's own (Copilot Chat, SpecStory),
 * off for those that cover every project on the machine (Claude Code, Cline, Roo Code, Codex).
 * Each source is a folder watched for writes; once writing settles, the files that changed since
 * they were last stored are parsed (the same parsers as `recall ingest`) and their new turns stored
 * through the person's connection, each turn with its speaker's authority (user / agent), the
 * person's turns of a file others committed as theirs (external; service/authorship.ts).
 *
 * Nothing here interrupts anyone: work starts a moment after activation, a failing file is logged
 * and skipped, and an unreachable service stops the pass until the next change. "Recall: Ingest
 * Chat Sessions Now" re-reads every file of the sources with a cancellable progress notification.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import { MemoryError } from '../../core/model/errors.js';
import type { EpisodeInput } from '../../core/model/events.js';
import { readTranscriptAsWritten } from '../../service/authorship.js';
import { chatSource, SOURCE_KEYS, transcriptProject, WORKSPACE_SOURCES, type Source, type SourceKey } from './chat-sources.js';
import type { RecallExtension } from '../ctx.js';
import { FolderWatcher } from './folder-watcher.js';
import { ingestInBatches } from './common/ingest-batches.js';
import type { LmExtractor } from './lm-extractor.js';
import { listTranscripts, SeenFiles, SentTurns } from './common/transcript-files.js';

interface Totals {
  files: number;
  turns: number;
  added: number;
  skipped: number;
  failed: string[];
}

interface PassOptions {
  /** Re-read every file, changed or not (the command). */
  force: boolean;
  /** A person asked: VS Code may ask them whether the extractor may use a model. */
  interactive: boolean;
  isCancelled: () => boolean;
  onFile?: (file: string) => void;
}

export class AutoIngest implements vscode.Disposable {
  private readonly watchers = new Map<SourceKey, FolderWatcher>();
  private readonly sent = new SentTurns();
  /** Passes never overlap: the command waits for an automatic pass and the other way round. */
  private lock: Promise<unknown> = Promise.resolve();
  private readonly queued = new Set<SourceKey>();
  private disposed = false;

  constructor(
    private readonly ctx: RecallExtension,
    private readonly extractor: LmExtractor,
  ) {
    this.apply();
  }

  /** Starts and stops watching as the settings say; called at activation and when they change. */
  apply(): void {
    for (const key of SOURCE_KEYS) {
      const source = this.enabled(key) ? chatSource(this.ctx, key) : undefined;
      const current = this.watchers.get(key);
      if (current && current.folder === source?.watch.folder) continue;
      current?.dispose();
      this.watchers.delete(key);
      if (current) this.ctx.log.info(`auto-ingest: stopped watching ${current.folder}`);
      if (!source) continue;
      const watcher = new FolderWatcher(source.watch.folder, source.watch.glob, () => this.trigger(key));
      this.watchers.set(key, watcher);
      this.ctx.log.info(
        watcher.watching
          ? `auto-ingest: ${source.label} sessions from ${source.folder} (watching ${path.join(source.watch.folder, source.watch.glob)})`
          : `auto-ingest: ${source.watch.folder} does not exist yet; ${source.label} sessions are read once it does (looked for every 30 s)`,
      );
    }
  }

  /** Another memory folder: every session is new to it. */
  memoryFolderChanged(): void {
    this.sent.clear();
    for (const key of this.watchers.keys()) this.trigger(key);
  }

  /** "Recall: Ingest Chat Sessions Now": every file of this workspace's sessions, and of the other sources that are on. */
  async ingestNow(): Promise<void> {
    const sources = SOURCE_KEYS.filter((k) => WORKSPACE_SOURCES.includes(k) || this.enabled(k))
      .map((k) => chatSource(this.ctx, k))
      .filter((s): s is Source => s !== undefined);
    if (sources.length === 0) {
      void vscode.window.showInformationMessage(
        'Recall: no chat sessions to read. Copilot Chat and SpecStory keep their sessions per workspace (open a folder); Claude Code, Cline, Roo Code and Codex sessions are read when their recall.autoIngest.* setting is on.',
      );
      return;
    }
    let cancelled = false;
    const totals = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: 'Recall: ingesting chat sessions', cancellable: true },
      (progress, token) =>
        this.exclusive(async () => {
          const all = emptyTotals();
          const perSource: string[] = [];
          for (const source of sources) {
            const t = await this.pass(source, {
              force: true,
              interactive: true,
              isCancelled: () => (cancelled ||= token.isCancellationRequested || this.disposed),
              onFile: (file) => progress.report({ message: `${source.label}: ${path.basename(file)}` }),
            });
            addTotals(all, t);
            perSource.push(`${source.label} ${t.files}`);
          }
          return { ...all, perSource };
        }),
    );
    const summary = `Recall: ${cancelled ? 'stopped; so far ' : ''}${totals.turns} turn(s) from ${totals.files} chat session file(s) (${totals.perSource.join(', ')}): ${totals.added} new, ${totals.skipped} already there.`;
    this.ctx.log.info(summary);
    if (totals.failed.length) {
      void vscode.window
        .showWarningMessage(`${summary} ${totals.failed.length} file(s) could not be read: ${totals.failed.join('; ')}`, 'Show Log')
        .then((a) => a && this.ctx.log.show());
    } else void vscode.window.showInformationMessage(summary);
  }

  dispose(): void {
    this.disposed = true;
    for (const w of this.watchers.values()) w.dispose();
    this.watchers.clear();
  }

  private enabled(key: SourceKey): boolean {
    return this.ctx.settings.autoIngest[key];
  }

  /** An automatic pass over one source; a pass already waiting for that source covers this trigger too. */
  private trigger(key: SourceKey): void {
    if (this.queued.has(key)) return;
    this.queued.add(key);
    void this.exclusive(async () => {
      this.queued.delete(key);
      const source = this.enabled(key) ? chatSource(this.ctx, key) : undefined;
      if (!source || this.disposed) return;
      try {
        const t = await this.pass(source, { force: false, interactive: false, isCancelled: () => this.disposed || !this.enabled(key) });
        if (t.files > 1)
          this.ctx.log.info(
            `auto-ingest: ${source.label}: ${t.files} changed file(s), ${t.turns} turn(s): ${t.added} new, ${t.skipped} already there`,
          );
      } catch (err) {
        this.ctx.log.warn(`auto-ingest: ${source.label} sessions not stored (${(err as Error).message}); trying again at the next change`);
      }
    });
  }

  private exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.lock.then(fn);
    this.lock = run.catch(() => undefined);
    return run;
  }

  /**
   * Stores the new turns of the source's changed files (every file when forced). A file that
   * cannot be parsed, or whose turns the service refuses, is logged and skipped; a service that
   * cannot be reached ends the pass (the error is thrown: every other file would fail alike).
   */
  private async pass(source: Source, opts: PassOptions): Promise<Totals> {
    const totals = emptyTotals();
    const files = await listTranscripts(source.folder, source);
    // Stamps are per memory folder: a different memory has stored none of these files.
    const seen = new SeenFiles(source.state, `recall.autoIngest.${source.key}:${this.ctx.memory}`);
    await seen.prune(files);
    for (const { file, stamp } of opts.force ? files : seen.changed(files)) {
      if (opts.isCancelled()) break;
      opts.onFile?.(file);
      let episodes: EpisodeInput[];
      try {
        // A session file others committed (a SpecStory history in the repository) is their words, not the person's.
        const read = await readTranscriptAsWritten(file, { allowEmpty: true });
        if (read.written.authority !== 'user' && read.episodes.length)
          this.ctx.log.info(`auto-ingest: ${file}: not your words (${read.written.reason}); stored as theirs (external)`);
        const project = transcriptProject(source.key, read.cwd);
        episodes = project === undefined ? read.episodes : read.episodes.map((e) => ({ ...e, project: e.project ?? project }));
      } catch (err) {
        this.skip(totals, file, err);
        await seen.record(file, stamp); // read again when it changes, not at every pass
        continue;
      }
      const toSend = opts.force ? episodes : this.sent.unsent(file, episodes);
      let r;
      try {
        r = await ingestInBatches(this.ctx.human, toSend, { isCancelled: opts.isCancelled });
      } catch (err) {
        if (!(err instanceof MemoryError && err.code === 'invalid_input')) throw err;
        this.skip(totals, file, err);
        await seen.record(file, stamp);
        continue;
      }
      if (!r.complete) break; // cancelled between batches: the file is read again next time
      this.sent.remember(file, toSend);
      await seen.record(file, stamp);
      addTotals(totals, { files: 1, turns: episodes.length, added: r.added, skipped: episodes.length - r.added, failed: [] });
      if (r.added) this.ctx.log.info(`auto-ingest: ${file}: ${r.added} new turn(s) of ${episodes.length}`);
      this.extractor.add(r.fresh, { interactive: opts.interactive });
    }
    return totals;
  }

  private skip(totals: Totals, file: string, err: unknown): void {
    totals.failed.push(`${path.basename(file)}: ${(err as Error).message}`);
    this.ctx.log.warn(`auto-ingest: ${file} skipped: ${(err as Error).message}`);
  }
}

const emptyTotals = (): Totals => ({ files: 0, turns: 0, added: 0, skipped: 0, failed: [] });

function addTotals(into: Totals, t: Totals): void {
  into.files += t.files;
  into.turns += t.turns;
  into.added += t.added;
  into.skipped += t.skipped;
  into.failed.push(...t.failed);
}
