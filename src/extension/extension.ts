/**
 * Activation: build the context, register every part, wire the events between them. Nothing
 * heavy happens here: no memory is opened in the extension host (the service does that), and
 * the service is only started when a view, a command or a tool first needs it.
 */
import * as vscode from 'vscode';
import { updateServiceConfig } from '../service/config-file.js';
import { affects, affectsServiceConfig, desiredServiceConfig, KEYS, SECTION } from './config.js';
import { AutoIngest } from './ingest/auto-ingest.js';
import { WorkspaceMemoryFiles } from './ingest/memory-files.js';
import { JoinOffer } from './views/said-twice.js';
import { registerSync } from './sync.js';
import { registerCommands } from './commands.js';
import { RecallExtension } from './ctx.js';
import { registerFactDecorations } from './views/decorations.js';
import { EntitiesTree } from './views/entities.js';
import { EpisodeDocuments } from './views/episode-document.js';
import { EpisodesTree } from './views/episodes.js';
import { GraphView } from './graph/graph-view.js';
import { HttpTransport } from './chat/http.js';
import { LmExtractor } from './ingest/lm-extractor.js';
import { registerLmTools } from './chat/lm-tools.js';
import { registerMcpProvider } from './chat/mcp-provider.js';
import { answerChat, registerChatParticipant } from './chat/chat-participant.js';
import { offerInstructions } from './chat/instructions.js';
import { offerHooks, repointHooks } from './chat/hooks.js';
import { noticeRemoteMemory } from './remote-notice.js';
import { StatusBar } from './status-bar.js';
import { ignoredSettingsReporter, whenTrusted } from './trust.js';

let current: RecallExtension | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  const started = Date.now();
  const ctx = new RecallExtension(context);
  current = ctx;
  context.subscriptions.push({ dispose: () => deactivate() });
  ctx.log.info(`Recall ${String(context.extension.packageJSON?.version)} activating; memory ${ctx.memory}`);
  const reportIgnored = ignoredSettingsReporter(ctx);
  reportIgnored();
  noticeRemoteMemory(ctx);

  registerMcpProvider(ctx);
  registerLmTools(ctx);
  registerChatParticipant(ctx);
  registerTestHooks(ctx);
  const http = ctx.push(new HttpTransport(ctx));
  const entities = ctx.push(new EntitiesTree(ctx));
  const episodes = ctx.push(new EpisodesTree(ctx));
  const documents = ctx.push(new EpisodeDocuments(ctx));
  const statusBar = ctx.push(new StatusBar(ctx, http));
  ctx.push(registerFactDecorations());
  const extractor = ctx.push(new LmExtractor(ctx));
  // Watches chat-session folders; the first pass runs a moment after activation, never in it.
  let autoIngest: AutoIngest | undefined;
  whenTrusted(ctx, 'storing chat sessions', () => (autoIngest = ctx.push(new AutoIngest(ctx, extractor))));
  let memoryFiles: WorkspaceMemoryFiles | undefined;
  const joinOffer = ctx.push(new JoinOffer(ctx));
  whenTrusted(ctx, 'reading its memory files', () => (memoryFiles = ctx.push(new WorkspaceMemoryFiles(ctx, () => joinOffer.itemsAdded()))));
  const graph = ctx.push(new GraphView(ctx, entities));
  registerCommands(ctx, { entities, episodes, documents, statusBar, http, autoIngest: () => autoIngest, graph });
  let configTimer: NodeJS.Timeout | undefined;
  // What config.json should say by the person's settings: a change elsewhere (a workspace's) writes and restarts nothing.
  let serviceSettings = JSON.stringify(desiredServiceConfig(ctx.settings, false));

  ctx.push(
    ctx.onDidChangeMemory(() => {
      entities.refresh();
      episodes.refresh();
      documents.refresh();
      void statusBar.update();
    }),
    ctx.human.onDidChangeState(() => void statusBar.update()),
    ctx.onDidChangeFolder(() => {
      entities.reset();
      episodes.reset();
      http.apply();
      extractor.reset();
      autoIngest?.memoryFolderChanged();
      memoryFiles?.readAll();
    }),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (!e.affectsConfiguration(SECTION)) return;
      ctx.reloadSettings();
      reportIgnored();
      if (affects(e, KEYS.httpEnabled, KEYS.httpPort)) http.apply();
      if (affects(e, 'autoIngest')) autoIngest?.apply();
      if (affects(e, KEYS.extractionLanguageModel, KEYS.extractionModelFamily)) extractor.reset();
      const wanted = JSON.stringify(desiredServiceConfig(ctx.settings, false));
      // Several edits in a row (the settings UI, a sync) make one write and one restart.
      if (affectsServiceConfig(e) && wanted !== serviceSettings) {
        serviceSettings = wanted;
        clearTimeout(configTimer);
        configTimer = setTimeout(() => void applyServiceConfig(ctx, false), 400);
      }
      void statusBar.update();
    }),
    { dispose: () => clearTimeout(configTimer) },
  );

  // Settings a person set win over config.json; a change needs the service to restart.
  await applyServiceConfig(ctx, true);
  await registerSync(ctx);
  http.apply();
  void ctx.connectIfRunning();
  // Asks (a notification, never a silent write) once; not awaited: activation does not wait on a person.
  whenTrusted(
    ctx,
    'the offer of an instructions file',
    () => void offerInstructions(ctx).catch((err: Error) => ctx.log.error(`instructions offer: ${err.message}`)),
  );
  whenTrusted(ctx, 'the offer of agent hooks', () => {
    try {
      repointHooks(ctx);
    } catch (err) {
      ctx.log.error(`agent hooks: ${(err as Error).message}`);
    }
    void offerHooks(ctx).catch((err: Error) => ctx.log.error(`hooks offer: ${err.message}`));
  });
  ctx.log.info(`activated in ${Date.now() - started} ms`);
}

