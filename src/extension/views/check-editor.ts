/**
 * "Recall: Edit Rule Check…" (palette, and a rule's context menu in the Entities view): a person
 * sets, changes or removes the check on a rule (a command pattern, a path glob, a tool name, a
 * URL) through the same service call as `recall rule check`, at human authority. A bad pattern is
 * named while it is typed (check-draft.ts reads it as the service will).
 */
import * as vscode from 'vscode';
import { CHECK_KINDS, describeCheck, type CheckKind } from '../../core/model/checks.js';
import { isId } from '../../core/model/id-shape.js';
import { HOLDING_KINDS } from '../../core/model/knowledge.js';
import type { FactView } from '../../core/model/views.js';
import type { RecallExtension } from '../ctx.js';
import { checkLine } from '../common/knowledge-text.js';
import { draftCheck, draftError, KIND_LABELS, PATTERN_SEPARATOR, patternsText } from './common/check-draft.js';
import { factText } from './present.js';

const TITLE = 'Recall: Edit Rule Check';

/** Whether a fact can carry a check: a rule (or a decision or preference to keep to) that holds. */
export const checkable = (f: FactView): boolean => f.status === 'current' && !!f.kind && HOLDING_KINDS.has(f.kind);

async function resolveRule(ctx: RecallExtension, arg: unknown): Promise<FactView | undefined> {
  if (typeof arg === 'object' && arg !== null && (arg as { kind?: unknown }).kind === 'fact') return (arg as { fact: FactView }).fact;
  if (isId('rel', arg)) return ctx.human.call('fact', { id: arg });
  const rules = await ctx.human.call('rules', {});
  if (!rules.length) {
    void vscode.window.showInformationMessage('Recall: no rules in this project yet. `recall rule add "Never force-push."` states one.');
    return undefined;
  }
  const picked = await vscode.window.showQuickPick(
    rules.map((f) => ({ label: factText(f), description: f.id, detail: checkLine(f) || 'no check', fact: f })),
    { title: TITLE, placeHolder: 'Which rule?', matchOnDescription: true, matchOnDetail: true, ignoreFocusOut: true },
  );
  return picked?.fact;
}

export async function editCheck(ctx: RecallExtension, arg?: unknown): Promise<void> {
  const given = await resolveRule(ctx, arg);
  if (!given) return;
  // The freshest state: a tree item may be older than the last write.
  const rule = await ctx.human.call('fact', { id: given.id });
  if (!checkable(rule)) {
    void vscode.window.showInformationMessage(`Recall: "${factText(rule)}" is not a rule that holds; a check goes on a current rule.`);
    return;
  }
  type Pick = vscode.QuickPickItem & { part?: CheckKind };
  const picks: Pick[] = [
    ...CHECK_KINDS.map((k) => ({
      label: KIND_LABELS[k].label,
      description: rule.check?.[k]?.length ? patternsText(rule.check, k) : `e.g. ${KIND_LABELS[k].example}`,
      part: k,
    })),
    ...(rule.check ? [{ label: 'Remove the check', description: describeCheck(rule.check) }] : []),
  ];
  const action = await vscode.window.showQuickPick(picks, {
    title: `${TITLE}: ${factText(rule)}`,
    placeHolder: rule.check ? `Now: ${describeCheck(rule.check)}. Change which part?` : 'No check yet. Add which?',
    ignoreFocusOut: true,
  });
  if (!action) return;
  let check;
  if (!action.part) check = null;
  else {
    const kind = action.part;
    const text = await vscode.window.showInputBox({
      title: `${TITLE}: ${KIND_LABELS[kind].label}`,
      prompt: `Patterns for "${factText(rule)}", apart by "${PATTERN_SEPARATOR.trim()}"; empty takes this part off.`,
      placeHolder: KIND_LABELS[kind].example,
      value: patternsText(rule.check, kind),
      validateInput: (v) => draftError(rule.check, kind, v),
      // Steps of one edit: a click elsewhere does not throw away what was typed.
      ignoreFocusOut: true,
    });
    if (text === undefined) return;
    check = draftCheck(rule.check, kind, text);
  }
  const done = await ctx.human.call('rule.check', { id: rule.id, check });
  ctx.log.info(`check on ${done.id}: ${done.check ? describeCheck(done.check) : 'removed'}`);
  ctx.memoryChanged(0);
  void vscode.window.showInformationMessage(
    done.check
      ? `Recall: "${factText(done)}" is checked: ${describeCheck(done.check)}.`
      : `Recall: the check on "${factText(done)}" is removed.`,
  );
}
