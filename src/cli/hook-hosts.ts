/**
 * What each agent host sends a hook on stdin and reads back on stdout, for the two events Recall
 * answers (post-tool-use reads what pre-tool-use reads, and answers nothing). Each shape is the host's documented one:
 * - Claude Code (code.claude.com/docs/en/hooks): snake_case input (`session_id`, `cwd`,
 *   `hook_event_name`, `source`; `tool_name`, `tool_input`, `tool_use_id`), and
 *   `hookSpecificOutput` with `additionalContext` (SessionStart) or `permissionDecision` and
 *   `permissionDecisionReason` (PreToolUse);
 * - VS Code agent hooks (code.visualstudio.com/docs/agents/reference/hooks-reference): the same
 *   fields and the same `hookSpecificOutput`, its common fields also spelled `sessionId`,
 *   `hookEventName`;
 * - GitHub Copilot CLI (docs.github.com/en/copilot/reference/copilot-cli-reference/cli-hooks-reference):
 *   camelCase input (`sessionId`, `cwd`, `toolName`, `toolArgs`, the arguments maybe as a JSON
 *   string) and `permissionDecision`, `permissionDecisionReason` at the top level; its
 *   sessionStart output is not read (we still answer `additionalContext`, its SDK's field).
 * "Allow" is said by printing nothing: a hook's "allow" would skip the host's own permission
 * prompt, and Recall's rules only ever add a question or a block. Pure.
 */
import type { HookEvent, HookHost } from '../core/model/hook-kinds.js';

/** A hook's input as Recall reads it, whichever host sent it. */
export interface HookInput {
  host: HookHost;
  cwd?: string;
  session?: string;
  /** pre- and post-tool-use: the tool, its arguments as sent, and the host's id of the call. */
  tool?: string;
  input?: unknown;
  callId?: string;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() ? v : undefined);

/** The host that sent `payload` (the installed command says it; else its field names tell). */
export function hostOf(payload: Obj, named: HookHost | undefined): HookHost {
  if (named) return named;
  if ('toolName' in payload || 'toolArgs' in payload || typeof payload.timestamp === 'number') return 'copilot';
  if ('hookEventName' in payload || 'sessionId' in payload) return 'vscode';
  return 'claude';
}

/** The payload read, or undefined when it is not one this event knows (the hook then allows). */
export function readHookInput(event: HookEvent, payload: unknown, named?: HookHost): HookInput | undefined {
  if (!isObj(payload)) return undefined;
  const host = hostOf(payload, named);
  const base: HookInput = {
    host,
    cwd: str(payload.cwd),
    session: str(payload.session_id) ?? str(payload.sessionId),
  };
  if (event === 'session-start') return base;
  const tool = str(payload.tool_name) ?? str(payload.toolName);
  if (!tool) return undefined;
  return {
    ...base,
    tool,
    input: payload.tool_input ?? payload.toolArgs,
    callId: str(payload.tool_use_id) ?? str(payload.toolUseId),
  };
}

/** stdout for a brief at session start; empty when there is nothing to add. */
export function sessionStartOutput(host: HookHost, context: string): string {
  if (!context.trim()) return '';
  if (host === 'copilot') return JSON.stringify({ additionalContext: context });
  return JSON.stringify({ hookSpecificOutput: { hookEventName: 'SessionStart', additionalContext: context } });
}

/** stdout for a decision on a pending tool call; empty for allow. */
export function preToolUseOutput(host: HookHost, decision: 'allow' | 'ask' | 'deny', reason: string): string {
  if (decision === 'allow') return '';
  if (host === 'copilot') return JSON.stringify({ permissionDecision: decision, permissionDecisionReason: reason });
  return JSON.stringify({
    hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: decision, permissionDecisionReason: reason },
  });
}
