/**
 * Every command, registered from one table keyed like `COMMANDS` (ids.ts), so a command declared
 * in package.json cannot lack a handler. Failures become one error message, with the log a click away.
 */
import * as fs from 'node:fs';
import * as vscode from 'vscode';
import { MemoryError } from '../core/model/errors.js';
import type { AutoIngest } from './ingest/auto-ingest.js';
import type { RecallExtension } from './ctx.js';
import { addFact, confirmFact, forgetEntity, markWrong, reconfirmFact } from './views/corrections.js';
import { findSaidTwice } from './views/said-twice.js';
import { sameAs } from './views/same-as.js';
import type { EntitiesTree } from './views/entities.js';
import type { EpisodeDocuments } from './views/episode-document.js';
import type { EpisodesTree } from './views/episodes.js';
import type { HttpTransport } from './chat/http.js';
import { chooseChatSources, turnOnSemanticSearch } from './first-run.js';
import type { GraphView } from './graph/graph-view.js';
import { COMMANDS, type CommandKey } from './common/ids.js';
import { importConversations } from './ingest/importer.js';
import { addInstructions } from './chat/instructions.js';
import { installHooks, removeHooks } from './chat/hooks.js';
import { editCheck } from './views/check-editor.js';
import type { MoreNode } from './views/paging.js';
import { searchMemory } from './views/pickers.js';
import { factText } from './views/present.js';
import { formatBytes, type StatusBar } from './status-bar.js';
import { explainRestricted } from './trust.js';

export interface Parts {
  entities: EntitiesTree;
  episodes: EpisodesTree;
  documents: EpisodeDocuments;
  statusBar: StatusBar;
  http: HttpTransport;
  /** Made once the workspace is trusted (trust.ts). */
  autoIngest: () => AutoIngest | undefined;
  graph: GraphView;
}

type Handler = (...args: unknown[]) => unknown;

export function registerCommands(ctx: RecallExtension, parts: Parts): void {
  const handlers: Record<CommandKey, Handler> = {
    search: () => search(ctx, parts),
    markWrong: (arg) => markWrong(ctx, arg),
    confirm: (arg) => confirmFact(ctx, arg),
    sameAs: (arg) => sameAs(ctx, arg),
    findSaidTwice: () => findSaidTwice(ctx),
    reconfirm: (arg) => reconfirmFact(ctx, arg),
    addFact: (arg) => addFact(ctx, arg),
    forgetEntity: (arg) => forgetEntity(ctx, arg),
    importConversations: (arg) => importConversations(ctx, arg),
    ingestChatSessions: () => parts.autoIngest()?.ingestNow() ?? explainRestricted('chat sessions are read'),
    showStatus: () => showStatus(ctx, parts),
    openMemoryFolder: () => openMemoryFolder(ctx),
    restartService: () => restart(ctx, parts),
    refresh: () => {
      parts.entities.refresh();
      parts.episodes.refresh();
      ctx.memoryChanged(0);
    },
    showLog: () => ctx.log.show(),
    showCurrentProjectOnly: () => projectFilter(ctx, parts, true),
    showAllProjects: () => projectFilter(ctx, parts, false),
    addInstructions: () => addInstructions(ctx),
    showGraph: (arg) => parts.graph.show(arg),
    turnOnSemanticSearch: () => turnOnSemanticSearch(ctx),
    chooseChatSources: () => chooseChatSources(ctx),
    installHooks: () => installHooks(ctx),
    removeHooks: () => removeHooks(ctx),
    editCheck: (arg) => editCheck(ctx, arg),
    loadMore: (node) => (node as MoreNode<unknown>).load(),
    openEpisode: (id) => parts.documents.open(String(id)),
  };
  for (const [key, handler] of Object.entries(handlers) as [CommandKey, Handler][]) {
    ctx.push(
      vscode.commands.registerCommand(COMMANDS[key], async (...args: unknown[]) => {
        try {
          await handler(...args);
        } catch (err) {
          report(ctx, COMMANDS[key], err);
        }
      }),
    );
  }
}

/** The views' project filter: the title bar's toggle shows the other state (context key recall.currentProjectOnly). */
async function projectFilter(ctx: RecallExtension, parts: Parts, only: boolean): Promise<void> {
  ctx.source.currentProjectOnly = only;
  await vscode.commands.executeCommand('setContext', 'recall.currentProjectOnly', only);
  parts.entities.refresh();
  parts.episodes.refresh();
}

