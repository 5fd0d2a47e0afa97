/**
 * What a memory file says about the project outside its sentences:
 * - a shell block under a heading of commands (build, test, run, setup…) is how to do that: one
 *   fact naming its commands ("Commands: `npm ci`; `npm test`"). Other code is never read: a
 *   statement quoted in code is not the person's;
 * - a short line of names joined by "+" or "/" ("Electron + React 19 + Redux-Saga") is the stack.
 */

/** Fence languages a shell block is written in (none: a block of commands is often unmarked). */
const SHELL_LANGS = /^(?:|bash|sh|shell|shellscript|console|zsh|fish|powershell|pwsh|ps1?|cmd|bat|batch|terminal)$/i;
/** Headings over commands: building, testing, running, setting up (and the words for them in other languages). */
const COMMANDS_HEADING =
  /\b(?:build(?:s|ing)?|test(?:s|ing)?|run(?:ning)?|commands?|develop(?:ment|ing)?|dev|setup|set up|install(?:ation|ing)?|getting started|quick ?start|usage|lint(?:ing)?|scripts?|format(?:ting)?|checks?|deploy(?:ment|ing)?|workflow)\b|命令|コマンド|构建|测试|运行|开发|ビルド|テスト|実行|開発|comandos?|compila|pruebas|testes|befehle|commandes/i;
/** A command: a program or a path, then its arguments. */
const COMMAND = /^(?:[A-Z_][A-Z0-9_]*=\S*\s+)*[\w.~/-][\w.~/@:+-]*(?:\s|$)/;
/** Lines of code, not commands: a statement's end, a keyword, a literal. */
const CODE = /[{};]\s*$|^(?:import|from|def|class|function|const|let|var|return|if|for|while|export|package|public|private)\b|^[[{<("']/;
const COMMENT = /^(?:#|\/\/|rem\s|::)/i;
/** A shell's prompt: sh's "$", zsh's "%", PowerShell's "PS C:\src>" (npm's "> script" lines are output). */
const PROMPT = /^(?:\$|%|PS [^>]*>)\s+/;
const MAX_COMMANDS = 8;
const MAX_COMMAND_CHARS = 120;

/** The fact a fenced block states, when it is a shell block of commands under a heading of commands; else undefined. */
export function commandsFact(heading: string | undefined, lang: string, body: string[]): string | undefined {
  if (!heading || !COMMANDS_HEADING.test(heading) || !SHELL_LANGS.test(lang)) return undefined;
  const joined = body.join('\n').replace(/\\\r?\n\s*/g, ' ');
  let lines = joined
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !COMMENT.test(l));
  // A console block shows prompts and output: its commands are the prompted lines.
  const prompted = lines.filter((l) => PROMPT.test(l));
  if (prompted.length) lines = prompted.map((l) => l.replace(PROMPT, ''));
  if (lines.length === 0 || lines.some((l) => !COMMAND.test(l) || CODE.test(l))) return undefined;
  const commands = lines.filter((l) => l.length <= MAX_COMMAND_CHARS).slice(0, MAX_COMMANDS);
  if (commands.length === 0) return undefined;
  return `${heading}: ${commands.map((c) => `\`${c.replace(/`/g, '').replace(/\s+/g, ' ')}\``).join('; ')}`;
}

/** Whether a sentence is a stack line: two to a dozen names (a few words each) joined by " + " or " / ", nothing else. */
export function isStackLine(sentence: string): boolean {
  const parts = sentence
    .replace(/[.。]$/, '')
    .split(/\s+[+/]\s+/)
    .map((p) => p.trim());
  if (parts.length < 2 || parts.length > 12) return false;
  return parts.every((p) => p && p.split(/\s+/).length <= 5 && !/[:;,!?]/.test(p));
}
