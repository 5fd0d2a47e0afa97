/**
 * `recall hooks install|uninstall --claude|--vscode|--copilot [--project|--user] [--memory DIR]`:
 * writes Recall's hook entries into a host's hook file, merging with what is there, and takes out
 * exactly those entries again (service/hook-files.ts: each host's file and shape, shared with the
 * VS Code extension's offer).
 */
import * as os from 'node:os';
import { parseArgs } from 'node:util';
import { deriveProject } from '../core/model/project.js';
import { hookCommand, HookFileError, install, targetOf, uninstall } from '../service/hook-files.js';
import { UsageError } from './usage.js';

export async function runHooks(argv: string[], out: (s: string) => void, _err: (s: string) => void): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: {
        claude: { type: 'boolean' },
        vscode: { type: 'boolean' },
        copilot: { type: 'boolean' },
        project: { type: 'boolean' },
        user: { type: 'boolean' },
        memory: { type: 'string' },
        json: { type: 'boolean' },
      },
    });
  } catch (e) {
    throw new UsageError((e as Error).message.replace(/\. To specify.*$/s, '.'));
  }
  const { values: v, positionals } = parsed;
  const action = positionals[0];
  if ((action !== 'install' && action !== 'uninstall') || positionals.length !== 1)
    throw new UsageError('hooks takes install or uninstall, e.g. recall hooks install --claude --project');
  const hosts = (['claude', 'vscode', 'copilot'] as const).filter((h) => v[h]);
  if (hosts.length !== 1) throw new UsageError('hooks needs one host: --claude, --vscode or --copilot.');
  if (v.project && v.user) throw new UsageError('Give --project or --user, not both.');
  const host = hosts[0]!;
  const scope = v.user ? 'user' : 'project';
  let t, events;
  try {
    t = targetOf(host, scope, deriveProject(process.cwd()).root, os.homedir());
    events = action === 'install' ? install(t, (e) => hookCommand(e, host, { memory: v.memory })) : uninstall(t);
  } catch (e) {
    throw e instanceof HookFileError ? new UsageError(e.message) : e;
  }
  const verb = action === 'install' ? 'added' : 'removed';
  const text = events.length
    ? `${verb} Recall's ${events.join(' and ')} hook(s) ${action === 'install' ? 'to' : 'from'} ${t.file}`
    : `${t.file}: ${action === 'install' ? "Recall's hooks are already there" : "no hooks of Recall's there"}`;
  out(v.json ? JSON.stringify({ file: t.file, [verb]: events }) : text);
  return 0;
}