function report(ctx: RecallExtension, command: string, err: unknown): void {
  const e = err as Error;
  ctx.log.error(`${command}: ${e.stack ?? e.message}`);
  const hint = err instanceof MemoryError && err.hint ? ` ${err.hint}` : '';
  void vscode.window.showErrorMessage(`Recall: ${e.message}${hint}`, 'Show Log').then((a) => a && ctx.log.show());
}

async function search(ctx: RecallExtension, parts: Parts): Promise<void> {
  const picked = await searchMemory(ctx);
  if (!picked) return;
  const data = picked.data;
  if ('episode' in data) return parts.documents.open(data.episode.id);
  if ('entity' in data) {
    await vscode.commands.executeCommand('recall.entities.focus');
    await parts.entities.view
      .reveal(parts.entities.entityNode(data.entity), { select: true, focus: true, expand: true })
      .then(undefined, () =>
        vscode.window.showInformationMessage(
          `"${data.entity.name}" is further down the Entities view than it has loaded; use "Load more…".`,
        ),
      );
    return;
  }
  const f = data.fact;
  const actions = [
    ...(f.status === 'current' ? ['Mark Wrong…'] : []),
    ...(!f.pinned || f.status !== 'current' ? ['Confirm'] : []),
    ...(f.status === 'current' && f.kind && !f.pinned ? ['Same As…'] : []),
    `Show "${f.subject}"`,
  ];
  const action = await vscode.window.showQuickPick(actions, { title: factText(f), placeHolder: `${f.id}: what to do with this fact?` });
  if (action === 'Mark Wrong…') return markWrong(ctx, f);
  if (action === 'Confirm') return confirmFact(ctx, f);
  if (action === 'Same As…') return sameAs(ctx, f);
  if (action) {
    const [entity] = await ctx.human.call('search', { query: f.subject, limit: 1 });
    if (entity)
      await parts.entities.view
        .reveal(parts.entities.entityNode(entity), { select: true, focus: true, expand: true })
        .then(undefined, () => undefined);
  }
}

async function showStatus(ctx: RecallExtension, parts: Parts): Promise<void> {
  const s = await vscode.window.withProgress({ location: vscode.ProgressLocation.Window, title: 'Recall: reading status' }, () =>
    ctx.human.call('status', {}),
  );
  await parts.statusBar.update();
  const detail = [
    `Folder: ${s.memory}`,
    `${s.episodes} episodes, ${s.entities} entities, ${s.current_relationships} current facts (${s.relationships} in all)`,
    `On disk: journal ${formatBytes(s.journal_bytes)}, snapshot ${formatBytes(s.snapshot_bytes)} (${s.events_since_snapshot} event(s) since)`,
    `Last write: ${s.last_write ?? 'never'}`,
    `Service: pid ${s.service_pid}, version ${s.version}, up since ${s.service_started}, ${s.clients} client(s)`,
    `MCP over HTTP: ${parts.http.url ?? 'off (setting recall.http.enabled)'}`,
    `Decay half-life ${ctx.settings.halfLifeDays} days; provenance weights external ${ctx.settings.provenanceWeights.external}, user ${ctx.settings.provenanceWeights.user}, agent ${ctx.settings.provenanceWeights.agent}`,
  ].join('\n');
  ctx.log.info(`status:\n${detail}`);
  const action = await vscode.window.showInformationMessage('Recall memory', { modal: true, detail }, 'Open Memory Folder', 'Show Log');
  if (action === 'Open Memory Folder') await openMemoryFolder(ctx);
  if (action === 'Show Log') ctx.log.show();
}

async function openMemoryFolder(ctx: RecallExtension): Promise<void> {
  fs.mkdirSync(ctx.memory, { recursive: true, mode: 0o700 });
  const uri = vscode.Uri.file(ctx.memory);
  if (vscode.env.remoteName === undefined && vscode.env.uiKind === vscode.UIKind.Desktop) {
    await vscode.commands.executeCommand('revealFileInOS', uri);
  } else {
    // No OS file manager to reveal in (remote or web): open the folder in a window of its own.
    await vscode.commands.executeCommand('vscode.openFolder', uri, { forceNewWindow: true });
  }
}

async function restart(ctx: RecallExtension, parts: Parts): Promise<void> {
  await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: 'Recall: restarting the memory service…' },
    () => ctx.restartService('asked from the command palette'),
  );
  parts.http.apply();
  parts.entities.refresh();
  parts.episodes.refresh();
  const s = await ctx.human.call('status', {});
  void vscode.window.showInformationMessage(`Recall: memory service restarted (pid ${s.service_pid}).`);
}
