/**
 * A check read from a rule's statement, for the few forms that can be read exactly: a negation
 * ("never", "don't", "do not", "avoid") or a substitution ("use X, not Y", "X instead of Y") whose
 * object is a command (a known program, or anything in backticks), a path, or a URL:
 * - "Never force-push" → command `git push --force*`, `git push -f`, `git push +*`
 *   ("… to main": only with `main` named);
 * - "Use pnpm, not npm" → command `npm *` (instead: pnpm), which `pnpm install` does not meet;
 * - "Don't edit src/generated" → path `src/generated/**`;
 * - "Never fetch https://prod.example.com" → url `https://prod.example.com*`.
 * A clause that goes on with a condition ("unless", "when", "on Fridays", "without asking") is
 * not exact, so it gets no check: a rule that asks or denies must mean what it says. Pure; the
 * offline extractor and every other reader of rules call `checkFromStatement` (memory/knowledge.ts
 * does for each new rule).
 */
import { checkOf, type Check } from '../model/checks.js';

/** Programs a rule can name without backticks. */
const PROGRAMS = new Set(
  (
    'npm pnpm yarn bun npx pnpx bunx deno node pip pip3 pipx poetry uv conda mamba pipenv cargo rustup go make cmake gradle ' +
    'mvn docker docker-compose podman kubectl helm terraform git gh curl wget sudo rm brew apt apt-get yum dnf composer ' +
    'bundle gem rake dotnet nuget flutter dart jest vitest mocha pytest tox eslint prettier tsc webpack vite ruff black ' +
    'flake8 mypy psql mysql sqlite3 ssh scp rsync chmod chown kill pkill killall shutdown reboot'
  ).split(' '),
);

/** The same act under other names: a rule against one is a rule against each. */
const SYNONYMS: Record<string, string[]> = {
  'npm install': ['npm i', 'npm add'],
  'pnpm install': ['pnpm i', 'pnpm add'],
  'yarn install': ['yarn add'],
};

const NEG = String.raw`(?:never(?:\s+ever)?|don'?t|do\s+not|dont|avoid|must\s+not|mustn'?t|should\s+not|shouldn'?t|no\s+more)`;
/** A backticked command, or a word (a program, when it is one) and maybe the word after it. */
const CMD = String.raw`(\`[^\`\n]{1,200}\`|[a-z][\w-]*(?:\.[\w-]+)*(?:\s+[a-z][\w:-]*)?)`;
/** A path: backticked, or words joined by `/` or `.` (`src/generated`, `package-lock.json`, `.env`, `*.lock`). */
const PATH = String.raw`(\`[^\`\n]{1,200}\`|[\w*-]*(?:[/.][\w*-]+)+\/?)`;
/** Words right after the object that make the rule conditional, or narrower than what a check can name. */
const CONDITION =
  /^\s*(?:unless|except|but|when|whenever|if|on|for|in|inside|outside|during|before|after|until|without|while|with|only|at|other\s+than|apart\s+from)\b/i;

const FORCE_PUSH = new RegExp(
  String.raw`\b${NEG}\s+(?:use\s+|do\s+(?:a\s+)?)?(?:git\s+)?(?:force[- ]?push(?:ing|es|ed)?\b|push\s+(?:--force|-f)\b)(.*)$`,
  'i',
);
const FORCE_PUSH_FORBIDDEN = /\bforce[- ]?push(?:ing|es)?\s+(?:is|are)\s+(?:forbidden|not allowed|banned|prohibited)\b(.*)$/i;
const USE_NOT = new RegExp(
  String.raw`\b(?:always\s+)?(?:use|run|prefer)\s+${CMD}\s*[,;]?\s*(?:not|never|rather\s+than|instead\s+of|over)\s+${CMD}(.*)$`,
  'i',
);
const INSTEAD_OF = new RegExp(String.raw`\binstead\s+of\s+${CMD}\s*,?\s*(?:use|run)\s+${CMD}(.*)$`, 'i');
const X_INSTEAD_OF = new RegExp(String.raw`^${CMD}\s+instead\s+of\s+${CMD}(.*)$`, 'i');
const NEVER_RUN = new RegExp(
  String.raw`\b${NEG}\s+(?:(use|using|call|calling|invoke|invoking)|(run|running|execute|executing|type))?\s*${CMD}(.*)$`,
  'i',
);
const NEVER_EDIT = new RegExp(
  String.raw`\b${NEG}\s+(?:(?:hand|manually|directly)[- ]?)?(?:edit|modify|change|touch|write\s+to|write|update|overwrite)\s+` +
    String.raw`(?:(?:anything|any\s+files?|files?|the\s+files?|code)\s+(?:in|under|inside)\s+|the\s+)?${PATH}(.*)$`,
  'i',
);
const NEVER_URL = new RegExp(
  String.raw`\b${NEG}\s+(?:fetch|call|hit|request|open|access|use|query|post\s+to)\s+(?:the\s+)?(https?:\/\/[^\s\`'")]+)(.*)$`,
  'i',
);

