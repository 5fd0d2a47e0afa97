/**
 * Same As…: a person says a knowledge item says what another says (core/memory/same-as.ts). The
 * item comes from its tree row or a picker; the one to keep is picked among the current items of
 * its project and family, those that share most of its words first.
 */
import * as vscode from 'vscode';
import { sameFamily } from '../../core/model/knowledge.js';
import type { FactView } from '../../core/model/views.js';
import type { RecallExtension } from '../ctx.js';
import { resolveFact } from './corrections.js';
import { factItem } from './pickers.js';
import { factText } from './present.js';

const TITLE = 'Recall: Same As…';
/** Items offered to keep: those of the item's project that a query on its words finds. */
const OFFERED = 30;

const isCurrentItem = (f: FactView): boolean => f.kind !== undefined && f.status === 'current';

export async function sameAs(ctx: RecallExtension, arg?: unknown): Promise<void> {
  const item = await resolveFact(ctx, arg, `${TITLE} the item that goes`, isCurrentItem);
  if (!item) return;
  if (!isCurrentItem(item)) {
    void vscode.window.showInformationMessage(
      `"${factText(item)}" is no current knowledge item (a rule, decision, preference, fact or lesson).`,
    );
    return;
  }
  const found = await ctx.human.call('query', { query: item.statement!, limit: OFFERED, project: item.project, scope: 'project' });
  const kept = found.facts.filter(
    (f) => f.id !== item.id && isCurrentItem(f) && f.project === item.project && sameFamily(f.kind!, item.kind!),
  );
  if (!kept.length) {
    void vscode.window.showInformationMessage(
      `No other current ${item.kind === 'fact' || item.kind === 'lesson' ? 'fact or lesson' : 'rule, decision or preference'} of this project shares words with "${factText(item)}".`,
    );
    return;
  }
  const picked = await vscode.window.showQuickPick(kept.map(factItem), {
    title: TITLE,
    placeHolder: `"${factText(item)}" says the same as which item? (it goes; its evidence counts for the one picked)`,
    matchOnDescription: true,
    matchOnDetail: true,
  });
  if (!picked) return;
  const done = await ctx.human.call('correct', { id: item.id, verdict: 'same', as: picked.data.fact.id });
  ctx.log.info(`same as: ${item.id} → ${done.id} ${factText(done)}`);
  ctx.memoryChanged(0);
  void vscode.window.showInformationMessage(
    `${item.id} is ${done.id} said again: "${factText(done)}" now has ${done.evidence.length} piece(s) of evidence, and what says it again counts for it.`,
  );
}
