/**
 * Lazy, paged children for the trees: each list shows one page (200) and a "Load more…" row;
 * how far a person paged is remembered across refreshes, the fetched pages are not.
 */
import * as vscode from 'vscode';
import { COMMANDS } from './ids.js';
import type { Page } from './source.js';

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
