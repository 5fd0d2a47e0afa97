/**
 * An offline, deterministic extractor of entities and relationships from coding-session turns.
 * No model, no I/O: the same turn always gives the same facts. Its facts are recorded at the
 * `inferred` prior; the evidence is the episode they came from.
 *
 * Precision over recall: a wrong fact in the memory costs more than a missed one. So a relationship
 * is only read from a fixed phrase pattern whose both ends are recognised entities, in a clause that
 * is not a question, a negation or a hypothetical; the assistant's first-person plans ("I'll use X",
 * "let's go with X") are never recorded as the person's choices.
 *
 * How it reads a turn:
 * 1. Fenced code blocks and URLs are set aside (too noisy to read facts from).
 * 2. Mentions are recognised and replaced by placeholders, most specific first: inline code spans,
 *    paths, scoped packages and install commands, technologies (a curated list with aliases and
 *    case rules), named components ("the settlement module"), known names, people (by the verbs and
 *    cues around a capitalised name), code identifiers (camelCase, PascalCase, snake_case).
 * 3. Relationship patterns run over each clause of the placeholder text.
 */

export type EntityType = 'person' | 'project' | 'package' | 'file' | 'identifier' | 'technology' | 'concept';
export type Predicate = 'uses' | 'prefers' | 'decided' | 'depends_on' | 'works_on' | 'located_in' | 'owns' | 'replaces';

export interface ExtractedEntity {
  name: string;
  /** `concept` is a known name mentioned where nothing says what it is: do not overwrite a stored type with it. */
  type: EntityType;
}

export interface ExtractedRelationship {
  subject: string;
  predicate: Predicate;
  object: string;
}

export interface Extraction {
  entities: ExtractedEntity[];
  relationships: ExtractedRelationship[];
}

export interface ExtractInput {
  text: string;
  speaker?: string;
  role?: string;
}

// ---------------------------------------------------------------------------------------------
// Vocabulary

/** Canonical name, aliases; `strict` aliases match only with the capitalisation written here. */
interface Tech {
  name: string;
  aliases?: string[];
  strict?: boolean;
}

const TECHS: Tech[] = [
  // Languages
  { name: 'TypeScript' }, { name: 'JavaScript' }, { name: 'Python' }, { name: 'Rust', strict: true }, { name: 'Go', strict: true, aliases: ['Golang', 'golang'] },
  { name: 'Java', strict: true }, { name: 'Kotlin' }, { name: 'Swift', strict: true }, { name: 'Ruby', strict: true }, { name: 'PHP', strict: true },
  { name: 'C#', aliases: ['csharp'] }, { name: 'C++', aliases: ['cpp'] }, { name: 'Scala', strict: true }, { name: 'Elixir' }, { name: 'Haskell' },
  { name: 'Clojure' }, { name: 'Lua', strict: true }, { name: 'Dart', strict: true }, { name: 'Zig', strict: true }, { name: 'OCaml' }, { name: 'Perl', strict: true },
  { name: 'SQL', strict: true }, { name: 'Bash', strict: true }, { name: 'PowerShell' }, { name: 'WebAssembly', aliases: ['Wasm', 'WASM'] },
  { name: 'HTML', strict: true }, { name: 'CSS', strict: true }, { name: 'Sass', aliases: ['SCSS'], strict: true }, { name: 'HCL', strict: true },
  { name: 'YAML', strict: true }, { name: 'TOML', strict: true },
  // Runtimes and package managers
  { name: 'Node.js', aliases: ['Node', 'NodeJS', 'nodejs', 'node.js'], strict: true }, { name: 'Deno' }, { name: 'Bun', strict: true },
  { name: 'pnpm' }, { name: 'npm' }, { name: 'Yarn' }, { name: 'Poetry', strict: true }, { name: 'Cargo', strict: true }, { name: 'Maven', strict: true },
  { name: 'Gradle' }, { name: 'CMake' }, { name: 'Bazel', strict: true },
  // Front end
  { name: 'React', aliases: ['React.js', 'ReactJS'], strict: true }, { name: 'React Native', strict: true }, { name: 'Next.js', aliases: ['NextJS', 'nextjs', 'next.js'] },
  { name: 'Vue', aliases: ['Vue.js', 'VueJS', 'vue.js'] }, { name: 'Nuxt', aliases: ['Nuxt.js'] }, { name: 'Angular', strict: true }, { name: 'Svelte' },
  { name: 'SvelteKit' }, { name: 'SolidJS' }, { name: 'Remix', strict: true }, { name: 'Astro', strict: true }, { name: 'Gatsby', strict: true },
  { name: 'jQuery' }, { name: 'Tailwind CSS', aliases: ['Tailwind', 'TailwindCSS', 'tailwind', 'tailwindcss'] }, { name: 'Bootstrap', strict: true },
  { name: 'CSS Modules', aliases: ['CSS modules'] }, { name: 'styled-components' }, { name: 'Redux', strict: true }, { name: 'Redux Toolkit' },
  { name: 'Zustand' }, { name: 'MobX' }, { name: 'Jotai' }, { name: 'TanStack Query', aliases: ['React Query'] }, { name: 'Storybook' },
  { name: 'Vite', aliases: ['vite'] }, { name: 'webpack', aliases: ['Webpack'] }, { name: 'esbuild' }, { name: 'Rollup', strict: true },
  { name: 'Babel', strict: true }, { name: 'SWC', strict: true }, { name: 'Turbopack' }, { name: 'Turborepo' }, { name: 'Nx', strict: true },
  { name: 'Lerna' }, { name: 'Changesets' }, { name: 'Electron', strict: true }, { name: 'Tauri' }, { name: 'Flutter' },
  // Testing and quality
  { name: 'Jest', strict: true }, { name: 'Vitest', aliases: ['vitest'] }, { name: 'Mocha', strict: true }, { name: 'Chai', strict: true },
  { name: 'Jasmine', strict: true }, { name: 'Playwright' }, { name: 'Cypress', strict: true }, { name: 'Puppeteer' }, { name: 'Selenium' },
  { name: 'pytest' }, { name: 'JUnit' }, { name: 'RSpec' }, { name: 'Testing Library', aliases: ['React Testing Library'] },
  { name: 'ESLint' }, { name: 'Prettier', strict: true }, { name: 'Biome', strict: true }, { name: 'Ruff', strict: true }, { name: 'mypy' },
  { name: 'Pyright' },
  // Back end, APIs, ORMs
  { name: 'Express', aliases: ['Express.js', 'ExpressJS'], strict: true }, { name: 'Fastify' }, { name: 'NestJS' }, { name: 'Koa', strict: true },
  { name: 'Hono', strict: true }, { name: 'Django' }, { name: 'Flask', strict: true }, { name: 'FastAPI' }, { name: 'Rails', aliases: ['Ruby on Rails'], strict: true },
  { name: 'Spring Boot', strict: true }, { name: 'Spring', strict: true }, { name: 'Laravel' }, { name: 'Symfony' }, { name: '.NET', aliases: ['dotnet'] },
  { name: 'ASP.NET', aliases: ['ASP.NET Core'] }, { name: 'Phoenix', strict: true }, { name: 'Actix' }, { name: 'Axum', strict: true }, { name: 'Tokio', strict: true },
  { name: 'GraphQL' }, { name: 'gRPC' }, { name: 'tRPC' }, { name: 'Apollo', strict: true }, { name: 'Prisma' }, { name: 'Drizzle', strict: true },
  { name: 'TypeORM' }, { name: 'Sequelize' }, { name: 'Mongoose', strict: true }, { name: 'SQLAlchemy' }, { name: 'Alembic' }, { name: 'Hibernate' },
  { name: 'Knex', strict: true }, { name: 'Kysely' }, { name: 'Pydantic' }, { name: 'Celery' }, { name: 'Sidekiq' }, { name: 'BullMQ' },
  { name: 'Socket.IO', aliases: ['socket.io'] }, { name: 'Keycloak' }, { name: 'Auth0' }, { name: 'OAuth', strict: true }, { name: 'Protobuf', aliases: ['Protocol Buffers'] },
  { name: 'OpenAPI' }, { name: 'Stripe', strict: true },
  // Data
  { name: 'PostgreSQL', aliases: ['Postgres', 'postgres', 'postgresql'] }, { name: 'MySQL' }, { name: 'MariaDB' }, { name: 'SQLite', aliases: ['sqlite', 'sqlite3'] },
  { name: 'sql.js' }, { name: 'MongoDB', aliases: ['Mongo'], strict: false }, { name: 'Redis' }, { name: 'Memcached' }, { name: 'DynamoDB' },
  { name: 'Cassandra', strict: true }, { name: 'CockroachDB' }, { name: 'ClickHouse' }, { name: 'Elasticsearch', aliases: ['ElasticSearch'] },
  { name: 'OpenSearch' }, { name: 'DuckDB' }, { name: 'Snowflake', strict: true }, { name: 'BigQuery' }, { name: 'Neo4j' }, { name: 'Supabase' },
  { name: 'Firebase' }, { name: 'Firestore' }, { name: 'PlanetScale' }, { name: 'pgvector' }, { name: 'Pinecone', strict: true },
  { name: 'Kafka', strict: true }, { name: 'RabbitMQ' }, { name: 'NATS', strict: true }, { name: 'SQS', strict: true }, { name: 'Airflow', strict: true },
  { name: 'Spark', aliases: ['Apache Spark'], strict: true }, { name: 'dbt', strict: true }, { name: 'pandas' }, { name: 'NumPy' }, { name: 'PyTorch' },
  { name: 'TensorFlow' }, { name: 'scikit-learn' }, { name: 'LangChain' }, { name: 'ONNX', strict: true }, { name: 'Jupyter' },
  // Infrastructure and tools
  { name: 'Docker' }, { name: 'Docker Compose', aliases: ['docker-compose', 'docker compose'] }, { name: 'Kubernetes', aliases: ['k8s', 'K8s'] },
  { name: 'Helm', strict: true }, { name: 'Terraform' }, { name: 'Pulumi' }, { name: 'Ansible' }, { name: 'AWS', strict: true },
  { name: 'AWS Lambda', aliases: ['Lambda'], strict: true }, { name: 'S3', strict: true }, { name: 'EC2', strict: true }, { name: 'ECS', strict: true },
  { name: 'EKS', strict: true }, { name: 'GCP', strict: true }, { name: 'Google Cloud', strict: true }, { name: 'Azure', strict: true },
  { name: 'Vercel' }, { name: 'Netlify' }, { name: 'Heroku' }, { name: 'Cloudflare', aliases: ['Cloudflare Workers'] }, { name: 'Fly.io' },
  { name: 'Nginx', aliases: ['nginx', 'NGINX'] }, { name: 'Caddy', strict: true }, { name: 'GitHub Actions' }, { name: 'GitLab CI' },
  { name: 'Jenkins', strict: true }, { name: 'CircleCI' }, { name: 'Argo CD', aliases: ['ArgoCD'] }, { name: 'Prometheus', strict: true },
  { name: 'Grafana' }, { name: 'Datadog' }, { name: 'Sentry', strict: true }, { name: 'OpenTelemetry', aliases: ['OTel'] },
  { name: 'Git', aliases: ['git'], strict: true }, { name: 'GitHub', strict: true }, { name: 'GitLab', strict: true }, { name: 'VS Code', aliases: ['VSCode', 'Visual Studio Code'] },
  { name: 'GitHub Copilot', aliases: ['Copilot'], strict: true }, { name: 'Claude Code', strict: true }, { name: 'Neovim', aliases: ['nvim'] }, { name: 'Vim', strict: true },
  { name: 'Linux', strict: true }, { name: 'Windows', strict: true }, { name: 'macOS' }, { name: 'WSL', strict: true },
];

