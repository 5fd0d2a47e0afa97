/**
 * Allow, ask or deny a pending tool call from the rules that carry a check. Who may stop an agent
 * is the authority rule of the whole memory: only a person's rule (said by the person, or set
 * with a correction) or a rule a person of this memory confirmed may deny; an agent's, a
 * repository's (others' files) or a teammate's, unconfirmed, may only ask; and a check that came
 * from another memory is data, never trusted to deny. The answer names each rule, its id and who
 * set it. Pure.
 */
import type { Authority } from './config.js';
import { describeCheck, followsCheck, matchCheck, type Check, type CheckMatch, type CheckSetter, type ToolCall } from './checks.js';

export interface CheckedRule {
  id: string;
  statement: string;
  /** Whose word the rule is. */
  authority: Authority;
  /** A person of this memory confirmed it (a teammate's confirmation does not count here). */
  confirmed: boolean;
  check: Check;
  setter: CheckSetter;
}

export type Verdict = 'allow' | 'ask' | 'deny';

export interface RuleHit {
  rule: CheckedRule;
  match: CheckMatch;
  /** The most this rule may do. */
  may: 'deny' | 'ask';
}

export interface Decision {
  decision: Verdict;
  /** Why, for the agent and the person: each rule met, with its id and who set it (empty when allowed). */
  reason: string;
  hits: RuleHit[];
  /** Rules the call is about and keeps to (`git push` under "never force-push"). */
  followed: CheckedRule[];
}

/** Characters of a decision's reason (each host shows it whole). */
const REASON_CHARS = 2000;

export function mayDeny(rule: CheckedRule): boolean {
  if (rule.setter === 'peer') return false;
  return rule.confirmed || rule.authority === 'human' || rule.authority === 'user';
}

/** "you", "you (confirmed)", "an agent (unconfirmed)", "the repository's files", "a teammate's memory". */
export function whoSet(rule: CheckedRule): string {
  const who =
    rule.authority === 'human' || rule.authority === 'user' ? 'you' : rule.authority === 'external' ? "the repository's files" : 'an agent';
  const check = rule.setter === 'peer' ? ", check from a teammate's memory" : rule.setter === 'person' ? ', check set by you' : '';
  return `${who}${rule.confirmed ? ', confirmed' : who === 'you' ? '' : ', unconfirmed'}${check}`;
}

export function decide(rules: CheckedRule[], call: ToolCall): Decision {
  const hits: RuleHit[] = [];
  const followed: CheckedRule[] = [];
  for (const rule of rules) {
    const match = matchCheck(rule.check, call);
    if (match) hits.push({ rule, match, may: mayDeny(rule) ? 'deny' : 'ask' });
    else if (followsCheck(rule.check, call)) followed.push(rule);
  }
  const decision: Verdict = hits.some((h) => h.may === 'deny') ? 'deny' : hits.length ? 'ask' : 'allow';
  return { decision, reason: hits.length ? reasonOf(decision, hits) : '', hits, followed };
}

function reasonOf(decision: Verdict, hits: RuleHit[]): string {
  const lines = hits.map((h) => {
    const instead = h.rule.check.instead ? ` Use ${h.rule.check.instead} instead.` : '';
    return `- ${h.rule.id} "${h.rule.statement}" (set by ${whoSet(h.rule)}): \`${h.match.what}\` meets its check ${describeCheck({ [h.match.kind]: [h.match.pattern] })}.${instead}`;
  });
  const head =
    decision === 'deny'
      ? 'Recall blocked this call: it breaks a rule of this project.'
      : 'Recall asks before this call: it may break a rule of this project that only a person can make binding.';
  const tail = decision === 'deny' ? '' : '\nConfirm the rule (`recall correct --confirm ID`) to make it block.';
  const text = `${head}\n${lines.join('\n')}${tail}`;
  return text.length > REASON_CHARS ? `${text.slice(0, REASON_CHARS - 1)}…` : text;
}
