/**
 * Items said twice: a language model from vscode.lm reads the current project's knowledge items and
 * proposes pairs that say the same thing in other words (core/ingest/join-prompt.ts); the person
 * picks which to join, and each picked pair is joined as Same As would join it. The model proposes,
 * the person decides: nothing is joined that the person did not pick.
 * - Find Items Said Twice… (the palette): asked for, so VS Code may ask the person before Recall
 *   first uses a model.
 * - JoinOffer: when a memory file adds items and the person lets Recall use a model in the background
 *   (recall.extraction.languageModel, a model VS Code already allows), the model is asked quietly and
 *   the pairs it finds are offered in a message; pairs the person left unticked are not offered again.
 */
import * as vscode from 'vscode';
import { buildJoinPrompt, JOIN_LIMITS, readJoinAnswer, type JoinCandidate, type ProposedJoin } from '../../core/ingest/join-prompt.js';
import type { KnowledgeKind } from '../../core/model/knowledge.js';
import type { FactView } from '../../core/model/views.js';
import type { RecallExtension } from '../ctx.js';
import { ALLOW_MODEL, answerOf, answerOpening, configuredModel, noModelText } from '../language-model.js';
import { factText } from './present.js';

const TITLE = 'Recall: Find Items Said Twice';
const JUSTIFICATION =
  "Recall shows a language model this project's rules, decisions, preferences, facts and lessons to find pairs that say the same thing; you pick which to join.";
/** Rules and decisions first, as the brief has them: what said twice costs most. */
const KINDS: KnowledgeKind[] = ['rule', 'decision', 'preference', 'fact', 'lesson'];
const PAGE = 50;
/** Quiet time after the last memory file that added items before the model is asked in the background. */
const OFFER_QUIET_MS = 5000;
/** Pairs the person left unticked, remembered per workspace so they are not offered again (the newest kept). */
const DECLINED_KEY = 'recall.saidTwice.declined';
const MAX_DECLINED = 500;
const REVIEW = 'Review…';

type Model = vscode.LanguageModelChat;

export async function findSaidTwice(ctx: RecallExtension): Promise<void> {
  const memory = ctx.memory;
  const found = await projectToCompare(ctx);
  if (typeof found === 'string') {
    void vscode.window.showInformationMessage(`${TITLE}: ${found}`);
    return;
  }
  const model = await configuredModel(ctx.settings);
  if (!model) {
    void vscode.window.showWarningMessage(`${TITLE}: ${noModelText(ctx.settings)}; Same As… joins two items by hand.`);
    return;
  }
  const { project, items } = found;
  let answer: string | undefined;
  try {
    answer = await vscode.window.withProgress(
      {
        location: vscode.ProgressLocation.Notification,
        title: `Recall: asking ${model.name} which of ${items.length} items say the same…`,
        cancellable: true,
      },
      (_p, token) => ask(model, items, token),
    );
  } catch (err) {
    const why =
      err instanceof vscode.LanguageModelError && err.code === 'NoPermissions'
        ? `Recall may not use ${model.name} (${ALLOW_MODEL})`
        : `${model.name} failed: ${(err as Error).message}`;
    void vscode.window.showWarningMessage(`${TITLE}: ${why}; nothing is proposed.`);
    return;
  }
  if (answer === undefined) return;
  const proposed = read(ctx, model, answer, items);
  if (!proposed) {
    void vscode.window.showWarningMessage(
      `${TITLE}: ${model.name} did not answer as asked; nothing is proposed. Try again, or join items by hand with Same As….`,
    );
    return;
  }
  if (!proposed.length) {
    void vscode.window.showInformationMessage(
      `${TITLE}: ${model.name} found no two of ${project}'s ${items.length} items that say the same.`,
    );
    return;
  }
  await pickAndJoin(ctx, model, proposed, items, memory);
}

/**
 * Asks the model in the background when memory files have added items (see the file's comment).
 * Never prompts for a model: one VS Code has not yet allowed is left for the command.
 */
export class JoinOffer implements vscode.Disposable {
  private timer: NodeJS.Timeout | undefined;
  /** One offer at a time, from asking until the person has answered it; items added meanwhile are checked after. */
  private busy = false;
  private pending = false;
  private readonly cancel = new vscode.CancellationTokenSource();
  private readonly logged = new Set<string>();
  /** The latest background check, settled when it is done (or failed, logged). */
  checked: Promise<void> = Promise.resolve();

  constructor(
    private readonly ctx: RecallExtension,
    private readonly quietMs = OFFER_QUIET_MS,
  ) {}

