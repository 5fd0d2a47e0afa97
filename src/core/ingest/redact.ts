/**
 * Secrets never enter the memory: every text is passed through `redactSecrets` before it is stored.
 * Each secret is replaced by `[REDACTED:<kind>]`; the surrounding words (the variable name, the
 * `Bearer ` prefix, the URL's user and host) stay, so the episode still reads and still says what kind
 * of secret was there. Pure and deterministic; redacting twice changes nothing the second time.
 *
 * Tuned for precision on ordinary code as well as recall on secrets: a type annotation
 * (`password: string`), a call (`const token = getToken()`), an environment lookup
 * (`process.env.API_KEY`), a placeholder (`API_KEY=<your key>`, `${TOKEN}`), git SHAs and UUIDs are
 * left alone.
 */

export interface Redaction {
  text: string;
  /** Number of secrets replaced. */
  count: number;
  /** Kinds found, in order of first appearance, each once. */
  kinds: string[];
}

interface Rule {
  kind: string;
  re: RegExp;
  /** Returns the replacement for a match, or undefined to leave it. Default: the whole match. */
  replace?: (tag: string, m: string, ...groups: string[]) => string | undefined;
}

const tag = (kind: string): string => `[REDACTED:${kind}]`;

// Values that stand for a secret rather than being one.
const PLACEHOLDER =
  /^(?:x{3,}|\*{3,}|\.{3}|…|changeme|change[-_]?me|your[-_ a-z]*|my[-_]?(?:secret|password|token|key)|example[-_a-z]*|placeholder|dummy|fake|test|secret|password|passwd|token|redacted|null|nil|none|undefined|true|false|required|optional|todo|tbd|n\/a|string|str|number|int|any|bool|boolean|unknown|object|bytes|\*+)$/i;
