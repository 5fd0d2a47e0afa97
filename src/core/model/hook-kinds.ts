/** The agent hosts Recall's hooks run in, and the events it hooks: one list for the hook, its installer and the extension. */
export const HOOK_HOSTS = ['claude', 'vscode', 'copilot'] as const;
export type HookHost = (typeof HOOK_HOSTS)[number];

export const HOOK_EVENTS = ['session-start', 'pre-tool-use', 'post-tool-use'] as const;
export type HookEvent = (typeof HOOK_EVENTS)[number];
