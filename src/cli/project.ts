/**
 * Which project a CLI command works in (`--project NAME`, `--global`, else the current folder's),
 * and `recall project`: the projects a memory holds, and a person's moves between them.
 */
import { deriveProject } from '../core/model/project.js';
import type { MemoryClient } from '../service/rpc/client.js';
import { UsageError } from './usage.js';

export interface ProjectChoice {
  /** The project key; null: the person's own (global) memory. */
  project: string | null;
  /** The folder it was derived from, when it was. */
  workspace?: string;
}

/** `--project NAME` names it, `--global` is the person's own memory, else the project of `cwd`. */
export function chooseProject(values: { project?: string; global?: boolean }, cwd = process.cwd()): ProjectChoice {
  if (values.project !== undefined && values.global) throw new UsageError('Give --project NAME or --global, not both.');
  if (values.global) return { project: null };
  if (values.project !== undefined) {
    if (!values.project.trim()) throw new UsageError('--project needs a NAME, e.g. --project github.com/owner/repo.');
    return { project: values.project.trim() };
  }
  const derived = deriveProject(cwd);
  return { project: derived.key, workspace: derived.root };
}

const label = (p: string | null): string => p ?? '(global)';

/** `recall project [list]`, `recall project assign TARGET (--from P | --source S | --session ID)`, `recall project rename OLD NEW`. */
export async function runProject(
  args: string[],
  values: { json?: boolean; from?: string; source?: string; session?: string; global?: boolean },
  current: ProjectChoice,
  withClient: <T>(fn: (c: MemoryClient) => Promise<T>) => Promise<T>,
  out: (s: string) => void,
): Promise<number> {
  const [action = 'list', ...rest] = args;
  const print = (json: unknown, text: string): void => out(values.json ? JSON.stringify(json, null, 2) : text);
  switch (action) {
    case 'list': {
      if (rest.length) throw new UsageError('project list takes no arguments.');
      const r = await withClient((c) => c.call('project.list', {}));
      const rows = r.projects.map(
        (p) =>
          `${p.project === r.current ? '*' : ' '} ${label(p.project)}  ${p.episodes} episode(s), ${p.relationships} fact(s)` +
          (p.last ? `, last ${p.last.slice(0, 10)}` : ''),
      );
      print(r, [`current: ${label(r.current)}`, ...(rows.length ? rows : ['  (the memory is empty)'])].join('\n'));
      return 0;
    }
    case 'assign':
    case 'rename': {
      let target: string | null;
      let from: string | null | undefined;
      if (action === 'rename') {
        if (rest.length !== 2)
          throw new UsageError('project rename needs OLD NEW, e.g. project rename source:claude-code github.com/me/app');
        from = rest[0] === 'global' ? null : rest[0];
        target = rest[1] === 'global' ? null : rest[1]!;
      } else {
        if (rest.length > 1 || (rest.length === 0 && !values.global))
          throw new UsageError('project assign needs one TARGET project (or --global), e.g. project assign github.com/me/app --source cli');
        target = rest[0] ?? null;
        from = values.from === undefined ? undefined : values.from === 'global' ? null : values.from;
        if (from === undefined && values.source === undefined && values.session === undefined)
          throw new UsageError('project assign needs --from PROJECT, --source S or --session ID: which memories to move.');
      }
      const r = await withClient((c) =>
        c.call('project.assign', { project: target, from, source: values.source, session: values.session }),
      );
      print(r, `moved ${r.episodes} episode(s) and ${r.relationships} fact(s) to ${label(target)}`);
      return 0;
    }
    case 'current':
      print(current, label(current.project));
      return 0;
    default:
      throw new UsageError('project takes one of: list, current, assign, rename.');
  }
}
