/**
 * A shell command line read as the simple commands it runs, each a list of words, the way a rule's
 * check needs it: `cd app && FOO=1 sudo npm install` runs `npm install`. Quotes and escapes are
 * honoured; `&&`, `||`, `;`, `|`, `&`, newlines and `$(…)` start a new command; assignments before
 * a program and wrappers (sudo, env, nohup, time, command, exec, nice, xargs) are stepped over; the
 * text given to `sh -c`, `bash -c` or `eval` is read as commands too. A reading for checks, not a
 * shell: no expansion, no aliases.
 */

/** Longest command line read; past it the rest is not looked at (a check sees the start). */
const MAX_LINE = 20_000;
/** How deep `bash -c "sh -c '…'"` is followed. */
const MAX_NESTING = 3;

const WRAPPERS = new Set(['sudo', 'doas', 'env', 'nohup', 'time', 'command', 'exec', 'nice', 'xargs', 'builtin']);
const SHELLS = new Set(['sh', 'bash', 'zsh', 'dash', 'ksh', 'fish', 'pwsh', 'powershell', 'cmd']);
const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*=/;
/** Wrapper options that take a value (`sudo -u root`, `nice -n 5`). */
const VALUE_OPTIONS = new Set(['-u', '-g', '-n', '-C', '-D', '-h', '-p', '-r', '-t', '-U', '-I', '-L', '-P', '-s']);

/** A program as a check names it: the file name, without a Windows extension, in lower case. */
export function programName(word: string): string {
  const base = word.split(/[\\/]/).pop() ?? word;
  return base.replace(/\.(exe|cmd|bat|ps1)$/i, '').toLowerCase();
}

/** The words of a pattern or a line as written: its first simple command, nothing stepped over. */
export function wordsOf(line: string): string[] {
  return split(line.slice(0, MAX_LINE))[0] ?? [];
}

/**
 * The words of each simple command the line runs, first word the program (as written). A command
 * run through a wrapper comes twice, as written (`sudo npm i`) and as run (`npm i`), so a check can
 * name either.
 */
export function commandsOf(line: string, depth = 0): string[][] {
  const out: string[][] = [];
  for (const words of split(line.slice(0, MAX_LINE))) {
    const cmd = unwrap(words);
    const written = words.slice(words.findIndex((w) => !ASSIGNMENT.test(w)));
    if (written.length > cmd.length && WRAPPERS.has(programName(written[0]!))) out.push(written);
    if (cmd.length === 0) continue;
    const program = programName(cmd[0]!);
    const script = program === 'eval' ? cmd.slice(1).join(' ') : SHELLS.has(program) ? inlineScript(cmd) : undefined;
    if (script !== undefined && depth < MAX_NESTING) {
      out.push(...commandsOf(script, depth + 1));
      continue;
    }
    out.push(cmd);
  }
  return out;
}

/** The text after `-c` (`/c` for cmd, `-Command` for PowerShell), when there is one. */
function inlineScript(cmd: string[]): string | undefined {
  const at = cmd.findIndex((w, i) => i > 0 && /^(-c|-lc|-ic|\/c|-command)$/i.test(w));
  return at < 0 ? undefined : cmd.slice(at + 1).join(' ');
}

/** Leading assignments and wrappers stepped over: what remains starts with the program that runs. */
function unwrap(words: string[]): string[] {
  let i = 0;
  while (i < words.length) {
    const w = words[i]!;
    if (ASSIGNMENT.test(w)) {
      i++;
      continue;
    }
    if (!WRAPPERS.has(programName(w))) break;
    i++;
    while (i < words.length && words[i]!.startsWith('-')) {
      i += VALUE_OPTIONS.has(words[i]!) ? 2 : 1;
    }
  }
  return words.slice(i);
}

/** Splits into simple commands of words, honouring quotes and backslash escapes. */
function split(line: string): string[][] {
  const commands: string[][] = [];
  let words: string[] = [];
  let word = '';
  let inWord = false;
  const endWord = (): void => {
    if (inWord) words.push(word);
    word = '';
    inWord = false;
  };
  const endCommand = (): void => {
    endWord();
    if (words.length) commands.push(words);
    words = [];
  };
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (c === "'") {
      const end = line.indexOf("'", i + 1);
      word += line.slice(i + 1, end < 0 ? line.length : end);
      inWord = true;
      i = end < 0 ? line.length : end;
    } else if (c === '"') {
      let j = i + 1;
      for (; j < line.length && line[j] !== '"'; j++) {
        if (line[j] === '\\' && j + 1 < line.length && '"\\$`'.includes(line[j + 1]!)) j++;
        word += line[j];
      }
      inWord = true;
      i = j;
    } else if (c === '\\' && i + 1 < line.length) {
      if (line[i + 1] !== '\n') word += line[i + 1];
      inWord = true;
      i++;
    } else if (c === ' ' || c === '\t') {
      endWord();
    } else if (c === '#' && !inWord) {
      // A comment runs to the end of the line.
      const nl = line.indexOf('\n', i);
      i = nl < 0 ? line.length : nl - 1;
    } else if ('\n;&|()`'.includes(c) || (c === '$' && line[i + 1] === '(')) {
      endCommand();
      if (c === '$') i++;
    } else if ((c === '>' || c === '<') && (!inWord || /^\d+$/.test(word))) {
      // A redirection (`> out`, `2>&1`) and its target are not words of the command.
      word = '';
      inWord = false;
      while (line[i + 1] === '>' || line[i + 1] === '&') i++;
      while (line[i + 1] === ' ') i++;
      let j = i + 1;
      while (j < line.length && !' \t\n;&|()'.includes(line[j]!)) j++;
      i = j - 1;
    } else {
      word += c;
      inWord = true;
    }
  }
  endCommand();
  return commands;
}
