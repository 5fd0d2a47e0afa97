/**
 * Lazy, paged children for the trees: each list shows one page (200) and a "Load more…" row;
 * how far a person paged is remembered across refreshes, the fetched pages are not.
 */
import * as vscode from 'vscode';
import type { RecallExtension } from '../ctx.js';
import { COMMANDS } from '../common/ids.js';
import type { Page } from './common/source.js';

export const PAGE = 200;
const FETCH_MAX = 500;

interface Loaded<T> {
  total: number;
  items: T[];
}

export class Pager {
  private readonly shown = new Map<string, number>();
  private cache = new Map<string, Loaded<unknown>>();

  /** Drops fetched pages (the memory changed); how far each list was paged stays. */
  clear(): void {
    this.cache = new Map();
  }

  /** Forgets paging too (another memory folder). */
  reset(): void {
    this.cache = new Map();
    this.shown.clear();
  }

  more(key: string): void {
    this.shown.set(key, (this.shown.get(key) ?? PAGE) + PAGE);
  }

  /** The first `shown` items of the list `key` (fetching only what is not cached yet) and its total. */
  async list<T>(key: string, fetch: (offset: number, limit: number) => Promise<Page<T>>): Promise<Loaded<T>> {
    const want = this.shown.get(key) ?? PAGE;
    const cached = this.cache.get(key) as Loaded<T> | undefined;
    let loaded: Loaded<T> = cached ?? { total: Number.POSITIVE_INFINITY, items: [] };
    while (loaded.items.length < want && loaded.items.length < loaded.total) {
      const page = await fetch(loaded.items.length, Math.min(FETCH_MAX, want - loaded.items.length));
      loaded = { total: page.total, items: [...loaded.items, ...page.items] };
      if (page.items.length === 0) break;
    }
    if (!Number.isFinite(loaded.total)) loaded.total = loaded.items.length;
    this.cache.set(key, loaded);
    return { total: loaded.total, items: loaded.items.slice(0, want) };
  }
}

/** The "Load more…" row at the end of a long list; `load` pages on and refreshes its parent. */
export interface MoreNode<P> {
  kind: 'more';
  key: string;
  shown: number;
  total: number;
  parent?: P;
  load: () => void;
}

/** Appends a "Load more…" row when the list has more than it shows. */
export function withMore<N, P>(nodes: N[], total: number, key: string, parent: P | undefined, load: () => void): (N | MoreNode<P>)[] {
  if (total <= nodes.length) return nodes;
  return [...nodes, { kind: 'more', key: `${key}/more`, shown: nodes.length, total, parent, load }];
}

export function moreItem(node: MoreNode<unknown>): vscode.TreeItem {
  const item = new vscode.TreeItem('Load more…', vscode.TreeItemCollapsibleState.None);
  item.id = node.key;
  item.description = `${node.shown} of ${node.total} shown`;
  item.iconPath = new vscode.ThemeIcon('ellipsis');
  item.tooltip = `Show ${PAGE} more`;
  item.command = { command: COMMANDS.loadMore, title: 'Load More', arguments: [node] };
  return item;
}

/** A row that says something instead of listing (an error loading a list). */
export interface MessageNode<P> {
  kind: 'message';
  key: string;
  text: string;
  parent?: P;
}

export function messageItem(node: MessageNode<unknown>): vscode.TreeItem {
  const item = new vscode.TreeItem(node.text, vscode.TreeItemCollapsibleState.None);
  item.id = node.key;
  item.iconPath = new vscode.ThemeIcon('info');
  return item;
}

/**
 * What the Entities and Episodes trees share: the view, change events, paging, parents, and
 * turning a failed load into a message row (the root shows the welcome view instead).
 */
export abstract class PagedTree<N extends { key: string; parent?: N }> implements vscode.TreeDataProvider<N>, vscode.Disposable {
  private readonly emitter = new vscode.EventEmitter<N | undefined>();
  readonly onDidChangeTreeData = this.emitter.event;
  readonly view: vscode.TreeView<N>;
  protected readonly pager = new Pager();

  constructor(
    viewId: string,
    private readonly label: string,
    protected readonly ctx: RecallExtension,
  ) {
    this.view = vscode.window.createTreeView(viewId, { treeDataProvider: this, showCollapseAll: true });
  }

  /** The memory changed: fetch again, keeping how far each list was paged. */
  refresh(): void {
    this.pager.clear();
    this.emitter.fire(undefined);
  }

  /** Another memory folder: start over. */
  reset(): void {
    this.pager.reset();
    this.emitter.fire(undefined);
  }

  dispose(): void {
    this.view.dispose();
    this.emitter.dispose();
  }

  getParent(node: N): N | undefined {
    return node.parent;
  }

  async getChildren(node?: N): Promise<N[]> {
    try {
      return await this.children(node);
    } catch (err) {
      this.ctx.log.error(`${this.label} view: ${(err as Error).message}`);
      if (!node) return []; // the welcome view explains (state "error")
      const message: MessageNode<N> = {
        kind: 'message',
        key: `${node.key}/error`,
        text: `Could not load: ${(err as Error).message}`,
        parent: node,
      };
      return [message as unknown as N];
    }
  }

  abstract getTreeItem(node: N): vscode.TreeItem;

  protected abstract children(node?: N): Promise<N[]>;

  /** The "Load more…" action of a list: one page more, then its parent refreshes. */
  protected more(list: string, parent: N | undefined): () => void {
    return () => {
      this.pager.more(list);
      this.emitter.fire(parent);
    };
  }
}
