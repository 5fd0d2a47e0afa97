/**
 * Synthetic coding conversations for scale benchmarks: sessions of alternating user/assistant
 * turns of realistic length, built from sentence templates that name entities (packages, files,
 * people, services) over a Zipf-distributed vocabulary, so word frequencies look like a real
 * memory's (a few very common words, a long tail). Deterministic for a seed.
 */
const HEAD = (
  'build test deploy cache config error fix change update run check add remove file function module ' +
  'service api endpoint request response query database schema migration index table column branch ' +
  'commit merge review release version package dependency install upgrade pipeline job step timeout ' +
  'retry log debug trace issue bug feature refactor rename type interface class method parameter return ' +
  'value string number array object async await promise callback event handler listener stream buffer ' +
  'memory cpu latency throughput load user session token auth login permission role admin setting ' +
  'environment staging production local docker container image cluster node pod volume secret key'
).split(' ');
const SYLLABLES = ['ka', 'to', 'ri', 'mo', 'ne', 'sa', 'lu', 'pe', 'di', 'go', 'ba', 'chi', 'ver', 'ron', 'tel', 'pax', 'qui', 'zor'];
const PACKAGES = [
  'react',
  'vite',
  'esbuild',
  'zod',
  'express',
  'fastify',
  'prisma',
  'redis',
  'postgres',
  'kafka',
  'jest',
  'vitest',
  'eslint',
  'prettier',
  'webpack',
  'tailwind',
  'graphql',
  'grpc',
  'terraform',
  'helm',
];
const PEOPLE = ['Dana', 'Luis', 'Priya', 'Chen', 'Amara', 'Jonas', 'Keiko', 'Omar', 'Sofia', 'Mateo'];
const TEMPLATES = [
  'we should use {pkg} for the {w} {w} in {file}',
  '{person} said the {w} in {svc} is {w} because of {w} {w}',
  'the {w} test in {file} fails with {w} {w} after the {pkg} upgrade',
  'let us move {w} {w} from {svc} to {svc} and keep {pkg}',
  'I prefer {pkg} over {pkg} for {w} {w}',
  '{svc} depends on {pkg} and the {w} {w} lives in {file}',
  'can you check why {w} {w} {w} is slow in {svc}',
  'the fix was to set {w} {w} in {file} and restart {svc}',
];

export interface SyntheticEpisode {
  text: string;
  speaker: string;
  role: string;
  session: string;
  time: string;
  entities: string[];
}

export function syntheticEpisodes(n: number, seed = 1, startMs = Date.parse('2024-01-01T09:00:00Z')): SyntheticEpisode[] {
  let state = seed >>> 0 || 1;
  const rnd = (): number => (state = (Math.imul(state, 1664525) + 1013904223) >>> 0) / 4294967296;
  const tail = Array.from({ length: 20_000 }, (_, i) => {
    let w = '';
    for (let x = i, k = 0; k < 2 + (i % 3); k++, x = Math.floor(x / SYLLABLES.length) + k * 5) w += SYLLABLES[x % SYLLABLES.length];
    return `${w}${i % 7 === 0 ? i : ''}`;
  });
  const vocab = [...HEAD, ...tail];
  const cdf: number[] = [];
  let total = 0;
  for (let i = 0; i < vocab.length; i++) cdf.push((total += 1 / Math.pow(i + 1, 1.07)));
  const word = (): string => {
    const r = rnd() * total;
    let lo = 0;
    let hi = vocab.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cdf[mid]! < r) lo = mid + 1;
      else hi = mid;
    }
    return vocab[lo]!;
  };
  const pick = <T>(xs: T[]): T => xs[Math.floor(rnd() * xs.length)]!;
  const services = Array.from({ length: 200 }, (_, i) => `${tail[i * 37]}-service`);
  const files = Array.from({ length: 2000 }, (_, i) => `src/${tail[i * 3]}/${tail[i * 3 + 1]}.ts`);

  const out: SyntheticEpisode[] = [];
  let session = 0;
  let turnInSession = 0;
  let sessionLength = 0;
  let t = startMs;
  for (let i = 0; i < n; i++) {
    if (turnInSession >= sessionLength) {
      session++;
      turnInSession = 0;
      sessionLength = 10 + Math.floor(rnd() * 40);
      t += 3_600_000 * (4 + Math.floor(rnd() * 40));
    }
    const entities = new Set<string>();
    const fill = (template: string): string =>
      template.replace(/\{(\w+)\}/g, (_, slot: string) => {
        switch (slot) {
          case 'pkg':
            return add(pick(PACKAGES));
          case 'person':
            return add(pick(PEOPLE));
          case 'svc':
            return add(pick(services));
          case 'file':
            return add(pick(files));
          default:
            return word();
        }
      });
    const add = (name: string): string => (entities.add(name), name);
    const sentences = 1 + Math.floor(rnd() * 3);
    const parts: string[] = [];
    for (let s = 0; s < sentences; s++) {
      parts.push(fill(pick(TEMPLATES)));
      const filler = Math.floor(rnd() * 14);
      if (filler > 0) parts.push(Array.from({ length: filler }, word).join(' '));
    }
    const user = turnInSession % 2 === 0;
    out.push({
      text: parts.join('. ') + '.',
      speaker: user ? 'user' : 'assistant',
      role: user ? 'user' : 'assistant',
      session: `bench-${session}`,
      time: new Date(t + turnInSession * 45_000).toISOString(),
      entities: [...entities],
    });
    turnInSession++;
  }
  return out;
}

/** Questions shaped like a user's: a few content words from a stored turn, in other words' company. */
export function syntheticQueries(episodes: SyntheticEpisode[], n: number, seed = 7): string[] {
  let state = seed;
  const rnd = (): number => (state = (Math.imul(state, 1664525) + 1013904223) >>> 0) / 4294967296;
  const starts = ['why is', 'what did we decide about', 'how do we', 'where is', 'who knows about', 'when did we change'];
  return Array.from({ length: n }, () => {
    const ep = episodes[Math.floor(rnd() * episodes.length)]!;
    const words = ep.text
      .replace(/[.,]/g, '')
      .split(' ')
      .filter((w) => w.length > 3);
    const a = words[Math.floor(rnd() * words.length)] ?? 'build';
    const b = words[Math.floor(rnd() * words.length)] ?? 'cache';
    return `${starts[Math.floor(rnd() * starts.length)]} ${a} ${b}?`;
  });
}
