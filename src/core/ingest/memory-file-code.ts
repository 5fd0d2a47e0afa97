/**
 * What a memory file says about the project outside its sentences:
 * - a shell block under a heading of commands (build, test, run, setup…) is how to do that: a
 *   fact naming its commands, each with the comment saying what it does ("Commands: `npm ci`
 *   (install); `npm test`");
 * - a block drawing the project's layout, entries with what each holds ("api/  - API endpoints",
 *   "cli.py  # entry point"), is where things live: a fact naming them. Either goes on in a second
 *   fact rather than being cut when it outgrows a statement. Other code is never read:
 *   a statement quoted in code is not the person's;
 * - a short line of names joined by "+" or "/" ("Electron + React 19 + Redux-Saga") is the stack;
 * - a sentence saying what the project is or uses ("pyfabric is a Python library for …", "This
 *   repository is a standalone payment gateway", "Uses App Router, React 19, TypeScript") is a fact,
 *   though it instructs nobody; so is one saying what a command does ("`assembleDebug` builds the
 *   debug APK") and a short labelled item naming a technology ("**Language:** TypeScript");
 * - a command listed with what it does ("`pnpm run dev` - Start dev server") is how to run it, a
 *   fact, though its description opens with a verb;
 * - under a heading of conventions, a sentence saying what things use or follow is a rule.
 */

import { extract } from './extract.js';

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

/** A fact read from a fenced block: what it says, and the lines of the block (0-based, inclusive) it rests on. */
export interface BlockFact {
  said: string;
  from: number;
  to: number;
}

/**
 * What a block lists, each entry on its lines, put into facts of at most `maxChars` under one title:
 * a fact that would outgrow it goes on in the next (never cut mid-entry); an entry too long alone is left out.
 */
function piecesOf(title: string, entries: { text: string; from: number; to: number }[], maxChars: number): BlockFact[] {
  const out: BlockFact[] = [];
  for (const e of entries) {
    const last = out.at(-1);
    const next = last && `${last.said}; ${e.text}`;
    if (last && next!.length <= maxChars) {
      last.said = next!;
      last.to = e.to;
    } else if (`${title}: ${e.text}`.length <= maxChars) {
      out.push({ said: `${out.length ? `${title} (continued)` : title}: ${e.text}`, from: e.from, to: e.to });
    }
  }
  return out;
}

