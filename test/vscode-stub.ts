/**
 * A stand-in for the `vscode` module, so tests can run the extension's own code (bundled by
 * test/extension-host.ts with `vscode` aliased here). VS Code itself cannot run in a unit test;
 * test/e2e runs the real one. Only what the extension calls is here, and the parts the tests
 * attack follow VS Code: MarkdownString as in its htmlContent.ts, and a configuration whose
 * `get()` merges every layer (workspace folder over workspace over user over default) whatever a
 * setting's scope, as an editor that does not enforce scopes would, so the code's own reading is
 * what is tested. `host` is the test's side: the settings layers, what the extension wrote, said,
 * registered and watched, and workspace trust.
 */
import * as fs from 'node:fs';
import * as nodePath from 'node:path';

type Listener<T> = (e: T) => unknown;

export class Disposable {
  constructor(private readonly fn: () => void = () => {}) {}
  static from(...ds: { dispose(): unknown }[]): Disposable {
    return new Disposable(() => ds.forEach((d) => d.dispose()));
  }
  dispose(): void {
    this.fn();
  }
}

export class EventEmitter<T> {
  private listeners: Listener<T>[] = [];
  readonly event = (listener: Listener<T>): Disposable => {
    this.listeners.push(listener);
    return new Disposable(() => (this.listeners = this.listeners.filter((l) => l !== listener)));
  };
  fire(e: T): void {
    for (const l of [...this.listeners]) l(e);
  }
  dispose(): void {
    this.listeners = [];
  }
}

// ---- MarkdownString, as VS Code's htmlContent.ts builds it