const REFERENCE =
  /^(?:\$|%|<|\{\{|\[REDACTED|process\.env|os\.environ|os\.getenv|env\(|getenv|ENV\[|System\.getenv|secrets\.|vault:|ref\+|arn:)/i;

function isPlaceholder(value: string): boolean {
  const v = value.trim();
  return v.length === 0 || PLACEHOLDER.test(v) || REFERENCE.test(v) || /REDACTED/.test(v) || /^<[^>]*>$/.test(v);
}

// Names whose value is a secret: the last word of the name says so (API_KEY, dbPassword, client_secret,
// GITHUB_TOKEN). `max_tokens`, `tokenizer`, `passwordHash`, `TOKEN_LIMIT`, `publicKey` do not.
const SECRET_WORD =
  'api[_-]?key|apikey|secret|secret[_-]?key|client[_-]?secret|secret[_-]?access[_-]?key|access[_-]?key|private[_-]?key|signing[_-]?key|encryption[_-]?key|master[_-]?key|token|access[_-]?token|refresh[_-]?token|auth[_-]?token|id[_-]?token|session[_-]?token|bearer[_-]?token|password|passwd|passphrase|pwd|dsn|webhook[_-]?secret|sas[_-]?key|conn(?:ection)?[_-]?string';
const SECRET_NAME_SNAKE = new RegExp(`(?:^|[_.-])(?:${SECRET_WORD})$`, 'i');
const SECRET_NAME_CAMEL =
  /[a-z0-9](?:ApiKey|Secret|SecretKey|ClientSecret|AccessKey|PrivateKey|SigningKey|Token|AccessToken|RefreshToken|AuthToken|Password|Passwd|Passphrase)$/;

function isSecretName(name: string): boolean {
  const last = name.split('.').pop() ?? name;
  if (last === 'PWD' || last === 'OLDPWD') return false; // the shell's working directory
  return SECRET_NAME_SNAKE.test(last) || SECRET_NAME_CAMEL.test(last);
}

// A bare value that is code rather than a literal: an identifier chain, a call, an index.
const CODE_REF = /^(?:await\s+|new\s+)?[A-Za-z_$][\w$]*(?:\??\.[A-Za-z_$][\w$]*)*(?:\(|\[|!|\?|<|$)/;
const TYPE_WORDS = new Set([
  'string',
  'str',
  'number',
  'int',
  'bool',
  'boolean',
  'bytes',
  'any',
  'unknown',
  'object',
  'never',
  'void',
  'null',
  'undefined',
  'none',
  'secretstr',
  'optional',
]);

const RULES: Rule[] = [
  // Private keys: the whole block (also with literal "\n" as in JSON service-account files).
  { kind: 'private_key', re: /-----BEGIN ((?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?)-----[\s\S]*?-----END \1-----/g },
  // A pasted block that was cut before its END line: the header and the base64 lines after it.
  {
    kind: 'private_key',
    re: /-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----(?:(?:\r?\n|\\n)(?:[A-Za-z0-9+/=]{8,}(?=\r?\n|\\n|\s*$)|[A-Za-z-]+: [^\n\\]*|(?=\r?\n|\\n)))*/g,
  },

  // Provider keys and tokens, most specific first.
  { kind: 'anthropic_key', re: /\bsk-ant-[A-Za-z0-9_-]{20,}/g },
  { kind: 'openai_key', re: /\bsk-(?:proj|svcacct|admin|None)-[A-Za-z0-9_-]{20,}/g },
  { kind: 'openai_key', re: /\bsk-[A-Za-z0-9]{32,}\b/g },
  { kind: 'github_token', re: /\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{36,255}\b/g },
  { kind: 'github_token', re: /\bgithub_pat_[A-Za-z0-9_]{22,255}/g },
  { kind: 'gitlab_token', re: /\bglpat-[A-Za-z0-9_-]{20,}/g },
  { kind: 'aws_access_key', re: /\b(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}\b/g },
  {
    kind: 'aws_secret_key',
    re: /\b(aws_?secret_?access_?key|aws_?secret_?key|secret_?access_?key)(["']?\s*[:=]\s*["']?)([A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])/gi,
    replace: (t, _m, name, sep) => `${name}${sep}${t}`,
  },
  { kind: 'google_api_key', re: /\bAIza[0-9A-Za-z_-]{35}(?![0-9A-Za-z_-])/g },
  { kind: 'google_oauth_token', re: /\bya29\.[0-9A-Za-z_-]{20,}/g },
  { kind: 'slack_token', re: /\bxox[abposr]-[A-Za-z0-9-]{10,}/g },
  { kind: 'slack_webhook', re: /https:\/\/hooks\.slack\.com\/services\/[A-Za-z0-9/]{20,}/g },
  { kind: 'stripe_key', re: /\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}/g },
  { kind: 'stripe_webhook_secret', re: /\bwhsec_[A-Za-z0-9]{24,}/g },
  { kind: 'npm_token', re: /\bnpm_[A-Za-z0-9]{36}\b/g },
  { kind: 'huggingface_token', re: /\bhf_[A-Za-z0-9]{30,}\b/g },
  { kind: 'jwt', re: /\beyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}/g },

  // Authorization headers.
  {
    kind: 'bearer_token',
    re: /\b(Bearer\s+)([A-Za-z0-9\-._~+/]{16,}=*)/gi,
    replace: (t, _m, prefix, token) => (/\d/.test(token!) && !isPlaceholder(token!) ? `${prefix}${t}` : undefined),
  },
  {
    kind: 'basic_auth',
    re: /\b(Authorization\s*[:=]\s*["']?Basic\s+)([A-Za-z0-9+/]{8,}={0,2})/gi,
    replace: (t, _m, prefix) => `${prefix}${t}`,
  },

  // Passwords in URLs: scheme://user:password@host, and secret query parameters.
  {
    kind: 'url_password',
    re: /\b([a-z][a-z0-9+.-]{1,20}:\/\/)([^\s:/@?#'"`]+):([^\s@/?#'"`]+)@/gi,
    replace: (t, _m, scheme, user, pass) => (isPlaceholder(pass!) || /REDACTED/.test(user!) ? undefined : `${scheme}${user}:${t}@`),
  },
  {
    kind: 'url_password',
    re: /([?&](?:password|passwd|pwd|pass|access_token|api_key|apikey|token|client_secret|secret|sig)=)([^&;\s'"#`]+)/gi,
    replace: (t, _m, prefix, value) => (isPlaceholder(value!) || value!.length < 4 ? undefined : `${prefix}${t}`),
  },

  // Azure storage / Service Bus keys inside connection strings.
  {
    kind: 'connection_string',
    re: /(\b(?:AccountKey|SharedAccessKey)\s*=\s*)([A-Za-z0-9+/=]{16,})/g,
    replace: (t, _m, prefix) => `${prefix}${t}`,
  },

  // Command-line flags: --password hunter2, --token=abc123.
  {
    kind: 'cli_secret',
    re: /(--(?:password|passwd|token|api-key|apikey|secret|client-secret|auth-token|access-token)(?:=|\s+))(["']?)([^\s"']+)\2/gi,
    replace: (t, _m, flag, quote, value) =>
      isPlaceholder(value!) || value!.startsWith('-') || value!.length < 4 ? undefined : `${flag}${quote}${t}${quote}`,
  },
];

// ADO-style connection strings (`Server=db;User Id=app;Password=…;`): the password of a line that is one.
const ADO_LINE =
  /\b(?:Server|Data Source|Host|Uid|User ?Id|Username|Database|Initial Catalog|Address|Addr|Integrated Security|Trusted_Connection)\s*=/i;
const ADO_PASSWORD = /((?:^|[;"'\s])(?:Password|Pwd)\s*=\s*)("[^"\n]*"|'[^'\n]*'|\{[^}\n]*\}|[^;"'\s]+)/gi;

function redactConnectionStrings(text: string, note: (kind: string) => void): string {
  return text
    .split('\n')
    .map((line) => {
      if (!line.includes(';') || !ADO_LINE.test(line)) return line;
      return line.replace(ADO_PASSWORD, (whole, prefix: string, value: string) => {
        const quote = /^["'{]/.test(value) ? value[0]! : '';
        const inner = quote ? value.slice(1, -1) : value;
        if (isPlaceholder(inner)) return whole;
        note('connection_string');
        return `${prefix}${quote}${tag('connection_string')}${quote ? value[value.length - 1] : ''}`;
      });
    })
    .join('\n');
}

// `.env` lines, config files and code: NAME=value, name: value, "name": "value", name = 'value'.
// Values are bounded and an unquoted one stops at "=" (base64 padding aside), so a rejected
// match costs little and text like "a=b=c=…" cannot make the scan quadratic.
const ASSIGNMENT =
  /(^|[^\w$.\-])(["']?)([A-Za-z_][\w.\-]*)\2([ \t]*(?::=|=(?![=>~])|:(?!:))[ \t]*)("(?:[^"\\\n]|\\.){0,400}"|'(?:[^'\\\n]|\\.){0,400}'|`[^`\n]{0,400}`|[^\s,;#'"`)}\]=]{1,400}={0,2})/gm;

function isSecretValue(name: string, sep: string, value: string, rest: string): boolean {
  const quoted = /^["'`]/.test(value);
  const inner = quoted ? value.slice(1, -1) : value;
  if (isPlaceholder(inner) || inner.toLowerCase() === name.toLowerCase()) return false;
  // `.env` / shell: API_KEY=abc, export DB_PASSWORD=hunter2, DB_PASSWORD="a pass phrase".
  if (/^[A-Z][A-Z0-9_]*$/.test(name) && sep.includes('=')) return true;
  // A literal is a secret unless it is prose (a label such as "Enter your password").
  if (quoted) return inner.length >= 4 && !/\s/.test(inner);
  if (/[({[]/.test(value)) return false;
  const lineEnd = rest.trim() === '' || rest.trim().startsWith('#');
  const yamlLike = sep.includes(':') && lineEnd;
  if (!CODE_REF.test(value)) return value.length >= (yamlLike ? 4 : 6);
  // An identifier: a YAML value (`password: hunter2`) or code (`password: string`, `token: Token`,
  // `secret = loadSecret`, `apiKey: config.apiKey`).
  if (value.includes('.') || /^[A-Z]/.test(value) || /[a-z][A-Z]/.test(value) || TYPE_WORDS.has(value.toLowerCase())) return false;
  if (yamlLike) return value.length >= 4;
  return /\d/.test(value) && /[a-z]/i.test(value) && value.length >= 6;
}

/** What follows a match on its line, at most 200 characters (enough to see a comment or more code). */
function restOfLine(text: string, from: number): string {
  const window = text.slice(from, from + 200);
  const nl = window.indexOf('\n');
  return nl === -1 ? window : window.slice(0, nl);
}

function redactAssignments(text: string, note: (kind: string) => void): string {
  // A manual scan rather than String.replace: when a match is not a secret ("deploy: JWT_SECRET=…"
  // matches as name "deploy"), scanning resumes right after its name, so an assignment inside
  // the rejected value is still found.
  const re = new RegExp(ASSIGNMENT.source, ASSIGNMENT.flags);
  let out = '';
  let copied = 0;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    const [whole, lead, q, name, sep, value] = m as unknown as [string, string, string, string, string, string];
    const secret = isSecretName(name) && isSecretValue(name, sep, value, restOfLine(text, m.index + whole.length));
    if (!secret) {
      re.lastIndex = m.index + lead.length + q.length + name.length;
      continue;
    }
    note('secret_assignment');
    const replaced = /^["'`]/.test(value) ? `${value[0]}${tag('secret_assignment')}${value[value.length - 1]}` : tag('secret_assignment');
    out += text.slice(copied, m.index) + `${lead}${q}${name}${q}${sep}${replaced}`;
    copied = m.index + whole.length;
  }
  return out + text.slice(copied);
}

/** Replaces every secret found in `text` with `[REDACTED:<kind>]`. */
export function redactSecrets(text: string): Redaction {
  if (typeof text !== 'string' || text.length === 0) return { text: typeof text === 'string' ? text : '', count: 0, kinds: [] };
  let count = 0;
  const kinds: string[] = [];
  const note = (kind: string): void => {
    count++;
    if (!kinds.includes(kind)) kinds.push(kind);
  };
  let out = text;
  for (const rule of RULES) {
    out = out.replace(rule.re, (m: string, ...args: unknown[]): string => {
      const groups = args.slice(0, -2).map((g) => (g === undefined ? '' : String(g)));
      const replacement = rule.replace ? rule.replace(tag(rule.kind), m, ...groups) : tag(rule.kind);
      if (replacement === undefined) return m;
      note(rule.kind);
      return replacement;
    });
  }
  out = redactConnectionStrings(out, note);
  out = redactAssignments(out, note);
  return { text: out, count, kinds };
}
