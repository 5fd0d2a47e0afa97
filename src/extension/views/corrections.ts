/**
 * A person's corrections: Mark Fact Wrong, Confirm Fact, Add a Fact, Forget Entity. They go
 * through the `extension` connection, the only one with human authority, and each asks only
 * for what it lacks (a tree item already names its fact or entity).
 */
import { codeStale } from '../../core/model/code-anchors.js';
import { isId } from '../../core/model/id-shape.js';
import * as vscode from 'vscode';
import type { EntityView, FactView } from '../../core/model/views.js';
import type { RecallExtension } from '../ctx.js';
import type { EntityNode, FactNode } from './entities.js';
import { pickEntity, pickFact } from './pickers.js';
import { factText, factTriple, oneLine } from './present.js';

/** A fact from a tree item, a relationship id, or (from the palette) a picker. */
export async function resolveFact(
  ctx: RecallExtension,
  arg: unknown,
  title: string,
  want: (f: FactView) => boolean,
): Promise<FactView | undefined> {
  if (isNode<FactNode>(arg, 'fact')) return arg.fact;
  if (isId('rel', arg)) return ctx.human.call('fact', { id: arg });
  if (isFact(arg)) return arg;
  return pickFact(ctx, title, want);
}

async function resolveEntity(ctx: RecallExtension, arg: unknown, title: string): Promise<EntityView | undefined> {
  if (isNode<EntityNode>(arg, 'entity')) return arg.entity;
  if (typeof arg === 'string' && arg.trim()) return { name: arg.trim() } as EntityView;
  return pickEntity(ctx, title);
}

export async function markWrong(ctx: RecallExtension, arg?: unknown): Promise<void> {
  const fact = await resolveFact(ctx, arg, 'Recall: Mark Fact Wrong', (f) => f.status === 'current');
  if (!fact) return;
  if (fact.status !== 'current') {
    void vscode.window.showInformationMessage(`"${factText(fact)}" is already ${fact.status}.`);
    return;
  }
  const reason = await vscode.window.showInputBox({
    title: 'Recall: Mark Fact Wrong',
    prompt: `Why is "${factText(fact)}" wrong? (optional; press Enter to skip)`,
    placeHolder: 'e.g. we moved off it in March',
    validateInput: (v) => (v.length > 500 ? 'Keep the reason under 500 characters.' : undefined),
  });
  if (reason === undefined) return;
  const done = await ctx.human.call('correct', { id: fact.id, verdict: 'wrong', reason: reason.trim() || undefined });
  ctx.log.info(`marked wrong: ${done.id} ${factText(done)}${reason.trim() ? ` (${reason.trim()})` : ''}`);
  ctx.memoryChanged(0);
  void vscode.window.showInformationMessage(`Marked wrong: "${factText(done)}". It no longer appears in answers.`);
}

export async function confirmFact(ctx: RecallExtension, arg?: unknown): Promise<void> {
  const fact = await resolveFact(ctx, arg, 'Recall: Confirm Fact', (f) => !f.pinned || f.status !== 'current');
  if (!fact) return;
  const reopened = fact.status !== 'current';
  const done = await ctx.human.call('correct', { id: fact.id, verdict: 'confirm' });
  ctx.log.info(`confirmed: ${done.id} ${factText(done)}`);
  ctx.memoryChanged(0);
  void vscode.window.showInformationMessage(
    `Confirmed: "${factText(done)}"${reopened ? ` (it had been marked ${fact.status}; it is current again)` : ''}. It no longer decays.`,
  );
}

/** The code a fact names changed or is gone: a person looks, and re-confirms it (its anchors move to the code as it is). */
export async function reconfirmFact(ctx: RecallExtension, arg?: unknown): Promise<void> {
  const stale = (f: FactView): boolean => codeStale(f.code);
  const fact = await resolveFact(ctx, arg, 'Recall: Re-confirm Fact Against Code', stale);
  if (!fact) return;
  if (!fact.code) {
    void vscode.window.showInformationMessage(`"${factText(fact)}" names no code in this workspace; use Confirm Fact instead.`);
    return;
  }
  const was = fact.code.status;
  const done = await ctx.human.call('correct', { id: fact.id, verdict: 'confirm', reason: 're-confirmed against the code' });
  ctx.log.info(`re-confirmed against the code: ${done.id} ${factText(done)} (was ${was}, now ${done.code?.status ?? 'no anchors'})`);
  ctx.memoryChanged(0);
  void vscode.window.showInformationMessage(
    `Re-confirmed: "${factText(done)}" now points at the code as it is${was === 'gone' ? ' (anchors whose code is gone were dropped)' : ''}.`,
  );
}