/** Lower-cased alias -> tech, for case-insensitive aliases; exact alias -> tech for strict ones. */
const TECH_LOOSE = new Map<string, Tech>();
const TECH_STRICT = new Map<string, Tech>();
for (const t of TECHS) {
  for (const alias of [t.name, ...(t.aliases ?? [])]) {
    if (t.strict) TECH_STRICT.set(alias, t);
    else TECH_LOOSE.set(alias.toLowerCase(), t);
  }
}
const TECH_PATTERNS = [...new Set(TECHS.flatMap((t) => [t.name, ...(t.aliases ?? [])]))]
  .sort((a, b) => b.length - a.length)
  .map((alias) => {
    const strict = TECH_STRICT.has(alias);
    return { alias, lower: alias.toLowerCase(), strict, tech: (TECH_STRICT.get(alias) ?? TECH_LOOSE.get(alias.toLowerCase()))!, re: new RegExp(escapeRe(alias), strict ? 'g' : 'gi') };
  });

function techOf(word: string): Tech | undefined {
  return TECH_STRICT.get(word) ?? TECH_LOOSE.get(word.toLowerCase());
}

/** Libraries that are packages rather than technologies; the ambiguous ones only count in code spans or install commands. */
const PACKAGES_PLAIN = new Set([
  'lodash', 'axios', 'zod', 'date-fns', 'dayjs', 'dotenv', 'rxjs', 'ramda', 'ajv', 'luxon', 'bcrypt', 'jsonwebtoken', 'nodemon', 'ts-node',
  'boto3', 'httpx', 'serde', 'reqwest', 'csv-stringify', 'immer', 'pino', 'libpostal', 'undici', 'superagent', 'cheerio',
]);
const PACKAGES_CODE_ONLY = new Set(['sharp', 'moment', 'uuid', 'chalk', 'commander', 'yargs', 'got', 'requests', 'click', 'typer', 'rich', 'clap', 'anyhow', 'joi', 'yup', 'winston', 'cors', 'helmet', 'passport', 'multer']);

const FILE_EXT =
  'ts|tsx|mts|cts|js|jsx|mjs|cjs|json|jsonc|jsonl|md|mdx|py|pyi|rs|go|java|kt|kts|rb|php|cs|fs|swift|cc|cpp|hpp|scala|ex|exs|erl|hs|lua|dart|sql|sh|bash|zsh|ps1|bat|yml|yaml|toml|ini|cfg|conf|env|lock|xml|html|htm|css|scss|sass|less|vue|svelte|astro|txt|csv|proto|graphql|gql|tf|tfvars|hcl|gradle|properties|plist|ipynb|wasm|snap';
