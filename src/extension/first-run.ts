/**
 * The first-run steps the walkthrough (package.json `walkthroughs`, media/walkthrough/) links to:
 * turning on semantic search (it says what is downloaded, asks, then shows the model loading) and
 * choosing which chat sources auto-ingest reads. Without consent nothing is downloaded, and keyword
 * and graph search work as before.
 */
import * as vscode from 'vscode';
import { chatSource, SOURCE_KEYS, type SourceKey } from './ingest/chat-sources.js';
import type { RecallExtension } from './ctx.js';
import { SETTINGS, SETTINGS_SECTION } from './common/ids.js';

/** How long the model may take to load (a first download on a slow line) before we stop watching. */
const MODEL_WAIT_MS = 10 * 60_000;

export async function turnOnSemanticSearch(ctx: RecallExtension): Promise<boolean> {
  const config = vscode.workspace.getConfiguration(SETTINGS_SECTION);
  const local = ctx.settings.embeddings.modelPath.trim();
  const detail = local
    ? `Recall will load the embedding model from ${local}; nothing is downloaded. Episodes, entities and facts are embedded on this machine by the memory service.`
    : 'Recall will download the embedding model (all-MiniLM-L6-v2, about 23 MB) once from Hugging Face into its cache, then embed episodes, entities and facts on this machine. Nothing you store is sent anywhere. Without it, keyword and graph search keep working.';
  const answer = await vscode.window.showInformationMessage(
    'Turn on semantic search?',
    { modal: true, detail },
    local ? 'Turn On' : 'Download and Turn On',
  );
  if (!answer) return false;
  if (!local) await config.update(SETTINGS.embeddingsAllowDownload, true, vscode.ConfigurationTarget.Global);
  await config.update(SETTINGS.embeddingsEnabled, true, vscode.ConfigurationTarget.Global);
  // The settings change restarts the service (extension.ts); then the model loads in its worker.
  const outcome = await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: 'Recall: semantic search', cancellable: true },
    async (progress, cancel) => {
      progress.report({ message: local ? 'loading the model…' : 'downloading and loading the model (~23 MB)…' });
      const until = Date.now() + MODEL_WAIT_MS;
      let seenOff = true;
      while (!cancel.isCancellationRequested && Date.now() < until) {
        await new Promise((r) => setTimeout(r, 1000));
        const s = await ctx.human.call('status', {}).catch(() => undefined);
        if (!s) continue;
        // The old service may still answer "disabled" until the restart: wait for a newer state.
        if (s.embedder.startsWith('disabled')) continue;
        seenOff = false;
        if (s.embedder.startsWith('ready')) return { ok: true, text: `ready; ${s.embedding_pending} item(s) still to embed` };
        if (s.embedder.startsWith('unavailable')) return { ok: false, text: s.embedder };
        progress.report({ message: s.embedder });
      }
      return { ok: false, text: seenOff ? 'the service has not picked the setting up yet' : 'still loading; see Recall: Show Status' };
    },
  );
  ctx.log.info(`semantic search turned on: ${outcome.text}`);
  if (outcome.ok) void vscode.window.showInformationMessage(`Recall: semantic search is on (${outcome.text}).`);
  else void vscode.window.showWarningMessage(`Recall: semantic search is turned on, but the model is not ready: ${outcome.text}`);
  return outcome.ok;
}

export async function chooseChatSources(ctx: RecallExtension): Promise<void> {
  const settingOf = (key: SourceKey): string => `autoIngest.${key}`;
  const config = vscode.workspace.getConfiguration(SETTINGS_SECTION);
  const items = SOURCE_KEYS.map((key) => {
    const source = chatSource(ctx, key);
    return {
      key,
      label: source?.label ?? key,
      detail: source ? source.folder : 'not available in this window',
      // What is in effect: the person's setting, or off where this workspace turned it off.
      picked: ctx.settings.autoIngest[key],
    };
  });
  const picked = await vscode.window.showQuickPick(items, {
    title: 'Recall: which chat sessions should Recall read?',
    placeHolder: 'Checked sources are read as they change (their settings: recall.autoIngest.*)',
    canPickMany: true,
    ignoreFocusOut: true,
  });
  if (!picked) return;
  const on = new Set(picked.map((p) => p.key));
  for (const item of items) {
    if (item.picked !== on.has(item.key)) await config.update(settingOf(item.key), on.has(item.key), vscode.ConfigurationTarget.Global);
  }
  ctx.log.info(`chat sources read: ${[...on].join(', ') || 'none'}`);
  void vscode.window.showInformationMessage(`Recall reads: ${picked.map((p) => p.label).join(', ') || 'no chat sources'}.`);
}