function escapeMarkdownSyntaxTokens(text: string): string {
  return text.replace(/[\\`*_{}[\]()#+\-!~]/g, '\\$&');
}
function escapeIcons(text: string): string {
  return text.replace(/(\\)?\$\([A-Za-z0-9-]+(?:~[A-Za-z]+)?\)/g, (match, escaped) => (escaped ? match : `\\${match}`));
}

export class MarkdownString {
  isTrusted?: boolean | { enabledCommands: readonly string[] };
  supportHtml?: boolean;
  constructor(
    public value = '',
    public supportThemeIcons = false,
  ) {}
  appendText(value: string): this {
    this.value += escapeMarkdownSyntaxTokens(this.supportThemeIcons ? escapeIcons(value) : value)
      .replace(/([ \t]+)/g, (_m, g1: string) => '&nbsp;'.repeat(g1.length))
      .replace(/>/gm, '\\>')
      .replace(/\n/g, '\n\n');
    return this;
  }
  appendMarkdown(value: string): this {
    this.value += value;
    return this;
  }
  appendCodeblock(code: string, language = ''): this {
    this.value += '\n```' + language + '\n' + code + '\n```\n';
    return this;
  }
}

// ---- small value types

export class Uri {
  private constructor(
    readonly scheme: string,
    readonly path: string,
    readonly query = '',
    readonly fragment = '',
  ) {}
  get fsPath(): string {
    return this.path;
  }
  static file(p: string): Uri {
    return new Uri('file', nodePath.resolve(p));
  }
  static from(c: { scheme: string; path?: string; query?: string; fragment?: string }): Uri {
    return new Uri(c.scheme, c.path ?? '', c.query ?? '', c.fragment ?? '');
  }
  static parse(s: string): Uri {
    const u = new URL(s);
    return new Uri(u.protocol.replace(/:$/, ''), decodeURIComponent(u.pathname), u.search.replace(/^\?/, ''));
  }
  static joinPath(base: Uri, ...segments: string[]): Uri {
    return new Uri(base.scheme, nodePath.posix.join(base.path, ...segments), base.query);
  }
  with(c: { scheme?: string; path?: string; query?: string }): Uri {
    return new Uri(c.scheme ?? this.scheme, c.path ?? this.path, c.query ?? this.query);
  }
  toString(): string {
    return `${this.scheme}://${this.path}${this.query ? `?${this.query}` : ''}`;
  }
}

export class ThemeIcon {
  constructor(
    readonly id: string,
    readonly color?: ThemeColor,
  ) {}
}
export class ThemeColor {
  constructor(readonly id: string) {}
}
export class RelativePattern {
  constructor(
    readonly base: Uri | string,
    readonly pattern: string,
  ) {}
}
export class TreeItem {
  [k: string]: unknown;
  constructor(
    public label: string,
    public collapsibleState = 0,
  ) {}
}
export class CancellationTokenSource {
  token = { isCancellationRequested: false, onCancellationRequested: new EventEmitter<void>().event };
  cancel(): void {
    this.token.isCancellationRequested = true;
  }
  dispose(): void {}
}
export class CancellationError extends Error {}
export class LanguageModelError extends Error {}
export class LanguageModelToolResult {
  constructor(readonly content: unknown[]) {}
}
export class LanguageModelTextPart {
  constructor(readonly value: string) {}
}
export const LanguageModelChatMessage = { User: (content: string) => ({ role: 'user', content }) };
export class McpStdioServerDefinition {
  constructor(
    readonly label: string,
    readonly command: string,
    readonly args: string[],
    readonly env: Record<string, string>,
    readonly version?: string,
  ) {}
}

export const TreeItemCollapsibleState = { None: 0, Collapsed: 1, Expanded: 2 } as const;
export const ConfigurationTarget = { Global: 1, Workspace: 2, WorkspaceFolder: 3 } as const;
export const ProgressLocation = { SourceControl: 1, Window: 10, Notification: 15 } as const;
export const StatusBarAlignment = { Left: 1, Right: 2 } as const;
export const ViewColumn = { Active: -1, Beside: -2, One: 1 } as const;
export const QuickPickItemKind = { Separator: -1, Default: 0 } as const;
export const UIKind = { Desktop: 1, Web: 2 } as const;
export const env = { uiKind: UIKind.Desktop, remoteName: undefined as string | undefined, openExternal: async () => true };

// ---- the test's side

type Layer = 'defaultValue' | 'globalValue' | 'workspaceValue' | 'workspaceFolderValue';
const LAYERS_LOW_TO_HIGH: Layer[] = ['defaultValue', 'globalValue', 'workspaceValue', 'workspaceFolderValue'];

const configChanged = new EventEmitter<{ affectsConfiguration(section: string): boolean }>();
const trustGranted = new EventEmitter<void>();

/** A language model that answers what a test scripted, and keeps the prompts it was sent. */
export class ScriptedModel {
  readonly prompts: string[] = [];
  readonly id: string;
  readonly vendor = 'test';
  constructor(
    readonly name: string,
    readonly family: string,
    private readonly answer: (prompt: string) => string,
  ) {
    this.id = `test/${family}`;
  }
  async sendRequest(messages: { content: string }[]): Promise<{ text: AsyncIterable<string> }> {
    const prompt = messages.map((m) => m.content).join('\n');
    this.prompts.push(prompt);
    const answer = this.answer(prompt);
    return {
      text: (async function* () {
        // In pieces, as a model streams.
        for (let i = 0; i < answer.length; i += 40) yield answer.slice(i, i + 40);
      })(),
    };
  }
}

export const host = {
  /** Settings by layer, keyed by their full name (`recall.sync.url`). */
  settings: { defaultValue: {}, globalValue: {}, workspaceValue: {}, workspaceFolderValue: {} } as Record<Layer, Record<string, unknown>>,
  /** What the extension wrote with `update()`. */
  updates: [] as { key: string; value: unknown; target: unknown }[],
  /** Messages shown (information, warning, error), with their buttons. */
  messages: [] as { kind: 'info' | 'warning' | 'error'; text: string; items: string[] }[],
  /** What the person answers to a message that matches (a promise: answered later); unanswered messages are dismissed. */
  answer: (_text: string, _items: string[]): string | undefined | Promise<string | undefined> => undefined,
  /** Language models a test scripts (a mock: no model can run here); none unless a test adds one. */
  models: [] as ScriptedModel[],
  /** What the person picks in a quick pick (showQuickPick), and types in an input box; undefined: dismissed. */
  pick: (_items: any[], _options: any): any => undefined,
  input: (_options: any): string | undefined => undefined,
  /** Lines of every output channel. */
  log: [] as string[],
  commands: new Map<string, (...args: unknown[]) => unknown>(),
  /** Folders file system watchers were made for. */
  watched: [] as string[],
  /** The watchers made, with their glob: a test fires their events as a file system would. */
  watchers: [] as { base: string; pattern: string; create: EventEmitter<Uri>; change: EventEmitter<Uri>; delete: EventEmitter<Uri> }[],
  /** Status-bar items made, as the extension left them (text, tooltip, background). */
  statusBarItems: [] as { text?: string; tooltip?: unknown; backgroundColor?: unknown }[],
  trusted: true,
  folders: [] as string[],
  /** Sets a value in one layer and tells the extension, as editing a settings.json does. */
  set(layer: Layer, key: string, value: unknown): void {
    // As VS Code: writing the value a layer already holds changes nothing and tells no one.
    if (JSON.stringify(host.settings[layer][key]) === JSON.stringify(value)) return;
    if (value === undefined) delete host.settings[layer][key];
    else host.settings[layer][key] = value;
    configChanged.fire({ affectsConfiguration: (s: string) => key === s || key.startsWith(`${s}.`) });
  },
  /** The person trusts the workspace (Restricted Mode ends). */
  grantTrust(): void {
    host.trusted = true;
    trustGranted.fire();
  },
  reset(): void {
    for (const layer of LAYERS_LOW_TO_HIGH) if (layer !== 'defaultValue') host.settings[layer] = {};
    host.updates = [];
    host.messages = [];
    host.answer = () => undefined;
    host.pick = () => undefined;
    host.input = () => undefined;
    host.log = [];
    host.commands.clear();
    host.watched = [];
    host.watchers = [];
    host.trusted = true;
    host.folders = [];
  },
};

function configuration(section: string) {
  const full = (key: string): string => (section ? `${section}.${key}` : key);
  return {
    get<T>(key: string, fallback?: T): T {
      for (const layer of [...LAYERS_LOW_TO_HIGH].reverse()) {
        const v = host.settings[layer][full(key)];
        if (v !== undefined) return structuredClone(v) as T;
      }
      return fallback as T;
    },
    has: (key: string) => LAYERS_LOW_TO_HIGH.some((l) => host.settings[l][full(key)] !== undefined),
    inspect<T>(key: string) {
      const out: Record<string, unknown> = { key: full(key) };
      for (const layer of LAYERS_LOW_TO_HIGH) {
        const v = host.settings[layer][full(key)];
        if (v !== undefined) out[layer] = structuredClone(v);
      }
      return out as { key: string } & Partial<Record<Layer, T>>;
    },
    async update(key: string, value: unknown, target: unknown): Promise<void> {
      host.updates.push({ key: full(key), value, target });
      const layer: Layer = target === ConfigurationTarget.Workspace ? 'workspaceValue' : 'globalValue';
      host.set(layer, full(key), value);
    },
  };
}

const noop = (): Disposable => new Disposable();
const logChannel = (name: string) => {
  const line = (level: string) => (m: string) => void host.log.push(`[${name}] ${level} ${m}`);
  return {
    name,
    trace: line('trace'),
    debug: line('debug'),
    info: line('info'),
    warn: line('warn'),
    error: (m: string | Error) => line('error')(String(m)),
    appendLine: line('info'),
    append: line('info'),
    show: () => {},
    dispose: () => {},
  };
};
const message =
  (kind: 'info' | 'warning' | 'error') =>
  async (text: string, ...rest: unknown[]): Promise<string | undefined> => {
    const items = rest.filter((r): r is string => typeof r === 'string');
    host.messages.push({ kind, text, items });
    return host.answer(text, items);
  };

export const workspace = {
  get isTrusted(): boolean {
    return host.trusted;
  },
  onDidGrantWorkspaceTrust: trustGranted.event,
  get workspaceFolders() {
    return host.folders.length ? host.folders.map((f, index) => ({ uri: Uri.file(f), name: nodePath.basename(f), index })) : undefined;
  },
  getConfiguration: configuration,
  onDidChangeConfiguration: configChanged.event,
  onDidChangeWorkspaceFolders: noop,
  onDidSaveTextDocument: noop,
  onDidRenameFiles: noop,
  onDidDeleteFiles: noop,
  textDocuments: [] as unknown[],
  registerTextDocumentContentProvider: noop,
  openTextDocument: async (uri: Uri) => ({ uri }),
  createFileSystemWatcher(pattern: RelativePattern) {
    const base = typeof pattern.base === 'string' ? pattern.base : pattern.base.fsPath;
    host.watched.push(base);
    const w = {
      base,
      pattern: pattern.pattern,
      create: new EventEmitter<Uri>(),
      change: new EventEmitter<Uri>(),
      delete: new EventEmitter<Uri>(),
    };
    host.watchers.push(w);
    return { onDidCreate: w.create.event, onDidChange: w.change.event, onDidDelete: w.delete.event, dispose: () => {} };
  },
  fs: {
    stat: async (uri: Uri) => fs.statSync(uri.fsPath),
    createDirectory: async (uri: Uri) => void fs.mkdirSync(uri.fsPath, { recursive: true }),
    writeFile: async (uri: Uri, data: Uint8Array) => fs.writeFileSync(uri.fsPath, data),
    readFile: async (uri: Uri) => fs.readFileSync(uri.fsPath),
  },
};

export const window = {
  createOutputChannel: (name: string) => logChannel(name),
  showInformationMessage: message('info'),
  showWarningMessage: message('warning'),
  showErrorMessage: message('error'),
  showTextDocument: async () => undefined,
  showInputBox: async (options: unknown) => host.input(options),
  showQuickPick: async (items: unknown[] | Promise<unknown[]>, options: unknown) => host.pick(await items, options),
  showOpenDialog: async () => undefined,
  showWorkspaceFolderPick: async () => undefined,
  withProgress: async <T>(_o: unknown, task: (p: { report(): void }, t: CancellationTokenSource['token']) => Promise<T>) =>
    task({ report: () => {} }, new CancellationTokenSource().token),
  createTreeView: () => ({ description: undefined, message: undefined, onDidChangeVisibility: noop, reveal: async () => {}, dispose() {} }),
  createStatusBarItem: () => {
    const item: { text?: string; tooltip?: unknown; backgroundColor?: unknown; show(): void; hide(): void; dispose(): void } = {
      show() {},
      hide() {},
      dispose() {},
    };
    host.statusBarItems.push(item);
    return item;
  },
  createQuickPick: () => ({ show() {}, hide() {}, dispose() {}, onDidChangeValue: noop, onDidAccept: noop, onDidHide: noop }),
  createWebviewPanel: () => {
    throw new Error('no webviews in the vscode stub');
  },
  registerFileDecorationProvider: noop,
};

export const commands = {
  registerCommand(id: string, fn: (...args: unknown[]) => unknown): Disposable {
    host.commands.set(id, fn);
    return new Disposable(() => host.commands.delete(id));
  },
  executeCommand: async (id: string, ...args: unknown[]) => host.commands.get(id)?.(...args),
};

// No chat API, and of the language-model API only the models a test scripts (host.models): the
// extension carries on without the rest, as in editors without them.
export const chat = {};
export const lm = {
  selectChatModels: async (selector?: { family?: string }) => host.models.filter((m) => !selector?.family || m.family === selector.family),
};