/** A comment after a command on its line: "mypy src/   # Type check". */
const TRAILING_COMMENT = /\s+(?:#|\/\/)\s+(\S.*)$/;

/** A command in a code span, and what its comment says it does in brackets: "`cargo test` (Run tests, needs Docker)". */
function described(command: string, does: string | undefined): string {
  const what = does
    ?.replace(/\s*\(([^()]*)\)/g, ', $1')
    .replace(/[()]/g, '')
    .trim();
  return what ? `\`${command}\` (${what})` : `\`${command}\``;
}

/**
 * The facts a fenced block states, when it is a shell block of commands under a heading of commands:
 * "Build and Test Commands: `cargo build` (Build the project); `cargo test` (Run tests)", each command
 * with the comment naming what it does (on the line above it, or after it); else none.
 */
export function commandsFacts(heading: string | undefined, lang: string, body: string[], maxChars: number): BlockFact[] {
  if (!heading || !COMMANDS_HEADING.test(heading) || !SHELL_LANGS.test(lang)) return [];
  // Lines a backslash continues are one command, on the first of them.
  const lines: { text: string; at: number }[] = [];
  for (let i = 0; i < body.length; i++) {
    const last = lines.at(-1);
    if (last && /\\\s*$/.test(last.text)) last.text = `${last.text.replace(/\\\s*$/, '')} ${body[i]!.trim()}`;
    else lines.push({ text: body[i]!.trim(), at: i });
  }
  const said = lines.filter((l) => l.text);
  const prompted = said.filter((l) => PROMPT.test(l.text));
  const commands: { text: string; from: number; to: number }[] = [];
  let what: { text: string; at: number } | undefined;
  for (const l of said) {
    if (COMMENT.test(l.text)) {
      what = { text: l.text.replace(COMMENT, '').trim(), at: l.at };
      continue;
    }
    // A console block shows prompts and output: its commands are the prompted lines.
    if (prompted.length && !PROMPT.test(l.text)) continue;
    const line = l.text.replace(PROMPT, '');
    const trailing = TRAILING_COMMENT.exec(line);
    const command = (trailing ? line.slice(0, trailing.index) : line).replace(/`/g, '').replace(/\s+/g, ' ');
    if (!COMMAND.test(command) || CODE.test(command)) return [];
    if (command.length <= MAX_COMMAND_CHARS && commands.length < MAX_COMMANDS)
      commands.push({ text: described(command, trailing?.[1] ?? what?.text), from: what && !trailing ? what.at : l.at, to: l.at });
    what = undefined;
  }
  return piecesOf(heading, commands, maxChars);
}

/** A line of a layout: tree drawing, a path, then what it holds after " - ", " — " or "#". */
const LAYOUT_ENTRY = /^[\s│├└─|]*([\w.@~-][\w.@~/-]*\/?)\s+(?:[-—–]+|#|\/\/)\s+(\S.*)$/;
/** A line of the drawing with no description: a path alone, or tree drawing alone. */
const LAYOUT_BARE = /^[\s│├└─|]*(?:[\w.@~-][\w.@~/-]*\/?)?\s*$/;
const MIN_LAYOUT_ENTRIES = 2;

/**
 * The facts a fenced block states when it draws the project's layout (every line an entry or a bare
 * path, at least two entries): "Project Structure: api/ (API endpoints); cli.py (entry point)", each
 * within `maxChars` (a long drawing goes on in a fact "… (continued)"); else none.
 */
export function layoutFacts(heading: string | undefined, body: string[], maxChars: number): BlockFact[] {
  const entries = body.map((l) => (l.trim() ? LAYOUT_ENTRY.exec(l) : null));
  const described = entries.filter((m): m is RegExpExecArray => m !== null);
  if (described.length < MIN_LAYOUT_ENTRIES || body.some((l, i) => l.trim() && !entries[i] && !LAYOUT_BARE.test(l))) return [];
  const listed = entries.flatMap((m, i) => (m ? [{ text: `${m[1]} (${m[2]!.trim()})`, from: i, to: i }] : []));
  return piecesOf(heading ?? 'Layout', listed, maxChars);
}

/** A command with its arguments in a code span opening an entry ("`pnpm run dev` - …"), not code nor a bare name. */
export function opensWithCommand(raw: string): boolean {
  const span = /^`([^`]{1,80})`\s*[:：—–-]\s+\S/.exec(raw)?.[1]?.trim();
  return span !== undefined && /\s/.test(span) && COMMAND.test(span) && !CODE.test(span);
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

/** Things a project is: "X is a Python library", "this repository is …". */
const PROJECT_NOUN =
  '(?:[\\w-]+/)?(?:project|repo(?:sitory)?|app(?:lication)?|library|package|codebase|service|tool|(?:web)?site|blog|dashboard|portal|template|toolkit|daemon|extension|plugin|bundle|crate|sdk|cli|monorepo|server|backend|frontend|gateway|platform|bot|game|framework|engine|api)';
/** The words before the noun of "a … library": names, versions, adjectives; no preposition ("a change to the system" is none). */
const MODIFIERS = '(?:(?!(?:to|of|for|in|on|at|with|from|by|the|and|or|that|which)\\s)[^\\s;:]+\\s+){0,10}?';
const THIS_PROJECT = new RegExp(
  `^(?:this|the|our)\\s+(?:[\\w.-]+\\s+){0,2}?(?:${PROJECT_NOUN})\\s+(?:is|uses|provides|contains|runs|targets|consists|implements|exposes|wraps|supports)\\b`,
  'i',
);
const NAME_IS_A = new RegExp(
  `^(?!(?:it|this|that|there|which|what|here)\\s)\`?[\\w.@/-]+\`?\\s+is\\s+an?\\s+${MODIFIERS}(?:${PROJECT_NOUN})\\b`,
  'i',
);
/** "This is a Django 5.2 + DRF sports tournament management system". */
const THIS_IS_A = new RegExp(`^this is an?\\s+${MODIFIERS}(?:${PROJECT_NOUN}|system)\\b`, 'i');
/** "Uses App Router, React 19, TypeScript": the stack, when at least two names follow. */
const USES_NAMES = /^(?:[Uu]ses|[Bb]uilt (?:with|on)|[Ww]ritten in|[Rr]uns on)\s+(?:\S+\s+){0,3}?[A-Z][\w.+#-]*.*?(?:,|\band\b|\+)\s*[A-Z]/;
/** "本项目使用 …", "このプロジェクトは …", "Este projeto usa …". */
const THIS_PROJECT_OTHER =
  /^(?:本项目|该项目|这个项目|本仓库|このプロジェクト|本プロジェクト|このリポジトリ|este (?:projeto|proyecto|repositório|repositorio)\s+(?:é|es|usa|utiliza))/i;

/** Whether a sentence says what the project is or what it is built with (see the file's comment). */
export function describesProject(sentence: string): boolean {
  const s = sentence.trim();
  // "The project is currently in a functional state", "… is in early setup": where it stands today.
  if (/\b(?:currently|now|today|at the moment|for now|yet|early setup)\b/i.test(s)) return false;
  return THIS_PROJECT.test(s) || NAME_IS_A.test(s) || THIS_IS_A.test(s) || USES_NAMES.test(s) || THIS_PROJECT_OTHER.test(s);
}

/** A paragraph's sentence opening with a command or a file and what it does: "`assembleDebug` builds the debug APK". */
const CODE_DOES =
  /^`[^`]+`\s+(?:builds|runs|starts|launches|tests|lints|formats|checks|deploys|generates|serves|installs|compiles|bundles|watches|cleans)\b/;
/** Whether a short text names a technology or a package the extractor knows ("TypeScript", "PostgreSQL 16"). */
export const namesTechnology = (text: string): boolean =>
  extract({ text }).entities.some((e) => e.type === 'technology' || e.type === 'package');

/** A sentence opening with a command or a file and what it does. */
export const codeDoes = (s: string): boolean => CODE_DOES.test(s);

/** A heading of conventions: what its prose says is done ("Functions, modules, and files use `snake_case`") is the rule. */
const CONVENTIONS_HEADING = /\b(?:conventions?|coding style|code style|style guide|naming|code standards?|coding standards?)\b/i;
const DONE_SO = /^[\p{L}\w`,\s/-]{2,80}?\s+(?:use|uses|follow|follows)\s+\S/u;

/** The nearest heading is one of conventions (not a section of its own under one, as "API Design" under "Code Style"). */
const underConventions = (headings: string[]): boolean => CONVENTIONS_HEADING.test(headings.filter(Boolean).at(-1) ?? '');

/** A paragraph's sentence under a heading of conventions that says how things are done. */
export const conventionSaid = (s: string, headings: string[]): boolean => DONE_SO.test(s) && underConventions(headings);

/** "`import type` for type-only imports", "PascalCase for types": what to use for what, under a heading of conventions. */
const FOR_PURPOSE = /^`?[\w@./ -]{1,40}`?\s+for\s+\S/;
export const conventionFor = (s: string, headings: string[]): boolean => FOR_PURPOSE.test(s) && underConventions(headings);
