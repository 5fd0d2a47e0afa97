/**
 * "Recall: Show Graph": a webview panel drawing an entity's neighbourhood, expanded node by node
 * (graph.neighbourhood, bounded per expansion), so even a large memory is only ever drawn a
 * neighbourhood at a time. The page (graph-html.ts) runs the bundled dist/graph-view.js; it asks
 * for expansions, reveals and searches, and corrections go through the same human-authority
 * commands as the palette (corrections.ts). After any write the drawn neighbourhoods are fetched again.
 */
import * as vscode from 'vscode';
import { MemoryError } from '../../core/model/errors.js';
import { LIMITS } from '../../core/model/limits.js';
import { confirmFact, markWrong } from '../views/corrections.js';
import type { RecallExtension } from '../ctx.js';
import type { EntitiesTree } from '../views/entities.js';
import type { Neighbourhood, ToExtension, ToWebview } from './common/graph-messages.js';
import { graphPage } from './common/graph-html.js';
import { pickEntity } from '../views/pickers.js';

/** Expanded entities a refresh fetches again, at most (the oldest drop out of the refresh). */
const MAX_REFRESHED = 40;

export class GraphView implements vscode.Disposable {
  private panel?: vscode.WebviewPanel;
  private ready = false;
  private pending: ToWebview[] = [];
  /** Entities expanded, in order: what a refresh draws again. */
  private expanded: string[] = [];
  private readonly subscriptions: vscode.Disposable[] = [];

  constructor(
    private readonly ctx: RecallExtension,
    private readonly entities: EntitiesTree,
  ) {
    this.subscriptions.push(ctx.onDidChangeMemory(() => void this.refresh()));
  }

  /** Opens (or brings forward) the panel on an entity: a tree item, a name, or one picked. */
  async show(arg?: unknown): Promise<void> {
    const given = entityName(arg);
    const name = given ?? (await pickEntity(this.ctx, 'Recall: Show Graph'))?.name;
    if (!name) return;
    const data = await this.ctx.human.call('graph.neighbourhood', { entity: name });
    this.open(data.center);
    this.remember(data.center);
    this.send({ type: 'neighbourhood', data, focus: true });
  }

  private open(title: string): void {
    if (this.panel) {
      this.panel.title = `Recall Graph: ${title}`;
      this.panel.reveal(undefined, false);
      return;
    }
    const root = this.ctx.extension.extensionUri;
    const dist = vscode.Uri.joinPath(root, 'dist');
    const media = vscode.Uri.joinPath(root, 'media', 'graph');
    const panel = vscode.window.createWebviewPanel('recall.graph', `Recall Graph: ${title}`, vscode.ViewColumn.Active, {
      enableScripts: true,
      localResourceRoots: [dist, media],
    });
    panel.iconPath = vscode.Uri.joinPath(root, 'media', 'recall.svg');
    const web = panel.webview;
    web.html = graphPage(
      {
        cspSource: web.cspSource,
        script: web.asWebviewUri(vscode.Uri.joinPath(dist, 'graph-view.js')).toString(),
        style: web.asWebviewUri(vscode.Uri.joinPath(media, 'graph.css')).toString(),
      },
      'Recall Graph',
    );
    this.panel = panel;
    this.ready = false;
    web.onDidReceiveMessage((m: ToExtension) => void this.receive(m));
    panel.onDidDispose(() => {
      this.panel = undefined;
      this.expanded = [];
      this.pending = [];
    });
  }

  private async receive(m: ToExtension): Promise<void> {
    try {
      switch (m.type) {
        case 'ready':
          this.ready = true;
          for (const p of this.pending.splice(0)) void this.panel?.webview.postMessage(p);
          return;
        case 'expand': {
          const data = await this.ctx.human.call('graph.neighbourhood', { entity: m.entity });
          this.remember(data.center);
          this.send({ type: 'neighbourhood', data, focus: true });
          return;
        }
        case 'reveal': {
          const [entity] = await this.ctx.human.call('search', { query: m.entity, limit: 1 });
          if (entity) await this.entities.view.reveal(this.entities.entityNode(entity), { select: true, focus: false, expand: false });
          return;
        }
        case 'correct': {
          const fact = await this.ctx.human.call('fact', { id: m.id });
          await (m.verdict === 'wrong' ? markWrong(this.ctx, fact) : confirmFact(this.ctx, fact));
          return;
        }
        case 'search': {
          const found = await this.ctx.human.call('search', { query: m.query.slice(0, LIMITS.queryChars), limit: 20 });
          this.send({ type: 'found', query: m.query, entities: found.map((e) => ({ name: e.name, type: e.type })) });
          return;
        }
      }
    } catch (err) {
      const message = err instanceof MemoryError && err.hint ? `${err.message} ${err.hint}` : (err as Error).message;
      this.ctx.log.warn(`graph view: ${m.type}: ${message}`);
      this.send({ type: 'error', message });
    }
  }

  /** After a write: every expanded neighbourhood again (a forgotten entity drops out). */
  private async refresh(): Promise<void> {
    if (!this.panel || this.expanded.length === 0) return;
    const parts: Neighbourhood[] = [];
    for (const entity of [...this.expanded]) {
      try {
        parts.push(await this.ctx.human.call('graph.neighbourhood', { entity }));
      } catch (err) {
        if ((err as MemoryError).code !== 'not_found') throw err;
        this.expanded = this.expanded.filter((e) => e !== entity);
      }
    }
    this.send({ type: 'refreshed', parts });
  }

  private remember(entity: string): void {
    this.expanded = [...this.expanded.filter((e) => e.toLowerCase() !== entity.toLowerCase()), entity].slice(-MAX_REFRESHED);
  }

  private send(m: ToWebview): void {
    if (!this.panel) return;
    if (this.ready) void this.panel.webview.postMessage(m);
    else this.pending.push(m);
  }

  dispose(): void {
    this.panel?.dispose();
    for (const s of this.subscriptions.splice(0)) s.dispose();
  }
}

/** The entity a command was given: an Entities tree item or a name. */
function entityName(arg: unknown): string | undefined {
  if (typeof arg === 'string' && arg.trim()) return arg.trim();
  if (typeof arg === 'object' && arg !== null && (arg as { kind?: unknown }).kind === 'entity') {
    return (arg as { entity: { name: string } }).entity.name;
  }
  return undefined;
}