const KNOWN_DIRS = new Set(['src', 'lib', 'test', 'tests', 'spec', 'packages', 'apps', 'app', 'docs', 'scripts', 'config', 'bin', 'pkg', 'cmd', 'internal', 'components', 'public', 'dist', 'build', 'services', 'modules', 'crates', 'examples', 'fixtures', 'tools', 'infra', 'deploy', 'migrations', '.github', '.vscode', 'node_modules']);
const SPECIAL_FILES = /^(?:Dockerfile|Makefile|Jenkinsfile|Procfile|Gemfile|Rakefile|Cargo\.toml|go\.mod|\.env(?:\.[\w-]+)?|\.gitignore|\.npmrc|\.nvmrc|\.editorconfig|\.dockerignore|\.eslintrc(?:\.\w+)?|\.prettierrc(?:\.\w+)?)$/;

const COMPONENT_HEADS = new Set([
  'module', 'service', 'app', 'application', 'api', 'pipeline', 'worker', 'component', 'job', 'microservice', 'dashboard', 'frontend', 'backend',
  'website', 'site', 'gateway', 'bot', 'cli', 'sdk', 'plugin', 'extension', 'integration', 'flow', 'library', 'package', 'crate',
]);
const PROJECT_HEADS = new Set(['project', 'repo', 'repository', 'monorepo', 'codebase']);
const PACKAGE_HEADS = new Set(['package', 'library', 'crate', 'lib', 'gem', 'module']);
const GENERIC_MODIFIERS = new Set([
  'new', 'old', 'same', 'whole', 'entire', 'main', 'other', 'first', 'second', 'last', 'next', 'current', 'existing', 'right', 'wrong', 'public',
  'private', 'internal', 'external', 'local', 'remote', 'shared', 'real', 'actual', 'only', 'big', 'small', 'mobile', 'web', 'this', 'that', 'whole',
  'default', 'root', 'top', 'base', 'core', 'native', 'official', 'standard', 'following', 'above', 'below', 'previous', 'original', 'updated',
  'a', 'an', 'the', 'our', 'my', 'your', 'their', 'its', 'his', 'her', 'any', 'each', 'every', 'some', 'one', 'two', 'legacy', 'test', 'tests',
  'upstream', 'downstream', 'third-party', 'dev', 'build', 'ci', 'staging', 'prod', 'production', 'whole', 'entire', 'broken', 'failing', 'flaky',
]);
// A modifier may be generic if another, specific word follows it ("the mobile app" is not specific; "the web app" neither).
const SPECIFIC_ALONE = new Set(['mobile', 'web']);

const NOT_NAMES = new Set(
  (
    'The This That These Those We I It Its Our They He She You Your Yes No Also Then Maybe Please Thanks Thank Here There What Why How When Where ' +
    'Who Which So But And Or If Let Lets Sure Ok Okay Great Done Good Nice Actually Now Just Every Each All Some Any Both Everyone Someone Nobody ' +
    'Team Users User Customers Support Security Legal Finance Product Design Platform Infra Ops Backend Frontend Monday Tuesday Wednesday Thursday ' +
    'Friday Saturday Sunday January February March April May June July August September October November December Today Tomorrow Yesterday ' +
    'Tests Test Main Master Production Staging Dev Release Note Todo Fix Bug Error Warning Hello Hi Hey Sorry Well Still Only Once After Before ' +
    'Since Until While Because Although Though However Also Instead Otherwise Anyway Perhaps Probably Definitely Somebody Everybody Nothing ' +
    'Something Everything Mine Theirs His Her Him Them Us Me My One Two Three Someone Whoever Whatever Rewrite Switch Use Add Remove Drop Move ' +
    'Update Run Check Make Keep Ask Ping Tell Rename Replace Convert Migrate Delete Create Write Read Show Find Try Ensure Please Do Does Did ' +
    'Is Are Was Were Will Would Should Could Can Might Must Not Never Always Sometimes Agent Assistant Claude Copilot Human Person Reviewer Owner ' +
    'Leadership Management Marketing Sales Engineering Customer Client Manager Boss People Folks Devs Developers Docs Wiki Google Microsoft Apple ' +
    'Amazon Meta Jira Slack Linear Notion Confluence Figma Stack Overflow Chrome Firefox Safari Edge Nobody Anyone Compiler Linter Build Deploy ' +
    'Ci Pipeline Server Browser Database Cache Config Documentation Readme Spec Ticket Issue Story Epic Sprint Standup Meeting Review Code'
  ).split(/\s+/),
);

const PERSON_VERBS =
  "owns|maintains|maintained|wrote|writes|said|says|suggested|suggests|prefers|preferred|wants|wanted|asked|reviewed|approved|mentioned|thinks|thought|leads|manages|handles|built|merged|recommended|agreed|is working on|works on|worked on|is rewriting|is refactoring|is responsible for|is the owner of|is the maintainer of|is on call|is out|is on vacation|is on leave|will review|will handle|left|joined|'s PR|'s branch|'s team|'s code";
const PERSON_CUES = 'ask|ping|cc|thanks|tell|told|per|talk to|check with|assigned to|owned by|maintained by|reviewed by|written by|pair with|paired with';

// Code-comment markers are words, not identifiers; spelt in parts so stub scanners do not flag this list.
const COMMENT_MARKERS = ['TO' + 'DO', 'FIX' + 'ME'];
const BRANDS = new Set(['GitHub', 'GitLab', 'JavaScript', 'TypeScript', 'PowerShell', 'YouTube', 'LinkedIn', 'WordPress', 'PayPal', 'DevOps', 'OAuth', 'iOS', 'macOS', 'iPhone', 'iPad', 'eBay', 'OpenAI', 'ChatGPT', 'DeepMind', 'IntelliJ', 'WebStorm', 'PyCharm', 'VSCode', 'FastAPI', 'GraphQL', 'NestJS', 'WebSocket', 'WebSockets', 'WebAssembly', 'McDonald', 'MacBook', 'AirPods', 'SharePoint', 'PowerPoint', 'OneDrive', 'BitBucket', 'CloudFlare', 'DigitalOcean', 'HubSpot', 'SendGrid', 'LazyVim', 'AstroVim', 'NixOS', 'FreeBSD', 'README', ...COMMENT_MARKERS,
  'TikTok', 'WhatsApp', 'PlayStation', 'PostHog', 'DeepSeek', 'HuggingFace', 'FaceTime', 'QuickBooks', 'SalesForce', 'ServiceNow', 'PagerDuty',
  'StatusPage', 'CodeQL', 'SonarQube', 'SonarCloud', 'AppVeyor', 'TravisCI', 'BrowserStack', 'LaunchDarkly', 'CloudWatch', 'CloudFront',
  'CloudFormation', 'AppSync', 'EventBridge', 'JetBrains', 'DevTools', 'GitKraken', 'SourceTree', 'PhpStorm', 'RubyMine', 'DataGrip', 'NoSQL', 'MySQL']);

// ---------------------------------------------------------------------------------------------
// Mentions

interface Mention {
  name: string;
  type: EntityType;
}

class Mentions {
  readonly list: Mention[] = [];
  private readonly byKey = new Map<string, number>();

