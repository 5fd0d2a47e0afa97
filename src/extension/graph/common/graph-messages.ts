/** What the graph webview and the extension say to each other (media/graph/graph-view.ts is the webview). */
import type { GraphEdge, GraphNode, Neighbourhood } from '../../../core/memory/neighbourhood.js';

export type { GraphEdge, GraphNode, Neighbourhood };

export interface Found {
  name: string;
  type: string;
}

/** Webview → extension. */
export type ToExtension =
  | { type: 'ready' }
  | { type: 'expand'; entity: string }
  | { type: 'reveal'; entity: string }
  | { type: 'correct'; id: string; verdict: 'wrong' | 'confirm' }
  | { type: 'search'; query: string };

/** Extension → webview. `replace`: a refresh after a write (drop what the memory no longer holds). */
export type ToWebview =
  | { type: 'neighbourhood'; data: Neighbourhood; focus: boolean }
  | { type: 'refreshed'; parts: Neighbourhood[] }
  | { type: 'found'; query: string; entities: Found[] }
  | { type: 'error'; message: string };
