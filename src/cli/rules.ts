/**
 * `recall rule list [--checked]`: the project's and the global memory's rules, each with its check
 * and who set it; `recall rule add TEXT`: a person states a rule (its check read from its words); `recall rule check ID --command P --path G --tool T --url U [--instead X]`: a
 * person sets a rule's check (replacing the one it had), `--remove` takes it off.
 */
import { describeCheck } from '../core/model/checks.js';
import type { FactView } from '../core/model/views.js';
import type { MemoryClient } from '../service/rpc/client.js';
import { UsageError } from './usage.js';

interface RuleValues {
  json?: boolean;
  checked?: boolean;
  remove?: boolean;
  command?: string[];
  path?: string[];
  tool?: string[];
  url?: string[];
  instead?: string;
}

const WHO = { person: 'you', statement: 'its words', peer: "a teammate's memory" } as const;

export function renderRule(f: FactView): string {
  const head = `${f.id}  [${f.kind ?? f.predicate}] ${f.statement ?? `${f.subject} ${f.predicate} ${f.object}`}`;
  const check = f.check ? `\n    check: ${describeCheck(f.check)} (set by ${WHO[f.check_by ?? 'statement']})` : '\n    check: none';
  const outcomes = f.outcomes
    ? `\n    hooks: ${Object.entries(f.outcomes)
        .map(([k, n]) => `${k} ${n}`)
        .join(', ')}`
    : '';
  return head + check + outcomes;
}

export async function runRule(
  args: string[],
  values: RuleValues,
  here: { project: string | null; named: boolean },
  withClient: <T>(fn: (c: MemoryClient) => Promise<T>) => Promise<T>,
  out: (s: string) => void,
): Promise<number> {
  const [action = 'list', ...rest] = args;
  const print = (json: unknown, text: string): void => out(values.json ? JSON.stringify(json, null, 2) : text);
  if (action === 'list') {
    if (rest.length) throw new UsageError('rule list takes no arguments; --checked shows only rules with a check.');
    const rules = await withClient((c) => c.call('rules', { checked: values.checked, ...(here.named ? { project: here.project } : {}) }));
    print(rules, rules.length ? rules.map(renderRule).join('\n') : '(no rules)');
    return 0;
  }
  if (action === 'add') {
    if (rest.length !== 1) throw new UsageError('rule add needs one TEXT (quote it), e.g. rule add "Never force-push."');
    const fact = await withClient((c) => c.call('rule.add', { statement: rest[0]!, ...(here.named ? { project: here.project } : {}) }));
    print(fact, renderRule(fact));
    return 0;
  }
  if (action !== 'check') throw new UsageError('rule takes one of: list, add, check.');
  if (rest.length !== 1) throw new UsageError('rule check needs one RULE_ID, e.g. rule check rel_12 --command "git push --force*"');
  const given = { command: values.command, path: values.path, tool: values.tool, url: values.url };
  const any = Object.values(given).some((v) => v?.length);
  if (values.remove === any)
    throw new UsageError('rule check takes --remove, or the check: --command P, --path GLOB, --tool NAME, --url U (each repeatable).');
  const check = values.remove
    ? null
    : { ...Object.fromEntries(Object.entries(given).filter(([, v]) => v?.length)), ...(values.instead ? { instead: values.instead } : {}) };
  const fact = await withClient((c) => c.call('rule.check', { id: rest[0]!, check }));
  print(fact, renderRule(fact));
  return 0;
}