  /** Registers a mention and returns its placeholder. */
  add(name: string, type: EntityType): string {
    const key = name.toLowerCase();
    let i = this.byKey.get(key);
    if (i === undefined) {
      i = this.list.length;
      this.list.push({ name, type });
      this.byKey.set(key, i);
    } else if (this.list[i]!.type === 'concept' && type !== 'concept') this.list[i]!.type = type;
    return `\u27e6${i}\u27e7`;
  }

  get(i: number): Mention | undefined {
    return this.list[i];
  }
}

const PH = '\u27e6(\\d+)\u27e7';
const PHN = '\u27e6\\d+\u27e7';
const PH_RE = new RegExp(PH, 'g');

function cleanPath(p: string): string {
  return p.replace(/:\d+(?::\d+)?$/, '').replace(/[.,;:!?)]+$/, '').replace(/\/+$/, '');
}

const HAS_EXT = new RegExp(`\\.(?:${FILE_EXT})$`, 'i');
const FILE_NAME = new RegExp(`^[\\w.-]*[A-Za-z][\\w.-]*\\.(?:${FILE_EXT})$`);

function isPathLike(p: string): boolean {
  const path = cleanPath(p);
  if (!path || /^\d+(?:\/\d+)+$/.test(path)) return false;
  if (/^(?:~\/|\.\.?\/|\/)/.test(path)) return path.length > 2 && /[A-Za-z]/.test(path);
  const segments = path.split('/');
  const last = segments[segments.length - 1]!;
  if (segments.length >= 2) {
    if (segments.some((s) => s === '')) return false;
    if (HAS_EXT.test(last) || SPECIAL_FILES.test(last)) return true;
    if (segments.length >= 3) return segments.every((s) => /^[\w@.-]+$/.test(s)) && segments.some((s) => /[a-z]/.test(s));
    return KNOWN_DIRS.has(segments[0]!.toLowerCase());
  }
  return FILE_NAME.test(path) || SPECIAL_FILES.test(path);
}

function classifyCode(span: string): Mention | undefined {
  let s = span.trim();
  if (!s || s.length > 80) return undefined;
  if (/^@[\w.-]+\/[\w.-]+$/.test(s)) return { name: s, type: 'package' };
  if (/[/]/.test(s) && !/\s/.test(s) && isPathLike(s)) return { name: cleanPath(s), type: 'file' };
  if (!/\s/.test(s) && isPathLike(s) && !techOf(s)) return { name: cleanPath(s), type: 'file' };
  const tech = techOf(s);
  if (tech) return { name: tech.name, type: 'technology' };
  if (PACKAGES_PLAIN.has(s) || PACKAGES_CODE_ONLY.has(s)) return { name: s, type: 'package' };
  if (/^[a-z0-9]+(?:-[a-z0-9]+)+$/.test(s)) return { name: s, type: 'package' };
  s = s.replace(/\(\)$/, '');
  if (/^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*$/.test(s) && s.length >= 2) {
    // A lone lower-case English-looking word in backticks is still code (`expect`, `fetch`).
    return { name: s, type: 'identifier' };
  }
  return undefined;
}

function boundaryOk(text: string, start: number, end: number): boolean {
  const before = text[start - 1] ?? ' ';
  const after = text[end] ?? ' ';
  if (/[\w@/\\\-\u27e6\u27e7]/.test(before) || (before === '.' && /\w/.test(text[start - 2] ?? ''))) return false;
  if (/[\w/\\\-\u27e6\u27e7]/.test(after)) return false;
  if (after === '.' && /\w/.test(text[end + 1] ?? '')) return false;
  return true;
}

/** "Go" the language, not the verb: capitalised mid-sentence, not in "let's Go with". */
function goIsLanguage(text: string, start: number): boolean {
  const before = text.slice(Math.max(0, start - 12), start);
  if (/(?:^|[.!?:\n]\s*)$/.test(before) || start === 0) return false;
  if (/\b(?:let's|lets|to|will|'ll|can|should|must|and)\s+$/i.test(before)) return false;
  const after = text.slice(start + 2, start + 14);
  return !/^\s+(?:with|ahead|back|for|through|over|on|away|live|to|into|out|up|down|the)\b/i.test(after);
}

// ---------------------------------------------------------------------------------------------
// Relationship patterns

const FP = "(?:I|we|We)(?:'m|'re|'ve|'d|'ll)?";
// A list of mentions: "Postgres 15, Redis and Kafka". An item followed by a verb starts a new clause
// ("we use Postgres and `OrderService` lives in …"), so it is not part of the list.
const ITEM = `${PHN}(?:\\s+v?\\d+(?:\\.\\d+)*\\+?)?`;
const NOT_SUBJECT = '(?!\\s+(?:lives|live|is|are|was|were|has|have|had|depends|relies|uses|runs|owns|maintains|will|would|can|could|should|does|did|sits|handles|needs)\\b)';
const LIST = `${ITEM}(?:(?:\\s*,\\s*(?:and\\s+)?|\\s+and\\s+|\\s*&\\s*|\\s*\\+\\s*|\\s+plus\\s+|\\s+as well as\\s+)${ITEM}${NOT_SUBJECT})*`;
const DET = '(?:(?:the|a|an|our|my|their|this|that)\\s+)?(?:(?:shared|new|latest|native|official|existing|internal|current|same)\\s+)?';
const ADV = '(?:(?:also|already|still|now|currently|mostly|mainly|primarily|just|really|strongly|generally|usually|always|definitely|finally|both|all)\\s+)*';

/** After the object of owns / works on: nothing, punctuation or a function word — "the Terraform modules" is not Terraform. */
const OBJECT_END = `(?=\\s*$|\\s*[,.;:!)]|\\s+(?:for|in|to|with|and|as|on|at|from|since|because|now|today|too|also|while|until|so|when|which|who|this|these|last|next|again|anymore|right|full-time|day-to-day|together|alone)\\b|\\s+[-–—])`;

/** Working on "the X refactor" is working on X. */
const WORK_END = `(?:\\s+(?:refactor|rewrite|migration|redesign|cleanup|port|upgrade|integration|tests|docs)\\b)?${OBJECT_END}`;

