/**
 * Live quick picks: results follow what a person types (debounced, stale answers dropped).
 * Search Memory, and choosing a fact or an entity for the correction commands, all use them.
 */
import * as vscode from 'vscode';
import type { EntityView, EpisodeView, FactView } from '../../core/model/views.js';
import type { RecallExtension } from '../ctx.js';
import * as present from './present.js';

export interface LiveOptions<T extends vscode.QuickPickItem> {
  title: string;
  placeholder: string;
  /** Items for a typed value ('' when nothing is typed yet). */
  fetch: (value: string) => Promise<T[]>;
  debounceMs?: number;
}

export function liveQuickPick<T extends vscode.QuickPickItem>(opts: LiveOptions<T>): Promise<T | undefined> {
  return new Promise((resolve) => {
    const qp = vscode.window.createQuickPick<T>();
    qp.title = opts.title;
    qp.placeholder = opts.placeholder;
    qp.matchOnDescription = true;
    qp.matchOnDetail = true;
    let timer: NodeJS.Timeout | undefined;
    let generation = 0;
    let done = false;
    const run = (value: string): void => {
      const mine = ++generation;
      qp.busy = true;
      opts.fetch(value.trim()).then(
        (items) => {
          if (mine !== generation || done) return;
          // alwaysShow: the service already matched them; the quick pick must not filter again.
          qp.items = items.map((i) => ({ ...i, alwaysShow: true }));
          qp.busy = false;
        },
        (err: Error) => {
          if (mine !== generation || done) return;
          qp.items = [{ label: '$(error) ' + err.message, alwaysShow: true } as T];
          qp.busy = false;
        },
      );
    };
    qp.onDidChangeValue((v) => {
      clearTimeout(timer);
      timer = setTimeout(() => run(v), opts.debounceMs ?? 150);
    });
    qp.onDidAccept(() => {
      const picked = qp.selectedItems[0];
      if (!picked || picked.kind === vscode.QuickPickItemKind.Separator || !(picked as { data?: unknown }).data) return;
      done = true;
      resolve(picked);
      qp.hide();
    });
    qp.onDidHide(() => {
      clearTimeout(timer);
      if (!done) resolve(undefined);
      done = true;
      qp.dispose();
    });
    run('');
    qp.show();
  });
}

export type SearchItem = vscode.QuickPickItem & { data: { fact: FactView } | { entity: EntityView } | { episode: EpisodeView } };

const separator = (label: string): SearchItem => ({ label, kind: vscode.QuickPickItemKind.Separator }) as SearchItem;

export function factItem(f: FactView): SearchItem & { data: { fact: FactView } } {
  return {
    label: `$(${f.status !== 'current' ? 'circle-slash' : f.pinned ? 'verified' : 'arrow-right'}) ${present.factText(f)}`,
    description: present.factDescription(f),
    detail: `${f.id} · evidence ${f.evidence.length ? f.evidence.join(', ') : 'none'}`,
    data: { fact: f },
  };
}

export function entityItem(e: EntityView): SearchItem & { data: { entity: EntityView } } {
  return {
    label: `$(symbol-class) ${e.name}`,
    description: `${e.type} · ${present.entityDescription(e)}`,
    detail: e.summary || (e.aliases.length ? `also known as ${e.aliases.join(', ')}` : undefined),
    data: { entity: e },
  };
}

export function episodeItem(e: EpisodeView): SearchItem & { data: { episode: EpisodeView } } {
  return {
    label: `$(comment) ${present.episodeLabel(e)}`,
    description: present.episodeDescription(e),
    detail: [e.session && `session ${e.session}`, e.source, e.entities.length && `mentions ${e.entities.join(', ')}`]
      .filter(Boolean)
      .join(' · '),
    data: { episode: e },
  };
}

/** Search Memory: facts, entities and episodes for the question as typed. */
export async function searchMemory(ctx: RecallExtension): Promise<SearchItem | undefined> {
  return liveQuickPick<SearchItem>({
    title: 'Recall: Search Memory',
    placeholder: 'Ask or type words: facts, entities and conversation episodes, as an agent would get them',
    fetch: async (value) => {
      if (!value) return [];
      const r = await ctx.human.call('query', { query: value, limit: 20 });
      const out: SearchItem[] = [];
      if (r.facts.length) out.push(separator('Facts'), ...r.facts.map(factItem));
      if (r.entities.length) out.push(separator('Entities'), ...r.entities.map(entityItem));
      if (r.episodes.length) out.push(separator('Episodes'), ...r.episodes.map(episodeItem));
      if (!out.length) out.push({ label: `Nothing in memory matches "${value}"`, data: undefined } as unknown as SearchItem);
      return out;
    },
  });
}

/**
 * Choose a fact by typing any of subject, predicate or object. `want` filters: current facts
 * (to mark wrong), or those a confirmation would change (not yet confirmed, or ended).
 */
export async function pickFact(ctx: RecallExtension, title: string, want: (f: FactView) => boolean): Promise<FactView | undefined> {
  const picked = await liveQuickPick<SearchItem & { data: { fact: FactView } }>({
    title,
    placeholder: 'Type a subject, predicate or object to find the fact',
    fetch: async (value) => {
      if (!value) return [];
      const found = new Map<string, FactView>();
      const r = await ctx.human.call('query', { query: value, limit: 20, history: true });
      for (const f of r.facts) found.set(f.id, f);
      const needle = value.toLowerCase();
      // Facts of the entities that match what was typed, so a predicate or a partial name works too.
      const entities = found.size < 10 ? await ctx.human.call('search', { query: value, limit: 5 }).catch(() => []) : [];
      for (const e of entities) {
        const page = await ctx.source.facts(e.name, 0, 100);
        for (const f of page.items) found.set(f.id, f);
      }
      const list = [...found.values()].filter(want);
      list.sort((a, b) => score(b, needle) - score(a, needle) || b.effective_confidence - a.effective_confidence);
      return list.slice(0, 50).map(factItem);
    },
  });
  return picked?.data.fact;
}

const score = (f: FactView, needle: string): number => (`${f.subject} ${f.predicate} ${f.object}`.toLowerCase().includes(needle) ? 1 : 0);

export async function pickEntity(ctx: RecallExtension, title: string): Promise<EntityView | undefined> {
  const picked = await liveQuickPick<SearchItem & { data: { entity: EntityView } }>({
    title,
    placeholder: 'Type a name to find the entity',
    fetch: async (value) => (value ? (await ctx.human.call('search', { query: value, limit: 20 })).map(entityItem) : []),
  });
  return picked?.data.entity;
}
