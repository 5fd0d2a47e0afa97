/**
 * Untrusted text inside the extension's markdown (memory content, file and session names, ids a
 * peer chose, a model's words): it must show as typed, never as a link, an image, raw HTML (which
 * VS Code drops, hiding what it holds) or an entity that reads as another character. VS Code's own
 * `appendText` leaves `<` and `&` alone, so these are used instead. The strings they go into do not
 * support theme icons, so `$(name)` stays text too. vscode-free.
 */

/** Backslash before every ASCII punctuation character (CommonMark unescapes each to itself), except `_` inside a word, which never marks emphasis. */
export function escapeMarkdown(text: string): string {
  return text.replace(/[!-/:-@[-`{-~]/g, (c, i: number, s: string) =>
    c === '_' && /[A-Za-z0-9]/.test(s[i - 1] ?? '') && /[A-Za-z0-9]/.test(s[i + 1] ?? '') ? c : `\\${c}`,
  );
}

/** Escaped text whose line breaks stay line breaks. */
export function escapeLines(text: string): string {
  return escapeMarkdown(text).replace(/\r?\n/g, '  \n');
}

/** An inline code span of one line, fenced by more backticks than the text holds in a row. */
export function codeSpan(text: string): string {
  const flat = text.replace(/\s*\r?\n\s*/g, ' ');
  if (!flat) return '` `';
  const fence = '`'.repeat(longestRun(flat) + 1);
  const pad = /^`|`$/.test(flat) || /^ .*\S.* $/.test(flat) ? ' ' : '';
  return `${fence}${pad}${flat}${pad}${fence}`;
}

/** A fenced code block showing the text exactly (whitespace, blank lines and all); it starts on a line of its own. */
export function codeBlock(text: string): string {
  const fence = '`'.repeat(Math.max(3, longestRun(text) + 1));
  return `\n\n${fence}\n${text}\n${fence}\n\n`;
}

/** A command link whose arguments survive any id: the link text is escaped and the target percent-encoded through and through. */
export function commandLink(text: string, command: string, args: unknown[]): string {
  const encoded = encodeURIComponent(JSON.stringify(args)).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `[${escapeMarkdown(text)}](command:${command}?${encoded})`;
}

function longestRun(text: string): number {
  return Math.max(0, ...(text.match(/`+/g) ?? []).map((r) => r.length));
}