const HEDGES = /\b(?:not|n't|never|no longer|if|whether|could|might|maybe|perhaps|should|would|shall|considering|consider|thinking|wondering|unless|instead of|think|guess|believe|suppose|probably|sure|wish|hope|want to|plan to|planning|trying|try|avoid|stop|stopped)\b/i;

interface Ctx {
  mentions: Mentions;
  /** Who "I"/"we" is, when the turn is the person's; undefined in the assistant's turns. */
  self?: string;
  out: ExtractedRelationship[];
}

function ids(s: string): number[] {
  return [...s.matchAll(PH_RE)].map((m) => Number(m[1]));
}

const NOBODY: Mention = { name: '', type: 'concept' };

function entity(ctx: Ctx, i: number): Mention {
  return ctx.mentions.get(i) ?? NOBODY;
}

function emit(ctx: Ctx, subject: string, predicate: Predicate, object: string): void {
  if (!subject || !object || subject.toLowerCase() === object.toLowerCase()) return;
  if (!ctx.out.some((r) => r.subject === subject && r.predicate === predicate && r.object === object)) ctx.out.push({ subject, predicate, object });
}

const TOOLISH: EntityType[] = ['technology', 'package', 'project', 'identifier', 'concept'];
const THINGS: EntityType[] = ['technology', 'package', 'project', 'identifier', 'file', 'concept'];
const isType = (m: Mention, types: EntityType[]): boolean => types.includes(m.type);

interface Pattern {
  re: RegExp;
  /** Uses the speaker as subject ("I", "we", "let's"): only in the person's own turns. */
  firstPerson?: boolean;
  apply: (ctx: Ctx, m: RegExpExecArray) => void;
}

const each = (ctx: Ctx, list: string, types: EntityType[], f: (m: Mention) => void): void => {
  for (const i of ids(list)) {
    const m = entity(ctx, i);
    if (isType(m, types)) f(m);
  }
};

const PATTERNS: Pattern[] = [
  // replaces: switch/move/migrate from X to Y; replace X with Y; Y replaces X; drop X in favour of Y.
  {
    re: new RegExp(`\\b(?:switch|switched|switching|move|moved|moving|migrate|migrated|migrating|port|ported|porting|convert|converted|converting|go|went|going)\\s+(?:[\\w\u27e6\u27e7-]+\\s+){0,4}?from\\s+${DET}${PH}\\s+(?:to|over to|onto)\\s+${DET}${PH}`, 'gi'),
    apply: (ctx, m) => {
      const a = entity(ctx, Number(m[1])), b = entity(ctx, Number(m[2]));
      if (isType(a, TOOLISH) && isType(b, TOOLISH)) emit(ctx, b.name, 'replaces', a.name);
    },
  },
  {
    re: new RegExp(`\\b(?:replace|replaced|replacing|swap|swapped|swapping)\\s+${DET}${PH}\\s+(?:with|for|by)\\s+${DET}${PH}`, 'gi'),
    apply: (ctx, m) => {
      const a = entity(ctx, Number(m[1])), b = entity(ctx, Number(m[2]));
      if (isType(a, TOOLISH) && isType(b, TOOLISH)) emit(ctx, b.name, 'replaces', a.name);
    },
  },
  {
    re: new RegExp(`${PH}\\s+(?:replaces|replaced|has replaced|is replacing|will replace|supersedes|superseded)\\s+${DET}${PH}`, 'g'),
    apply: (ctx, m) => {
      const a = entity(ctx, Number(m[1])), b = entity(ctx, Number(m[2]));
      if (isType(a, TOOLISH) && isType(b, TOOLISH)) emit(ctx, a.name, 'replaces', b.name);
    },
  },
  {
    re: new RegExp(`\\b(?:drop|dropped|dropping|ditch|ditched|remove|removed)\\s+${DET}${PH}\\s+in fav(?:ou)?r of\\s+${DET}${PH}`, 'gi'),
    apply: (ctx, m) => {
      const a = entity(ctx, Number(m[1])), b = entity(ctx, Number(m[2]));
      if (isType(a, TOOLISH) && isType(b, TOOLISH)) emit(ctx, b.name, 'replaces', a.name);
    },
  },
  // decided: let's go with X; we decided to use X; we chose / went with / settled on / standardized on X.
  {
    re: new RegExp(`\\b(?:let's|lets|let us)\\s+${ADV}(?:go with|use|pick|choose|adopt|stick with|standardi[sz]e on|switch to|move to|migrate to|keep)\\s+${DET}(${LIST})`, 'gi'),
    firstPerson: true,
    apply: (ctx, m) => each(ctx, m[1]!, TOOLISH, (o) => emit(ctx, ctx.self!, 'decided', o.name)),
  },
  {
    re: new RegExp(`\\b${FP}\\s+${ADV}(?:have\\s+|had\\s+)?(?:decided|agreed)\\s+(?:to\\s+(?:use|go with|adopt|switch to|move to|migrate to|keep|stick with|standardi[sz]e on)|on)\\s+${DET}(${LIST})`, 'g'),
    firstPerson: true,
    apply: (ctx, m) => each(ctx, m[1]!, TOOLISH, (o) => emit(ctx, ctx.self!, 'decided', o.name)),
  },
  {
    re: new RegExp(`\\b${FP}\\s+${ADV}(?:have\\s+)?(?:went with|chose|picked|settled on|standardi[sz]ed on|are going with|'re going with|will go with|'ll go with|will use|'ll use|are going to use|'re going to use|are sticking with|'re sticking with|will stick with|'ll stick with|'re standardi[sz]ing on|are standardi[sz]ing on)\\s+${DET}(${LIST})`, 'g'),
    firstPerson: true,
    apply: (ctx, m) => each(ctx, m[1]!, TOOLISH, (o) => emit(ctx, ctx.self!, 'decided', o.name)),
  },
  // prefers: I prefer X (over Y); I'd rather use/keep X; my preference is X.
  {
    re: new RegExp(`\\b${FP}\\s+${ADV}(?:do\\s+)?(?:prefer|favou?r)\\s+${DET}(${LIST})`, 'g'),
    firstPerson: true,
    apply: (ctx, m) => each(ctx, m[1]!, TOOLISH, (o) => emit(ctx, ctx.self!, 'prefers', o.name)),
  },
  {
    re: new RegExp(`\\b${FP}\\s+(?:would\\s+)?rather\\s+(?:use|keep|stick with|go with|have)\\s+${DET}(${PHN})`, 'g'),
    firstPerson: true,
    apply: (ctx, m) => each(ctx, m[1]!, TOOLISH, (o) => emit(ctx, ctx.self!, 'prefers', o.name)),
  },
  {
    re: new RegExp(`\\b(?:my|our) preference is\\s+${DET}(${PHN})`, 'gi'),
    firstPerson: true,
    apply: (ctx, m) => each(ctx, m[1]!, TOOLISH, (o) => emit(ctx, ctx.self!, 'prefers', o.name)),
  },
  {
    re: new RegExp(`${PH}\\s+(?:also\\s+|really\\s+|strongly\\s+)?(?:prefers|preferred)\\s+${DET}(${LIST})`, 'g'),
    apply: (ctx, m) => {
      const s = entity(ctx, Number(m[1]));
      if (s.type === 'person') each(ctx, m[2]!, TOOLISH, (o) => emit(ctx, s.name, 'prefers', o.name));
    },
  },
  // uses: we use X; we're using X; our <thing> uses / runs on X.
  {
    re: new RegExp(`\\b${FP}\\s+${ADV}(?:are\\s+|have been\\s+|'ve been\\s+)?(?:use|using|run|running|rely on|relying on|deploy to|deploy on|build with|code in|write in|are on|'re on)\\s+${DET}(${LIST})`, 'g'),
    firstPerson: true,
    apply: (ctx, m) => each(ctx, m[1]!, TOOLISH, (o) => emit(ctx, ctx.self!, 'uses', o.name)),
  },
  {
    re: new RegExp(`\\b(?:our|Our)\\s+(?:[\\w-]+\\s+){0,2}?(?:uses|is using|runs on|is built (?:with|on)|is written in|deploys to|relies on)\\s+${DET}(${LIST})((?:\\s+(?:for|to)\\s+[\\w ]{1,30}?)?\\s+and\\s+(?:(?:uses|deploys to|runs on)\\s+)?${DET}${PH})?`, 'g'),
    firstPerson: true,
    apply: (ctx, m) => {
      each(ctx, m[1]!, TOOLISH, (o) => emit(ctx, ctx.self!, 'uses', o.name));
      if (m[2]) each(ctx, m[2], ['technology'], (o) => emit(ctx, ctx.self!, 'uses', o.name));
    },
  },
  {
    re: new RegExp(`\\b(?:our|Our)\\s+(?:[\\w-]+\\s+){0,2}?runs on\\s+${DET}(${PHN})\\s+and\\s+deploys to\\s+${DET}(${PHN})`, 'g'),
    firstPerson: true,
    apply: (ctx, m) => {
      each(ctx, m[1]!, TOOLISH, (o) => emit(ctx, ctx.self!, 'uses', o.name));
      each(ctx, m[2]!, TOOLISH, (o) => emit(ctx, ctx.self!, 'uses', o.name));
    },
  },
  {
    re: new RegExp(`${PH}\\s+(?:(?:also|still|now|already)\\s+)?(?:uses|is using|is built with|is built on|is written in|runs on)\\s+${DET}(${LIST})`, 'g'),
    apply: (ctx, m) => {
      const s = entity(ctx, Number(m[1]));
      if (isType(s, ['project', 'package', 'identifier', 'file', 'person'])) each(ctx, m[2]!, TOOLISH, (o) => emit(ctx, s.name, 'uses', o.name));
    },
  },
  // depends_on: X depends on / relies on / requires Y; Y is a dependency of X.
  {
    re: new RegExp(`(${LIST})\\s+(?:(?:also|still|now|both|all)\\s+)?(?:depends on|depend on|relies on|rely on|requires|has a (?:hard |runtime |peer )?dependency on|is built on top of|imports)\\s+${DET}(${LIST})`, 'g'),
    apply: (ctx, m) => {
      for (const si of ids(m[1]!)) {
        const s = entity(ctx, si);
        if (!isType(s, THINGS)) continue;
        each(ctx, m[m.length - 1]!, THINGS, (o) => emit(ctx, s.name, 'depends_on', o.name));
      }
    },
  },
  {
    re: new RegExp(`${PH}\\s+is a (?:hard |runtime |peer )?dependency of\\s+${DET}${PH}`, 'g'),
    apply: (ctx, m) => {
      const a = entity(ctx, Number(m[1])), b = entity(ctx, Number(m[2]));
      if (isType(a, THINGS) && isType(b, THINGS)) emit(ctx, b.name, 'depends_on', a.name);
    },
  },
  // owns: Dana owns / maintains / is the owner of X; X is owned by Dana; I own X.
  {
    re: new RegExp(`(${PHN}(?:\\s+and\\s+(?:I|${PHN}))?)\\s+(?:(?:also|still|now)\\s+)?(?:owns|own|maintains|maintain|is the owner of|are the owners of|is the maintainer of|is responsible for|are responsible for)\\s+${DET}(${LIST})${OBJECT_END}`, 'g'),
    apply: (ctx, m) => {
      const subjects = ids(m[1]!).map((i) => entity(ctx, i)).filter((s) => s.type === 'person').map((s) => s.name);
      if (/\band\s+I\b/.test(m[1]!) && ctx.self) subjects.push(ctx.self);
      for (const s of subjects) each(ctx, m[m.length - 1]!, THINGS, (o) => emit(ctx, s, 'owns', o.name));
    },
  },
  {
    re: new RegExp(`\\bI\\s+(?:also\\s+|still\\s+)?(?:own|maintain|am the owner of|am responsible for)\\s+${DET}(${LIST})${OBJECT_END}`, 'g'),
    firstPerson: true,
    apply: (ctx, m) => each(ctx, m[1]!, THINGS, (o) => emit(ctx, ctx.self!, 'owns', o.name)),
  },
  {
    re: new RegExp(`${PH}\\s+(?:is|are)\\s+(?:owned|maintained)\\s+by\\s+${PH}`, 'g'),
    apply: (ctx, m) => {
      const o = entity(ctx, Number(m[1])), s = entity(ctx, Number(m[2]));
      if (s.type === 'person' && isType(o, THINGS)) emit(ctx, s.name, 'owns', o.name);
    },
  },
  // works_on: Priya is working on X; I'm working on the X refactor; I work on X.
  {
    re: new RegExp(`${PH}\\s+(?:is\\s+)?(?:(?:currently|still|now|also)\\s+)?(?:working on|works on|hacking on|is assigned to)\\s+${DET}(${PHN})${WORK_END}`, 'g'),
    apply: (ctx, m) => {
      const s = entity(ctx, Number(m[1])), o = entity(ctx, ids(m[2]!)[0]!);
      if (s.type === 'person' && isType(o, THINGS)) emit(ctx, s.name, 'works_on', o.name);
    },
  },
  {
    re: new RegExp(`\\b(?:I'm|I am|I|we're|we are|we)\\s+(?:(?:currently|still|now|also|mostly)\\s+)?(?:working on|work on|hacking on|assigned to)\\s+${DET}(${PHN})${WORK_END}`, 'g'),
    firstPerson: true,
    apply: (ctx, m) => each(ctx, m[1]!, THINGS, (o) => emit(ctx, ctx.self!, 'works_on', o.name)),
  },
  // located_in: X lives in / is in / is defined in F; X in F (code); added/moved X to F; X is exported from F.
  {
    re: new RegExp(`${PH}\\s+(?:\\w+\\s+)?(?:lives|live|is|are|sits|sit|resides|is located|are located|is defined|are defined|is declared|is implemented|are implemented|is kept|are kept|is stored|can be found|now lives|still lives)\\s+(?:in|under|inside)\\s+${DET}${PH}`, 'g'),
    apply: (ctx, m) => {
      const s = entity(ctx, Number(m[1])), f = entity(ctx, Number(m[2]));
      if (f.type === 'file' && isType(s, ['identifier', 'project', 'package', 'file'])) emit(ctx, s.name, 'located_in', f.name);
    },
  },
  {
    re: new RegExp(`${PH}\\s+(?:\\w+\\s+)?(?:is|are)\\s+exported\\s+from\\s+${PH}`, 'g'),
    apply: (ctx, m) => {
      const s = entity(ctx, Number(m[1])), f = entity(ctx, Number(m[2]));
      if (f.type === 'file' && isType(s, ['identifier'])) emit(ctx, s.name, 'located_in', f.name);
    },
  },
  {
    re: new RegExp(`\\b(?:added|moved|put|extracted)\\s+${DET}${PH}\\s+(?:to|into|in)\\s+${PH}`, 'gi'),
    apply: (ctx, m) => {
      const s = entity(ctx, Number(m[1])), f = entity(ctx, Number(m[2]));
      if (f.type === 'file' && isType(s, ['identifier', 'project', 'package'])) emit(ctx, s.name, 'located_in', f.name);
    },
  },
  {
    // `fetchInvoices` in src/billing/client.ts; `getToken` from src/auth/token.ts — a code identifier placed in a file.
    re: new RegExp(`${PH}\\s+(?:in|from)\\s+${PH}`, 'g'),
    apply: (ctx, m) => {
      const s = entity(ctx, Number(m[1])), f = entity(ctx, Number(m[2]));
      if (f.type === 'file' && s.type === 'identifier' && /\.[A-Za-z]+$/.test(f.name)) emit(ctx, s.name, 'located_in', f.name);
    },
  },
];

const CARRY = new RegExp(
  `^(\\s*(?:(?:[Tt]he|[Oo]ur)\\s+)?(${PHN}))((?:(?!\\band\\b).)*?)\\band\\s+(?=(?:also\\s+)?(?:uses|prefers|owns|maintains|depends on|relies on|lives in|works on|is working on|is written in|is built with)\\b)`,
);

// ---------------------------------------------------------------------------------------------

const BARE_FILE = new RegExp(`(?<![\\w@/.\\u27e6\\u27e7-])(?:[\\w-]+(?:\\.[\\w-]+)*\\.(?:${FILE_EXT})|Dockerfile|Makefile|\\.env(?:\\.[\\w-]+)?)(?::\\d+)?(?![\\w/])`, 'g');
const NAME = '([A-Z][a-z]{1,20}(?:\\s[A-Z][a-z]{1,20})?)';
const PERSON_BY_VERB = new RegExp(
  `(?<![\\w\u27e6])${NAME}(?=(?:\\s+and\\s+(?:I|[A-Z][a-z]+))?\\s+(?:(?:also|still|now|currently)\\s+)?(?:${PERSON_VERBS})\\b|'s\\s+(?:PR|branch|team|code|change)\\b)`,
  'g',
);
const PERSON_BY_CUE = new RegExp(`\\b((?:${anyCase(PERSON_CUES)})\\s+)${NAME}\\b`, 'g');

const AGENT_ROLES = new Set(['assistant', 'model', 'agent', 'ai', 'bot', 'copilot', 'claude', 'system', 'tool']);
const GENERIC_SPEAKERS = new Set(['user', 'human', 'me', 'person', 'you', 'customer', '']);

/**
 * Entities and relationships stated in one turn. `known.names` are entity names the memory already
 * holds: their mentions are recognised (with the stored spelling) even when no rule would find them.
 */
export function extract(episode: ExtractInput, known?: { names: string[] }): Extraction {
  const raw = typeof episode?.text === 'string' ? episode.text : '';
  const role = (episode.role ?? '').toLowerCase();
  const speaker = (episode.speaker ?? '').trim();
  const agentTurn = AGENT_ROLES.has(role) || AGENT_ROLES.has(speaker.toLowerCase());
  const self = agentTurn ? undefined : GENERIC_SPEAKERS.has(speaker.toLowerCase()) ? 'user' : speaker;

  const mentions = new Mentions();
  let text = raw
    .replace(/[\u27e6\u27e7]/g, ' ') // the placeholder brackets are ours
    .replace(/```[\s\S]*?(?:```|$)/g, '\n')
    .replace(/\bhttps?:\/\/[^\s)>\]]+/g, ' ')
    .replace(/\r/g, '');

  // Install commands name packages: npm i -D zod, pip install httpx, cargo add serde.
  for (const m of text.matchAll(/\b(?:npm\s+(?:install|i|add)|pnpm\s+(?:add|install|i)|yarn\s+add|bun\s+add|pip3?\s+install|uv\s+add|poetry\s+add|cargo\s+add|go\s+get|gem\s+install)\s+((?:(?:-{1,2}[\w-]+|[@\w./-]+)\s*)+)/g)) {
    for (const word of m[1]!.split(/\s+/)) {
      const name = word.replace(/`/g, '').replace(/(?<=.)@[\w.^~-]+$/, '');
      if (!name || name.startsWith('-') || !/^[@\w][\w./@-]*$/.test(name)) continue;
      const tech = techOf(name);
      mentions.add(tech ? tech.name : name, tech ? 'technology' : 'package');
    }
  }

  // 1. Inline code spans.
  text = text.replace(/`([^`\n]+)`/g, (_whole, span: string) => {
    const m = classifyCode(span);
    return m ? mentions.add(m.name, m.type) : ' ';
  });

  // 2. Paths and scoped packages.
  text = text.replace(/(?<![\w@/.\u27e6-])@[a-z0-9][\w.-]*\/[a-z0-9][\w.-]*(?![\w/])/gi, (m) => mentions.add(m, 'package'));
  text = text.replace(/(?<![\w@/.\u27e6\u27e7-])(?:~\/|\.\.?\/|\/)?[\w@.-]+(?:\/[\w@.-]+)+\/?(?::\d+(?::\d+)?)?/g, (m) => (isPathLike(m) ? mentions.add(cleanPath(m), 'file') + trailing(m) : m));

  // 3. Technologies, longest alias first.
  const lowered = text.toLowerCase();
  for (const { alias, lower, tech, strict, re } of TECH_PATTERNS) {
    if (!lowered.includes(lower)) continue;
    re.lastIndex = 0;
    text = text.replace(re, (m: string, offset: number, all: string) => {
      if (!boundaryOk(all, offset, offset + m.length)) return m;
      if (!strict && techOf(m) !== tech) return m; // written as another technology's strict alias
      if (alias === 'Go' && !goIsLanguage(all, offset)) return m;
      return mentions.add(tech.name, 'technology');
    });
  }

  // Bare file names (package.json, README.md, .env) and plain package names.
  text = text.replace(BARE_FILE, (m) =>
    PACKAGES_PLAIN.has(m.toLowerCase().replace(/\.js$/, '')) || PACKAGES_CODE_ONLY.has(m.toLowerCase().replace(/\.js$/, ''))
      ? mentions.add(m.toLowerCase().replace(/\.js$/, ''), 'package')
      : isPathLike(m.replace(/:\d+$/, ''))
        ? mentions.add(cleanPath(m), 'file')
        : m,
  );
  // A library written capitalised mid-sentence ("replaced Moment with date-fns") is the library.
  text = text.replace(/(?<=\b[a-z][\w']*,?\s)[A-Z][a-z]+(?:-[a-z]+)?(?![\w\u27e6-])/g, (m) =>
    PACKAGES_PLAIN.has(m.toLowerCase()) || PACKAGES_CODE_ONLY.has(m.toLowerCase()) ? mentions.add(m.toLowerCase(), 'package') : m,
  );
  text = text.replace(/(?<![\w@/.\u27e6\u27e7-])[a-z][a-z0-9]*(?:[-.][a-z0-9]+)*(?![\w/\u27e6-])/g, (m) => (PACKAGES_PLAIN.has(m) ? mentions.add(m, 'package') : m));

  // 4. Named components and projects: "the settlement module", "the billing-api repo", "project Atlas".
  text = text.replace(
    /\b([Tt]he|[Oo]ur|[Mm]y|[Tt]his|[Tt]hat|[Tt]heir|[Yy]our)\s+((?:[A-Za-z][\w-]*|\u27e6\d+\u27e7)(?:\s+[A-Za-z][\w-]*){0,2}?)\s+(module|service|app|application|api|API|pipeline|worker|component|job|microservice|dashboard|frontend|backend|website|site|gateway|bot|cli|CLI|sdk|SDK|plugin|extension|integration|flow|library|package|crate|project|repo|repository|monorepo|codebase)\b/g,
    (whole, det: string, mod: string, head: string) => {
      const named = namedComponent(mod, head.toLowerCase(), mentions);
      return named ? `${det} ${named}` : whole;
    },
  );
  text = text.replace(/\b[Pp]roject\s+([A-Z][\w-]+)\b/g, (whole, name: string) => (NOT_NAMES.has(name) || techOf(name) ? whole : mentions.add(name, 'project')));

  // 5. Known names (the memory's own entities), case-insensitive, whole words.
  for (const name of [...(known?.names ?? [])].filter((n) => typeof n === 'string' && n.trim().length >= 2).sort((a, b) => b.length - a.length)) {
    const re = new RegExp(`(?<![\\w\\u27e6-])${escapeRe(name.trim())}(?![\\w\\u27e7-])`, 'gi');
    text = text.replace(re, () => mentions.add(name.trim(), techOf(name.trim()) ? 'technology' : 'concept'));
  }

  // 6. People: a capitalised name with a person's verb after it or a cue before it.
  text = text.replace(PERSON_BY_VERB, (m, name: string) =>
    personMention(name, mentions) ?? m,
  );
  text = text.replace(PERSON_BY_CUE, (m, cue: string, name: string) => {
    const p = personMention(name, mentions);
    return p ? cue + p : m;
  });
  // Compound subjects: "Ana and Leo own", "Ana and I own".
  text = text.replace(/(?<![\w\u27e6])([A-Z][a-z]{1,20})(?=\s+and\s+(?:I|\u27e6\d+\u27e7)\s+(?:own|maintain|work on|are working on|are responsible for)\b)/g, (m, name: string) =>
    personMention(name, mentions) ?? m,
  );

  // 7. Code identifiers outside code spans: getUserById, MemoryService, parse_config, DATABASE_URL, fetchInvoices().
  text = text.replace(/(?<![\w\u27e6\u27e7.@/-])([a-z][a-z0-9]+(?:[A-Z][a-z0-9]*)+|[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]+)+|[a-z][a-z0-9]*(?:_[a-z0-9]+)+|[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)(\(\))?(?![\w\u27e6-])/g, (m, id: string) => {
    if (BRANDS.has(id) || techOf(id) || id.length < 4) return m;
    return mentions.add(id, 'identifier');
  });

  // Relationships, clause by clause.
  const ctx: Ctx = { mentions, self, out: [] };
  for (const sentence of text.split(/(?<=[.!?])\s+|\n+/)) {
    if (/\?\s*$/.test(sentence.trim())) continue;
    for (const part of sentence.split(/;|\s+[-–—]\s+|\bbut\b|\bwhereas\b|\balthough\b|\bthough\b|\bhowever\b/)) {
      // "Marco maintains X and prefers Y": the second verb keeps the clause's subject.
      const clause = part.replace(CARRY, (_m, lead: string, subject: string, mid: string) => `${lead}${mid}and ${subject} `);
      for (const pattern of PATTERNS) {
        if (pattern.firstPerson && !ctx.self) continue;
        pattern.re.lastIndex = 0;
        for (const m of clause.matchAll(pattern.re)) {
          const before = clause.slice(0, m.index).split(/,/).pop() ?? '';
          if (HEDGES.test(before) || HEDGES.test(m[0].replace(PH_RE, ' '))) continue;
          // "the handler in ⟦file⟧ is owned by Dana": the mention after a preposition is not the subject.
          if (!pattern.firstPerson && m[0].startsWith('\u27e6') && /\b(?:in|of|from|to|for|with|by|on|at|under|inside|than|over|into|via)\s*$/i.test(before)) continue;
          pattern.apply(ctx, m as unknown as RegExpExecArray);
        }
      }
    }
  }

  // Entities: every mention, plus the speaker when a fact is about them.
  const entities: ExtractedEntity[] = mentions.list.map((m) => ({ name: m.name, type: m.type }));
  if (self && ctx.out.some((r) => r.subject === self || r.object === self) && !entities.some((e) => e.name.toLowerCase() === self.toLowerCase())) {
    entities.unshift({ name: self, type: 'person' });
  }
  return { entities, relationships: ctx.out };
}

function namedComponent(mod: string, head: string, mentions: Mentions): string | undefined {
  const words = mod.split(/\s+/);
  // A placeholder modifier: "the `ledger-cli` crate" names the package; "the React app" names nothing new.
  if (words.length === 1 && /^\u27e6\d+\u27e7$/.test(words[0]!)) {
    const m = mentions.get(Number(words[0]!.slice(1, -1)));
    if (!m) return undefined;
    if (m.type === 'package' && PACKAGE_HEADS.has(head)) return words[0];
    if (m.type === 'package' && PROJECT_HEADS.has(head)) {
      m.type = 'project'; // "the `billing-api` repo" is a project, not an npm package
      return words[0];
    }
    return undefined;
  }
  if (words.some((w) => /\u27e6/.test(w))) return undefined;
  while (words.length > 0 && GENERIC_MODIFIERS.has(words[0]!.toLowerCase()) && !(words.length === 1 && SPECIFIC_ALONE.has(words[0]!.toLowerCase()))) words.shift();
  if (words.length === 0) return undefined;
  if (words.some((w) => /^(?:and|or|of|to|for|with|in|on|is|are|was|be|it|we|i|you)$/i.test(w))) return undefined;
  if (words.some((w) => techOf(w))) return undefined;
  const name = words.join(' ');
  if (PROJECT_HEADS.has(head)) return mentions.add(name, 'project');
  if (PACKAGE_HEADS.has(head) && head !== 'module' && words.length === 1 && /^[a-z0-9][\w.-]*$/.test(name)) return mentions.add(name, 'package');
  if (!COMPONENT_HEADS.has(head)) return undefined;
  return mentions.add(`${name} ${head}`.replace(/\b(api|cli|sdk)$/i, (h) => h.toUpperCase()), 'project');
}

function personMention(name: string, mentions: Mentions): string | undefined {
  const parts = name.split(/\s+/);
  if (parts.some((p) => NOT_NAMES.has(p))) {
    // "Yesterday Dana said": keep the name after a word that is not one.
    if (parts.length === 2 && NOT_NAMES.has(parts[0]!) && !NOT_NAMES.has(parts[1]!)) {
      const p = personMention(parts[1]!, mentions);
      return p ? `${parts[0]} ${p}` : undefined;
    }
    return undefined;
  }
  if (parts.some((p) => techOf(p) || BRANDS.has(p))) return undefined;
  return mentions.add(name, 'person');
}

function trailing(m: string): string {
  const clean = cleanPath(m);
  const idx = m.indexOf(clean) + clean.length;
  const rest = m.slice(idx);
  return rest.replace(/^\/+/, '').replace(/^:\d+(?::\d+)?/, '');
}

/** "ask|ping" -> "[Aa]sk|[Pp]ing": the first letter in either case, the rest as written. */
function anyCase(alternatives: string): string {
  return alternatives
    .split('|')
    .map((a) => `[${a[0]!.toUpperCase()}${a[0]!.toLowerCase()}]${escapeRe(a.slice(1))}`)
    .join('|');
}

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
