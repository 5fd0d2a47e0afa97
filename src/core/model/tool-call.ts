/**
 * A pending tool call, as each agent host describes it, read into what checks look at: the shell
 * commands it runs, the files it edits and the URLs it fetches. Hosts name tools and fields
 * differently (Claude Code `Bash` `{command}` and `Edit` `{file_path}`; VS Code `run_in_terminal`
 * `{command}` and `replace_string_in_file` `{filePath}`; Copilot CLI `bash` and `edit` `{path}`,
 * its arguments sometimes a JSON string), so the reading goes by field names and the tool's name.
 * Pure.
 */
import { checkedPath, type ToolCall } from './checks.js';

/** Tools that run shell commands: their `command` is a command line (str_replace_editor's `command` is not). */
const SHELL_TOOL = /bash|shell|terminal|powershell|pwsh|^(sh|zsh|cmd)$|execute_?command|run_?command|^exec/i;
const NOT_SHELL = /vscode|str_replace|editor/i;
/** Tools that write files: path checks apply to them (reads, searches and listings are left alone). */
const EDIT_TOOL = /edit|write|create|replace|insert|patch|delete|remove|rename|move|notebook|^str_replace/i;
const READ_TOOL = /^(read|view|get|list|search|find|grep|glob)|_?(read|view)(_file)?$/i;

const COMMAND_KEYS = ['command', 'cmd', 'commandLine', 'command_line', 'script'];
const PATH_KEYS = ['file_path', 'filePath', 'path', 'notebook_path', 'notebookPath', 'dirPath', 'target_file', 'targetFile', 'file'];
const PATH_LIST_KEYS = ['files', 'paths', 'filePaths', 'file_paths'];
const URL_KEYS = ['url', 'uri'];
/** Nested lists of edits, each naming its file (VS Code's multi_replace_string_in_file, Claude's MultiEdit). */
const NESTED_KEYS = ['replacements', 'edits'];
/** apply_patch's text names the files it touches. */
const PATCH_FILE = /^\*\*\* (?:Update|Add|Delete) File: (.+)$|^\*\*\* Move to: (.+)$/gm;

/** Most items of each kind read from one call. */
const MAX_ITEMS = 50;

/**
 * `input`: the tool's arguments as the host sent them (an object, or a JSON string of one). `root`:
 * the workspace, which paths are compared from; `cwd`: where a relative path is read from.
 */
export function toolCallOf(tool: string, input: unknown, root: string | undefined, cwd = root): ToolCall {
  const args = parsed(input);
  const shell = SHELL_TOOL.test(tool) && !NOT_SHELL.test(tool);
  const commands: string[] = [];
  const paths: string[] = [];
  const urls: string[] = [];
  if (shell && typeof args === 'string') commands.push(args);
  const obj = isObj(args) ? args : {};
  if (shell) for (const k of COMMAND_KEYS) if (typeof obj[k] === 'string') commands.push(obj[k] as string);
  const addPath = (v: unknown): void => {
    if (typeof v === 'string' && v.trim() && paths.length < MAX_ITEMS) paths.push(checkedPath(fileOf(v.trim()), root, cwd));
  };
  for (const k of PATH_KEYS) addPath(obj[k]);
  for (const k of PATH_LIST_KEYS) if (Array.isArray(obj[k])) (obj[k] as unknown[]).forEach(addPath);
  for (const k of NESTED_KEYS)
    if (Array.isArray(obj[k])) for (const item of obj[k] as unknown[]) if (isObj(item)) for (const pk of PATH_KEYS) addPath(item[pk]);
  for (const text of [obj.input, obj.patch, typeof args === 'string' && !shell ? args : undefined])
    if (typeof text === 'string') for (const m of text.matchAll(PATCH_FILE)) addPath(m[1] ?? m[2]);
  const addUrl = (v: unknown): void => {
    if (typeof v === 'string' && /^[a-z][a-z0-9+.-]*:\/\//i.test(v.trim()) && urls.length < MAX_ITEMS) urls.push(v.trim());
  };
  for (const k of URL_KEYS) addUrl(obj[k]);
  if (Array.isArray(obj.urls)) (obj.urls as unknown[]).forEach(addUrl);
  const edits = paths.length > 0 && EDIT_TOOL.test(tool) && !READ_TOOL.test(tool);
  return { tool, commands: commands.slice(0, MAX_ITEMS), paths: [...new Set(paths)], edits, urls: [...new Set(urls)] };
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A JSON string of arguments (Copilot CLI's `toolArgs`) read as the object it holds; anything else as it is. */
function parsed(input: unknown): unknown {
  if (typeof input !== 'string') return input;
  const t = input.trim();
  if (!t.startsWith('{')) return input;
  try {
    return JSON.parse(t) as unknown;
  } catch {
    return input;
  }
}

/** A `file://` URI (VS Code passes some paths so) as its path. */
function fileOf(v: string): string {
  if (!/^file:\/\//i.test(v)) return v;
  try {
    return decodeURIComponent(new URL(v).pathname).replace(/^\/([A-Za-z]:\/)/, '$1');
  } catch {
    return v;
  }
}
