/**
 * Find Items Said Twice: a language model from vscode.lm reads the current project's knowledge items
 * and proposes pairs that say the same thing in other words (core/ingest/join-prompt.ts); the person
 * picks which to join, and each picked pair is joined as Same As would join it. The model proposes,
 * the person decides: nothing is joined that the person did not pick. Run from the palette only, so
 * VS Code may ask the person before Recall first uses a model.
 */
import * as vscode from 'vscode';
import { buildJoinPrompt, JOIN_LIMITS, readJoinAnswer, type JoinCandidate, type ProposedJoin } from '../../core/ingest/join-prompt.js';
import type { KnowledgeKind } from '../../core/model/knowledge.js';
import type { FactView } from '../../core/model/views.js';
import type { RecallExtension } from '../ctx.js';
import { factText } from './present.js';

const TITLE = 'Recall: Find Items Said Twice';
const JUSTIFICATION =
  "Recall shows a language model this project's rules, decisions, preferences, facts and lessons to find pairs that say the same thing; you pick which to join.";
/** Rules and decisions first, as the brief has them: what said twice costs most. */
const KINDS: KnowledgeKind[] = ['rule', 'decision', 'preference', 'fact', 'lesson'];
const PAGE = 50;

export async function findSaidTwice(ctx: RecallExtension): Promise<void> {
  const { current } = await ctx.human.call('project.list', {});
  if (!current) {
    void vscode.window.showInformationMessage(
      `${TITLE}: this window has no project (open a folder), so there are no project items to compare.`,
    );
    return;
  }
  const items = await projectItems(ctx, current);
  if (items.length < 2) {
    void vscode.window.showInformationMessage(
      `${TITLE}: ${current} holds ${items.length} current knowledge item(s); there is nothing to compare.`,
    );
    return;
  }
  const family = ctx.settings.extraction.modelFamily;
  // Editors without the language-model API have no model to offer.
  const [model] =
    typeof vscode.lm?.selectChatModels === 'function' ? await vscode.lm.selectChatModels(family ? { family } : undefined) : [];
  if (!model) {
    void vscode.window.showWarningMessage(
      `${TITLE}: no language model${family ? ` of family "${family}"` : ''} is available. Install GitHub Copilot Chat or another model provider${family ? ', or clear recall.extraction.modelFamily' : ''}; Same As… joins two items by hand.`,
    );
    return;
  }
  const shown: JoinCandidate[] = items.map((f) => ({ id: f.id, kind: f.kind!, statement: f.statement! }));
  const answer = await withModel(model, () =>
    vscode.window.withProgress(
      {
        location: vscode.ProgressLocation.Notification,
        title: `Recall: asking ${model.name} which of ${shown.length} items say the same…`,
        cancellable: true,
      },
      async (_p, token) => {
        const response = await model.sendRequest(
          [vscode.LanguageModelChatMessage.User(buildJoinPrompt(shown))],
          { justification: JUSTIFICATION },
          token,
        );
        let text = '';
        for await (const chunk of response.text) {
          text += chunk;
          if (text.length >= JOIN_LIMITS.responseChars || token.isCancellationRequested) break;
        }
        return token.isCancellationRequested ? undefined : text;
      },
    ),
  );
  if (answer === undefined) return;
  const proposed = readJoinAnswer(answer, shown);
  if (!proposed) {
    const began = answer.replace(/\s+/g, ' ').trim().slice(0, 80);
    ctx.log.warn(`find items said twice: ${model.vendor}/${model.family} did not answer with the JSON asked for (it began "${began}")`);
    void vscode.window.showWarningMessage(
      `${TITLE}: ${model.name} did not answer as asked; nothing is proposed. Try again, or join items by hand with Same As….`,
    );
    return;
  }
  if (!proposed.length) {
    void vscode.window.showInformationMessage(
      `${TITLE}: ${model.name} found no two of ${current}'s ${shown.length} items that say the same.`,
    );
    return;
  }
  const byId = new Map(items.map((f) => [f.id, f]));
  const picked = await vscode.window.showQuickPick(
    proposed.map((p) => pairItem(p, byId)),
    {
      title: TITLE,
      placeHolder: `${model.name} proposes ${proposed.length} pair(s); pick those that say the same (the first of each goes, its evidence counts for the second)`,
      canPickMany: true,
      matchOnDetail: true,
    },
  );
  if (!picked?.length) return;
  let joined = 0;
  for (const { pair } of picked) {
    try {
      await ctx.human.call('correct', { id: pair.id, verdict: 'same', as: pair.as });
      joined++;
      ctx.log.info(`same as (proposed by ${model.vendor}/${model.family}, picked by the person): ${pair.id} → ${pair.as}`);
    } catch (err) {
      ctx.log.warn(`find items said twice: ${pair.id} could not be joined to ${pair.as}: ${(err as Error).message}`);
    }
  }
  ctx.memoryChanged(0);
  const failed = picked.length - joined;
  const message = `${TITLE}: joined ${joined} pair(s)${failed ? `; ${failed} could not be (see the log)` : ''}. What says them again counts for the item kept.`;
  void (failed ? vscode.window.showWarningMessage(message) : vscode.window.showInformationMessage(message));
}

/** The model's answer; undefined, the person told why, when it was refused (no permission, blocked) or failed. */
async function withModel(model: vscode.LanguageModelChat, ask: () => Thenable<string | undefined>): Promise<string | undefined> {
  try {
    return await ask();
  } catch (err) {
    const why =
      err instanceof vscode.LanguageModelError && err.code === 'NoPermissions'
        ? `Recall may not use ${model.name} (allow it in the Accounts menu, under "Manage Language Model Access")`
        : `${model.name} failed: ${(err as Error).message}`;
    void vscode.window.showWarningMessage(`${TITLE}: ${why}; nothing is proposed.`);
    return undefined;
  }
}

/** The current items of `project` (not the global memory's: Same As joins items of one project), rules first. */
async function projectItems(ctx: RecallExtension, project: string): Promise<FactView[]> {
  const out: FactView[] = [];
  for (let offset = 0; out.length < JOIN_LIMITS.items; offset += PAGE) {
    const page = await ctx.human.call('browse.items', { kinds: KINDS, offset, limit: PAGE });
    out.push(...page.items.filter((f) => f.project === project && f.status === 'current' && f.kind && f.statement));
    if (offset + PAGE >= page.total) break;
  }
  return out.slice(0, JOIN_LIMITS.items);
}

function pairItem(pair: ProposedJoin, byId: Map<string, FactView>): vscode.QuickPickItem & { pair: ProposedJoin } {
  const goes = byId.get(pair.id)!;
  const kept = byId.get(pair.as)!;
  return {
    label: `$(combine) ${factText(goes)}`,
    description: `${pair.id} → ${pair.as}`,
    detail: `the same as: ${factText(kept)}`,
    pair,
  };
}