  /** A memory file added items: the model is asked once things are quiet, if the person lets Recall use one. */
  itemsAdded(): void {
    if (!this.ctx.settings.extraction.languageModel) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.start(), this.quietMs);
  }

  private start(): void {
    if (this.busy) {
      this.pending = true;
      return;
    }
    this.busy = true;
    this.checked = this.offer()
      .catch((err: Error) => this.ctx.log.warn(`items said twice: not checked (${err.message})`))
      .finally(() => {
        this.busy = false;
        if (this.pending) {
          this.pending = false;
          this.itemsAdded();
        }
      });
  }

  private async offer(): Promise<void> {
    const memory = this.ctx.memory;
    const model = await configuredModel(this.ctx.settings);
    if (!model) return;
    if (this.ctx.extension.languageModelAccessInformation.canSendRequest(model) !== true) {
      this.once(`ask:${model.id}`, `items said twice: VS Code has not let Recall use ${model.name}; run "${TITLE}…" to be asked`);
      return;
    }
    const found = await projectToCompare(this.ctx);
    if (typeof found === 'string') return;
    const answer = await ask(model, found.items, this.cancel.token);
    const proposed = answer === undefined ? undefined : read(this.ctx, model, answer, found.items);
    const declined = new Set(this.ctx.extension.workspaceState.get<string[]>(DECLINED_KEY, []));
    const fresh = (proposed ?? []).filter((p) => !declined.has(pairKey(p)));
    this.ctx.log.info(
      `items said twice (${model.vendor}/${model.family}): ${fresh.length} pair(s) to offer among ${found.items.length} items`,
    );
    if (!fresh.length || this.cancel.token.isCancellationRequested) return;
    const choice = await vscode.window.showInformationMessage(
      `Recall: ${model.name} finds ${fresh.length} pair(s) among ${found.project}'s items that may say the same thing. Nothing is joined unless you pick it.`,
      REVIEW,
    );
    if (choice !== REVIEW) return;
    const left = await pickAndJoin(this.ctx, model, fresh, found.items, memory);
    if (left?.length)
      await this.ctx.extension.workspaceState.update(DECLINED_KEY, [...declined, ...left.map(pairKey)].slice(-MAX_DECLINED));
  }

  private once(key: string, message: string): void {
    if (this.logged.has(key)) return;
    this.logged.add(key);
    this.ctx.log.info(message);
  }

  dispose(): void {
    clearTimeout(this.timer);
    this.cancel.cancel();
    this.cancel.dispose();
  }
}

/** The current project and its current items, up to JOIN_LIMITS.items, rules first; or why there is nothing to compare. */
async function projectToCompare(ctx: RecallExtension): Promise<{ project: string; items: FactView[] } | string> {
  const { current } = await ctx.human.call('project.list', {});
  if (!current) return 'this window has no project (open a folder), so there are no project items to compare.';
  const items: FactView[] = [];
  for (let offset = 0; items.length < JOIN_LIMITS.items; offset += PAGE) {
    // The items in force of the window's project and the global memory; not the global memory's: Same As joins items of one project.
    const page = await ctx.source.items(KINDS, offset, PAGE);
    items.push(...page.items.filter((f) => f.project === current));
    if (offset + PAGE >= page.total) break;
  }
  if (items.length < 2) return `${current} holds ${items.length} current knowledge item(s); there is nothing to compare.`;
  return { project: current, items: items.slice(0, JOIN_LIMITS.items) };
}

const shownOf = (items: FactView[]): JoinCandidate[] => items.map((f) => ({ id: f.id, kind: f.kind!, statement: f.statement! }));

/** The model's answer on `items`; undefined when cancelled. Throws what the model throws. */
const ask = (model: Model, items: FactView[], token: vscode.CancellationToken): Promise<string | undefined> =>
  answerOf(model, buildJoinPrompt(shownOf(items)), { justification: JUSTIFICATION, maxChars: JOIN_LIMITS.responseChars }, token);

/** The pairs proposed that hold; undefined (logged) when the answer is not the JSON asked for. */
function read(ctx: RecallExtension, model: Model, answer: string, items: FactView[]): ProposedJoin[] | undefined {
  const proposed = readJoinAnswer(answer, shownOf(items));
  if (!proposed) {
    ctx.log.warn(
      `items said twice: ${model.vendor}/${model.family} did not answer with the JSON asked for (it began "${answerOpening(answer)}")`,
    );
  }
  return proposed;
}

/**
 * Shows the proposed pairs to tick and joins those ticked; returns the pairs left unticked (undefined:
 * dismissed, or the memory folder changed meanwhile: its ids name other items there, so nothing is joined).
 */
async function pickAndJoin(
  ctx: RecallExtension,
  model: Model,
  proposed: ProposedJoin[],
  items: FactView[],
  memory: string,
): Promise<ProposedJoin[] | undefined> {
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
  if (!picked) return undefined;
  if (ctx.memory !== memory) {
    void vscode.window.showWarningMessage(`${TITLE}: the memory folder changed meanwhile; nothing is joined. Run it again on this memory.`);
    return undefined;
  }
  let joined = 0;
  for (const { pair } of picked) {
    try {
      await ctx.human.call('correct', { id: pair.id, verdict: 'same', as: pair.as });
      joined++;
      ctx.log.info(`same as (proposed by ${model.vendor}/${model.family}, picked by the person): ${pair.id} → ${pair.as}`);
    } catch (err) {
      ctx.log.warn(`items said twice: ${pair.id} could not be joined to ${pair.as}: ${(err as Error).message}`);
    }
  }
  if (picked.length) {
    ctx.memoryChanged(0);
    const failed = picked.length - joined;
    const message = `${TITLE}: joined ${joined} pair(s)${failed ? `; ${failed} could not be (see the log)` : ''}. What says them again counts for the item kept.`;
    void (failed ? vscode.window.showWarningMessage(message) : vscode.window.showInformationMessage(message));
  }
  const ticked = new Set(picked.map((p) => pairKey(p.pair)));
  return proposed.filter((p) => !ticked.has(pairKey(p)));
}

const pairKey = (p: ProposedJoin): string => [p.id, p.as].sort().join('|');

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
