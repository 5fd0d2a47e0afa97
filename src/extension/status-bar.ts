/**
 * The status-bar item: how big the memory is and whether its service runs. It only asks a
 * service it is already connected to; it never starts one by itself.
 */
import * as vscode from 'vscode';
import type { ServiceStatus } from '../service/rpc/protocol.js';
import { renderBacklog } from '../tools/render.js';
import type { RecallExtension } from './ctx.js';
import type { HttpTransport } from './chat/http.js';
import { COMMANDS, CONTEXT } from './common/ids.js';
import { codeSpan, escapeMarkdown } from './common/markdown.js';

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 ** 2) return `${(n / 1024).toFixed(0)} KB`;
  if (n < 1024 ** 3) return `${(n / 1024 ** 2).toFixed(1)} MB`;
  return `${(n / 1024 ** 3).toFixed(2)} GB`;
}

export class StatusBar implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem('recall.status', vscode.StatusBarAlignment.Right, 100);
  private status?: ServiceStatus;
  private pollTimer?: NodeJS.Timeout;
  private error?: string;
  private updating = false;
  private again = false;

  constructor(
    private readonly ctx: RecallExtension,
    private readonly http: HttpTransport,
  ) {
    this.item.name = 'Recall';
    this.item.command = COMMANDS.showStatus;
    this.render();
    this.item.show();
  }

  /** Re-reads the counts if connected; re-renders either way. */
  async update(): Promise<void> {
    if (this.updating) {
      this.again = true;
      return;
    }
    this.updating = true;
    try {
      if (this.ctx.human.connected) {
        this.status = await this.ctx.human.call('status', {});
        this.error = undefined;
        void vscode.commands.executeCommand('setContext', CONTEXT.empty, this.status.episodes + this.status.entities === 0);
      }
    } catch (err) {
      this.error = (err as Error).message;
    } finally {
      this.updating = false;
      this.render();
      if (this.again) {
        this.again = false;
        void this.update();
      }
    }
  }

  private render(): void {
    const state = this.ctx.state;
    const s = this.status;
    const size = s ? formatBytes(s.journal_bytes + s.snapshot_bytes) : undefined;
    if (state === 'error') {
      this.item.text = '$(warning) Recall';
      this.item.backgroundColor = new vscode.ThemeColor('statusBarItem.warningBackground');
    } else if (state === 'connecting') {
      this.item.text = '$(sync~spin) Recall';
      this.item.backgroundColor = undefined;
    } else if (s && state === 'connected' && /^(downloading|loading)/.test(s.embedder)) {
      // A model download is the one slow thing the service does on its own: show it as it goes.
      this.item.text = `$(cloud-download) Recall: ${s.embedder.replace(/^downloading /, 'downloading model ')}`;
      this.item.backgroundColor = undefined;
      clearTimeout(this.pollTimer);
      this.pollTimer = setTimeout(() => void this.update(), 1000);
    } else if (s && state === 'connected') {
      // Rows of the team's log refused here are a warning: someone wrote what this memory would not take.
      const refused = s.sync?.quarantined ? ` · $(shield) ${s.sync.quarantined} refused` : '';
      this.item.text = `$(database) Recall: ${s.episodes} episode${s.episodes === 1 ? '' : 's'}, ${size}${s.sync?.backlog ? ` · $(cloud-upload) ${s.sync.backlog}` : ''}${refused}`;
      this.item.backgroundColor = refused ? new vscode.ThemeColor('statusBarItem.warningBackground') : undefined;
    } else {
      this.item.text = '$(database) Recall';
      this.item.backgroundColor = undefined;
    }
    const md = new vscode.MarkdownString();
    md.appendMarkdown(`**Recall memory** — ${codeSpan(this.ctx.memory)}\n\n`);
    const service: Record<string, string> = {
      idle: 'not started (it starts when the Recall view or a tool needs it)',
      connecting: 'starting…',
      connected: s ? `running (pid ${s.service_pid}, ${s.clients} client${s.clients === 1 ? '' : 's'})` : 'running',
      disconnected: 'connection lost, reconnecting…',
      error: `unreachable${this.error ? `: ${escapeMarkdown(this.error)}` : ''} — see the Recall log`,
    };
    md.appendMarkdown(`Service: ${service[state]}\n\n`);
    if (s) {
      md.appendMarkdown(
        `${s.episodes} episodes · ${s.entities} entities · ${s.current_relationships} current facts (${s.relationships} in all)\n\n`,
      );
      md.appendMarkdown(`Size on disk: ${size} · last write ${s.last_write ? s.last_write.slice(0, 16).replace('T', ' ') : 'never'}\n\n`);
      if (s.sync)
        md.appendMarkdown(
          `Team sync: ${s.sync.connected ? 'connected' : `not connected${s.sync.last_error ? ` (${escapeMarkdown(s.sync.last_error)})` : ''}`} · ${s.sync.backlog} to push, ${s.sync.behind} to pull\n\n`,
        );
      const latest = s.sync?.last_quarantined;
      if (s.sync?.quarantined && latest)
        md.appendMarkdown(
          `Refused from the team's log: ${s.sync.quarantined} row(s); latest row ${latest.row} from ${escapeMarkdown(latest.author ?? 'no author')}: ${escapeMarkdown(latest.reason)} (\`recall sync quarantine\` lists them)\n\n`,
        );
      md.appendMarkdown(
        s.embedder.startsWith('ready')
          ? `Embeddings: ${s.embedder.slice('ready: '.length)} · ${s.vectors} vectors, ${renderBacklog(s)} · search ${s.vector_search} · runtime ${s.embedding_backend}\n\n`
          : `Embeddings: ${s.embedder}\n\n`,
      );
    }
    if (this.http.url) md.appendMarkdown(`MCP over HTTP: ${this.http.url}\n\n`);
    md.appendMarkdown('Click for details.');
    this.item.tooltip = md;
  }

  dispose(): void {
    clearTimeout(this.pollTimer);
    this.item.dispose();
  }
}
