/**
 * Import Conversations…: transcripts on disk (JSONL, markdown, LoCoMo JSON) parsed here by the
 * same parsers as `recall ingest`, stored in batches with a cancellable progress notification.
 * Re-importing a file stores nothing twice (episodes are deduplicated by content).
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import { readTranscriptAsWritten } from '../../service/authorship.js';
import type { RecallExtension } from '../ctx.js';
import { ingestInBatches } from './common/ingest-batches.js';

export async function importConversations(ctx: RecallExtension, arg?: unknown): Promise<void> {
  const given = Array.isArray(arg) ? arg.filter((u): u is vscode.Uri => u instanceof vscode.Uri) : arg instanceof vscode.Uri ? [arg] : [];
  const uris =
    given.length > 0
      ? given
      : await vscode.window.showOpenDialog({
          title: 'Recall: Import Conversations',
          canSelectMany: true,
          openLabel: 'Import',
          filters: { Transcripts: ['jsonl', 'ndjson', 'md', 'markdown', 'txt', 'json'] },
        });
  if (!uris?.length) return;
  const remote = uris.filter((u) => u.scheme !== 'file');
  if (remote.length) {
    void vscode.window.showErrorMessage(
      `Recall can import files on this machine only; ${remote.map((u) => u.toString()).join(', ')} is not.`,
    );
    return;
  }
  const totals = { files: 0, turns: 0, added: 0, skipped: 0 };
  const failures: string[] = [];
  await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: 'Recall: importing conversations', cancellable: true },
    async (progress, token) => {
      const share = 100 / uris.length;
      for (const uri of uris) {
        if (token.isCancellationRequested) break;
        const name = path.basename(uri.fsPath);
        try {
          progress.report({ message: `reading ${name}` });
          // A file others committed holds their words, not the person's (service/authorship.ts).
          const parsed = await readTranscriptAsWritten(uri.fsPath);
          const n = parsed.episodes.length;
          const r = await ingestInBatches(ctx.human, parsed.episodes, {
            isCancelled: () => token.isCancellationRequested,
            onBatch: (done, size) => progress.report({ message: `${name}: ${done}/${n} turns`, increment: (share * size) / n }),
          });
          totals.added += r.added;
          totals.skipped += r.skipped;
          totals.files++;
          totals.turns += n;
          ctx.log.info(
            `imported ${uri.fsPath}: ${parsed.format}, ${n} turns${parsed.skipped ? `, ${parsed.skipped} non-turn line(s) skipped` : ''}`,
          );
        } catch (err) {
          failures.push(`${name}: ${(err as Error).message}`);
          ctx.log.error(`import of ${uri.fsPath} failed: ${(err as Error).message}`);
        }
      }
    },
  );
  ctx.memoryChanged(0);
  const summary = `Imported ${totals.turns} turn(s) from ${totals.files} file(s): ${totals.added} new, ${totals.skipped} already there.`;
  if (failures.length)
    void vscode.window
      .showWarningMessage(`${summary} ${failures.length} file(s) failed: ${failures.join('; ')}`, 'Show Log')
      .then((a) => a && ctx.log.show());
  else void vscode.window.showInformationMessage(summary);
}
