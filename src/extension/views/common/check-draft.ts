/**
 * The check editor's drafts, vscode-free: a new check from the one a rule has plus the patterns a
 * person typed for one kind. A draft is read by the same `checkOf` the service applies, so a bad
 * pattern is named while it is typed.
 */
import { CHECK_KINDS, checkOf, type Check, type CheckKind } from '../../../core/model/checks.js';
import { MemoryError } from '../../../core/model/errors.js';

/** Several patterns of one kind are typed on one line, apart by this (no pattern needs " | ": a command pattern is one simple command). */
export const PATTERN_SEPARATOR = ' | ';

/** What each kind is called where a person picks it, and an example. */
export const KIND_LABELS: Record<CheckKind, { label: string; example: string }> = {
  command: { label: 'Command pattern', example: 'git push --force*' },
  path: { label: 'Path glob (edits)', example: 'src/generated/**' },
  tool: { label: 'Tool name', example: 'WebFetch' },
  url: { label: 'URL', example: '*.internal.example.com' },
};

/** The patterns a person typed for one kind. */
export function patternsOf(text: string): string[] {
  return text
    .split(PATTERN_SEPARATOR.trim())
    .map((p) => p.trim())
    .filter(Boolean);
}

/** The text to edit a kind's patterns in. */
export const patternsText = (check: Check | undefined, kind: CheckKind): string => (check?.[kind] ?? []).join(PATTERN_SEPARATOR);

/**
 * The rule's check with one kind's patterns replaced (empty text takes that kind off); null when
 * nothing is left, which removes the check. Throws the service's own invalid_input for a bad pattern.
 */
export function draftCheck(current: Check | undefined, kind: CheckKind, text: string): Check | null {
  const next: Record<string, unknown> = {};
  for (const k of CHECK_KINDS) if (k !== kind && current?.[k]?.length) next[k] = current[k];
  const typed = patternsOf(text);
  if (typed.length) next[kind] = typed;
  if (!CHECK_KINDS.some((k) => next[k])) return null;
  if (current?.instead) next.instead = current.instead;
  return checkOf(next);
}

/** The message for a draft that would be refused, or undefined when it is one the service takes. */
export function draftError(current: Check | undefined, kind: CheckKind, text: string): string | undefined {
  try {
    draftCheck(current, kind, text);
    return undefined;
  } catch (e) {
    if (!(e instanceof MemoryError)) throw e;
    return e.hint ? `${e.message} ${e.hint}` : e.message;
  }
}