/** The check a rule's statement states exactly, if it states one. */
export function checkFromStatement(statement: string): Check | undefined {
  const found: Check = {};
  const add = (kind: 'command' | 'path' | 'url', patterns: string[]): void => {
    found[kind] = [...new Set([...(found[kind] ?? []), ...patterns])];
  };
  for (const clause of clauses(statement)) {
    const push = FORCE_PUSH.exec(clause) ?? FORCE_PUSH_FORBIDDEN.exec(clause);
    if (push) {
      const branch = /^\s+(?:to|onto)\s+(`?)([\w-]+(?:[./][\w-]+)*)\1/i.exec(push[1]!);
      if (exact(branch ? push[1]!.slice(branch[0].length) : push[1]!)) {
        const b = branch ? ` ${branch[2]}` : '';
        add('command', [`git push --force*${b}`, `git push -f${b}`, `git push +${branch ? branch[2] : '*'}`]);
      }
      continue;
    }
    const swap = swapOf(clause);
    if (swap) {
      const avoid = command(swap.not, 'use');
      const use = command(swap.use, 'use');
      if (avoid && use && !use.leftover && exact(`${avoid.leftover ? ` ${avoid.leftover}` : ''}${swap.rest}`)) {
        add('command', avoid.patterns);
        found.instead ??= unquote(swap.use);
      }
      continue;
    }
    const edit = NEVER_EDIT.exec(clause);
    if (edit) {
      if (exact(edit[2]!, true)) add('path', [pathGlob(unquote(edit[1]!))]);
      continue;
    }
    const url = NEVER_URL.exec(clause);
    if (url) {
      if (exact(url[2]!)) add('url', [`${url[1]!.replace(/[.,;:]+$/, '')}*`]);
      continue;
    }
    const run = NEVER_RUN.exec(clause);
    if (run) {
      const avoid = command(run[3]!, run[2] ? 'run' : run[1] ? 'use' : undefined);
      const rest = `${avoid?.leftover ? ` ${avoid.leftover}` : ''}${run[4]!}`;
      const then = /^\s*[,;]\s*(?:use|run)\s+(`[^`]+`|[\w.-]+)\s*[.!]?\s*$/i.exec(rest);
      if (avoid && (then || exact(rest))) {
        add('command', avoid.patterns);
        if (then && command(then[1]!, 'use')) found.instead ??= unquote(then[1]!);
      }
    }
  }
  if (!found.command && !found.path && !found.url) return undefined;
  try {
    return checkOf(found);
  } catch {
    return undefined;
  }
}

/** "use X, not Y", "instead of Y, use X", "X instead of Y": what to use, what not, and the rest of the clause. */
function swapOf(clause: string): { use: string; not: string; rest: string } | undefined {
  const a = USE_NOT.exec(clause) ?? X_INSTEAD_OF.exec(clause);
  if (a) return { use: a[1]!, not: a[2]!, rest: a[3]! };
  const b = INSTEAD_OF.exec(clause);
  return b ? { use: b[2]!, not: b[1]!, rest: b[3]! } : undefined;
}

/** Sentences and `;`-separated clauses, each without a leading "From now on," or "Rule:". */
function clauses(statement: string): string[] {
  return statement
    .split(/(?<=[.!?])\s+|\n|;\s+/)
    .map((c) =>
      c.replace(/^\s*(?:[-*•]\s+)?(?:(?:from now on|as a rule|going forward|please|rule|important|note)\s*[,:]?\s*)+/i, '').trim(),
    )
    .filter(Boolean);
}

/**
 * Whether the rest of a clause after its object leaves the rule unconditional: nothing, a full
 * stop, a parenthesis, or a comma or dash followed by a reason ("— it rewrites history"), never
 * by a condition ("unless", "except", "on main").
 */
function exact(rest: string, allowManner = false): boolean {
  let r = rest;
  if (allowManner) r = r.replace(/^\s*(?:by\s+hand|manually|directly)\b/i, '');
  r = r.replace(/^\s*(?:ever|again|anymore|please|at\s+all)\b/i, '');
  if (CONDITION.test(r)) return false;
  if (/^\s*[.!]?\s*$/.test(r) || /^\s*\([^)]*\)\s*[.!]?\s*$/.test(r)) return true;
  const after = /^\s*[,:—–-]\s+(.*)$/.exec(r);
  return after !== null && !CONDITION.test(after[1]!);
}

/**
 * The command patterns a named command stands for, and the words of the name it did not read, or
 * undefined when it is not a command: a known program (after a verb: "don't make assumptions" is
 * not `make`), or anything in backticks after "run" (`use \`any\`` is code, not a command).
 * Unquoted, the program is read with a subcommand only when that has other names (`npm install`).
 */
function command(named: string, verb: 'use' | 'run' | undefined): { patterns: string[]; leftover: string } | undefined {
  const quoted = /^`(.+)`$/.exec(named.trim());
  const text = (quoted ? quoted[1]! : named).trim().replace(/\s+/g, ' ');
  const words = text.split(' ');
  const program = words[0]!.toLowerCase();
  if (quoted ? !PROGRAMS.has(program) && verb !== 'run' : !PROGRAMS.has(program) || verb === undefined) return undefined;
  if (quoted) return { patterns: text.includes(' ') ? [text, ...(SYNONYMS[text] ?? [])] : [`${text} *`], leftover: '' };
  const pair = `${program} ${words[1] ?? ''}`;
  if (SYNONYMS[pair]) return { patterns: [pair, ...SYNONYMS[pair]!], leftover: '' };
  return { patterns: [`${program} *`], leftover: words.slice(1).join(' ') };
}

function unquote(s: string): string {
  return s.trim().replace(/^`(.+)`$/, '$1');
}

/** A folder named is everything under it; a file or a glob is itself. */
function pathGlob(p: string): string {
  const clean = p.replace(/^\.\//, '').replace(/[.,;:]+$/, '');
  if (clean.includes('*')) return clean;
  const last = clean.replace(/\/+$/, '').split('/').pop() ?? clean;
  return /\.[A-Za-z0-9]{1,8}$/.test(last) && !clean.endsWith('/') ? clean : `${clean.replace(/\/+$/, '')}/**`;
}