export async function addFact(ctx: RecallExtension, arg?: unknown): Promise<void> {
  const title = 'Recall: Add a Fact';
  const name = (v: string): string | undefined => (!v.trim() ? 'Required.' : v.length > 200 ? 'At most 200 characters.' : undefined);
  const given = isNode<EntityNode>(arg, 'entity') ? arg.entity.name : undefined;
  const subject =
    given ??
    (await vscode.window.showInputBox({
      title: `${title} (1/3)`,
      prompt: 'Subject: what is the fact about?',
      placeHolder: 'e.g. Recall',
      validateInput: name,
    }));
  if (!subject) return;
  const predicate = await vscode.window.showInputBox({
    title: `${title} (2/3)`,
    prompt: `Predicate: how does "${subject}" relate to something?`,
    placeHolder: 'e.g. uses, prefers, depends on, is owned by',
    validateInput: name,
  });
  if (!predicate) return;
  const object = await vscode.window.showInputBox({
    title: `${title} (3/3)`,
    prompt: `Object: "${subject} ${predicate} …" what?`,
    placeHolder: 'e.g. sql.js',
    validateInput: name,
  });
  if (!object) return;
  const { id } = await ctx.human.call('relate', {
    subject: subject.trim(),
    predicate: predicate.trim(),
    object: object.trim(),
    prior: 'explicit',
  });
  ctx.log.info(`added ${id}: ${subject} ${predicate} ${object}`);
  ctx.memoryChanged(0);
  void vscode.window.showInformationMessage(`Added ${id}: "${subject.trim()} ${predicate.trim().toLowerCase()} ${object.trim()}".`);
}

/** Two steps, both modal: what would go (nothing changes yet), then a last, explicit confirmation. */
export async function forgetEntity(ctx: RecallExtension, arg?: unknown): Promise<void> {
  const chosen = await resolveEntity(ctx, arg, 'Recall: Forget Entity');
  if (!chosen) return;
  const plan = await ctx.human.call('forget.plan', { entity: chosen.name });
  const name = plan.entity.name;
  const list = <T>(items: T[], show: (t: T) => string, max = 8): string[] => [
    ...items.slice(0, max).map((t) => `    ${show(t)}`),
    ...(items.length > max ? [`    … and ${items.length - max} more`] : []),
  ];
  const detail = [
    `This erases from the memory and its journal:`,
    `• the entity "${name}" (${plan.entity.type})`,
    `• ${plan.relationships.length} relationship(s)`,
    ...list(plan.relationships, (f) => `${f.id}: ${factTriple(f)}`),
    `• ${plan.episodes.length} episode(s) that mention nothing else`,
    ...list(plan.episodes, (e) => `${e.id}: ${oneLine(e.text, 70)}`),
    ...(plan.orphans.length ? [`• ${plan.orphans.length} other entit(ies) left with nothing else`, ...list(plan.orphans, (n) => n)] : []),
    ...(plan.kept_episodes ? [`${plan.kept_episodes} other episode(s) also mention other things: they stay, unlinked from it.`] : []),
  ].join('\n');
  const step1 = await vscode.window.showWarningMessage(`Forget "${name}"?`, { modal: true, detail }, 'Forget…');
  if (step1 !== 'Forget…') return;
  const step2 = await vscode.window.showWarningMessage(
    `Erase "${name}" permanently?`,
    {
      modal: true,
      detail: `${plan.relationships.length} relationship(s) and ${plan.episodes.length} episode(s) will be rewritten out of the journal. This cannot be undone, and no correction can bring them back.`,
    },
    'Erase Permanently',
  );
  if (step2 !== 'Erase Permanently') return;
  const done = await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: `Recall: forgetting "${name}"…` },
    () => ctx.human.call('forget', { entity: name }),
  );
  ctx.log.info(`forgot ${name}: ${done.relationships.length} relationship(s), ${done.episodes.length} episode(s)`);
  ctx.memoryChanged(0);
  void vscode.window.showInformationMessage(
    `Forgot "${name}": ${done.relationships.length} relationship(s) and ${done.episodes.length} episode(s) erased.`,
  );
}

function isNode<T extends { kind: string }>(v: unknown, kind: T['kind']): v is T {
  return typeof v === 'object' && v !== null && (v as { kind?: unknown }).kind === kind;
}

function isFact(v: unknown): v is FactView {
  return typeof v === 'object' && v !== null && typeof (v as FactView).id === 'string' && typeof (v as FactView).predicate === 'string';
}