async function applyServiceConfig(ctx: RecallExtension, explicitOnly: boolean): Promise<void> {
  let changed: boolean;
  try {
    changed = updateServiceConfig(ctx.memory, desiredServiceConfig(ctx.settings, explicitOnly));
  } catch (err) {
    ctx.log.error((err as Error).message);
    void vscode.window.showErrorMessage(`Recall: ${(err as Error).message}`);
    return;
  }
  if (!changed) return;
  ctx.log.info(`settings written to ${ctx.memory}/config.json`);
  const { runningServicePid } = await import('../service/rpc/launch.js');
  if (runningServicePid(ctx.memory) === undefined) return; // the next start reads it
  await vscode.window
    .withProgress(
      { location: vscode.ProgressLocation.Notification, title: 'Recall: applying settings (restarting the memory service)…' },
      () => ctx.restartService('settings changed'),
    )
    .then(undefined, (err: Error) => ctx.log.error(`restart after a settings change failed: ${err.message}`));
}

/**
 * For the e2e only (RECALL_E2E_HOOKS=1): code-server without Copilot cannot send a chat request, so
 * `recall._test.chat` runs the @recall handler with a recording stream and writes what it streamed.
 */
function registerTestHooks(ctx: RecallExtension): void {
  if (process.env.RECALL_E2E_HOOKS !== '1') return;
  ctx.push(
    vscode.commands.registerCommand('recall._test.chat', async (req: { prompt: string; command?: string; out: string }) => {
      const streamed: { markdown: string[]; buttons: vscode.Command[] } = { markdown: [], buttons: [] };
      const result = await answerChat(
        ctx,
        { prompt: req.prompt, command: req.command },
        {
          markdown: (v) => void streamed.markdown.push(typeof v === 'string' ? v : v.value),
          button: (c) => void streamed.buttons.push(c),
          progress: () => {},
        },
      );
      const { writeFileSync } = await import('node:fs');
      writeFileSync(req.out, JSON.stringify({ ...streamed, result }, null, 2));
    }),
  );
}

export function deactivate(): void {
  const ctx = current;
  current = undefined;
  ctx?.dispose();
}
