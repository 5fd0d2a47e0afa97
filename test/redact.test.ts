import assert from 'node:assert/strict';
import { test } from 'node:test';
import { redactSecrets } from '../src/core/ingest/redact';

import { AWS_ID, AWS_SECRET, BEARER, GITHUB_PAT, j, KEY_BODY, OPENAI_PROJ, PRIVATE_KEY, SAMPLES } from './fixtures/secret-samples';

test('every kind of secret is replaced: the secret is gone and its kind is reported', () => {
  for (const s of SAMPLES) {
    const r = redactSecrets(s.text);
    assert.ok(!r.text.includes(s.secret), `${s.kind}: secret still present in ${JSON.stringify(r.text)}`);
    assert.ok(r.kinds.includes(s.kind), `${s.kind}: reported ${JSON.stringify(r.kinds)} for ${JSON.stringify(s.text)}`);
    assert.ok(r.count >= 1);
    assert.ok(r.text.includes(`[REDACTED:${s.kind}]`));
  }
});

test('the words around a secret stay, so the episode still reads', () => {
  assert.equal(redactSecrets(`OPENAI_API_KEY=${OPENAI_PROJ}`).text, 'OPENAI_API_KEY=[REDACTED:openai_key]');
  assert.equal(
    redactSecrets('DATABASE_URL=postgres://ledger:Sup3rS3cret!@db.internal:5432/ledger').text,
    'DATABASE_URL=postgres://ledger:[REDACTED:url_password]@db.internal:5432/ledger',
  );
  assert.equal(
    redactSecrets('Server=db;User ID=app;Password=Xy7$kLm2Qv9!;Encrypt=True;').text,
    'Server=db;User ID=app;Password=[REDACTED:connection_string];Encrypt=True;',
  );
  assert.equal(redactSecrets(`Authorization: Bearer ${BEARER}`).text, 'Authorization: Bearer [REDACTED:bearer_token]');
  assert.equal(
    redactSecrets(`here is the deploy key:\n${PRIVATE_KEY}\nthanks`).text,
    'here is the deploy key:\n[REDACTED:private_key]\nthanks',
  );
  assert.equal(redactSecrets('DB_PASSWORD="correct horse battery staple"').text, 'DB_PASSWORD="[REDACTED:secret_assignment]"');
  // A key pasted without its END line: the base64 lines go, the prose after them stays.
  assert.equal(
    redactSecrets(
      `half a key:\n${j('-----BEGIN ', 'RSA PRIVATE KEY-----')}\nProc-Type: 4,ENCRYPTED\n\n${KEY_BODY}\nUnfortunately the rest is lost`,
    ).text,
    'half a key:\n[REDACTED:private_key]\nUnfortunately the rest is lost',
  );
});

test('a whole .env file: every secret counted once, ordinary settings untouched', () => {
  const env = [
    '# local dev',
    'NODE_ENV=development',
    'PORT=3000',
    `OPENAI_API_KEY=${OPENAI_PROJ}`,
    `AWS_ACCESS_KEY_ID=${AWS_ID}`,
    `AWS_SECRET_ACCESS_KEY=${AWS_SECRET}`,
    'DATABASE_URL=postgres://ledger:Sup3rS3cret!@localhost:5432/ledger',
    'STRIPE_WEBHOOK_SECRET=whsec_' + 'Qm7kL2xR9vT4yW8zA1bC3dE5fG7h',
    'SESSION_SECRET=k3yb0ardc4t',
    'LOG_LEVEL=debug',
    'MAX_TOKENS=4096',
    'TOKEN_TTL_SECONDS=3600',
  ].join('\n');
  const r = redactSecrets(env);
  assert.equal(r.count, 6);
  assert.deepEqual(r.kinds, [
    'openai_key',
    'aws_access_key',
    'aws_secret_key',
    'stripe_webhook_secret',
    'url_password',
    'secret_assignment',
  ]);
  for (const keep of ['NODE_ENV=development', 'PORT=3000', 'LOG_LEVEL=debug', 'MAX_TOKENS=4096', 'TOKEN_TTL_SECONDS=3600', '# local dev'])
    assert.ok(r.text.includes(keep), keep);
  for (const gone of [OPENAI_PROJ, AWS_ID, AWS_SECRET, 'Sup3rS3cret!', 'k3yb0ardc4t', 'Qm7kL2xR9vT4yW8zA1bC3dE5fG7h'])
    assert.ok(!r.text.includes(gone), gone);
});

test('redacting twice changes nothing the second time', () => {
  for (const s of SAMPLES) {
    const once = redactSecrets(s.text);
    const twice = redactSecrets(once.text);
    assert.equal(twice.text, once.text, s.text);
    assert.equal(twice.count, 0, s.text);
  }
});

test('no false positives on ordinary code, ids and placeholders', () => {
  const clean = [
    'interface Login { username: string; password: string }',
    'type Creds = { token?: string; apiKey: string | undefined };',
    'const token = getToken();',
    'const apiKey = process.env.API_KEY;',
    'const password = req.body.password;',
    'const secret = await loadSecret("payments");',
    'token = response.json()["access_token"]',
    'def login(password: str, token: Optional[str] = None) -> Session:',
    'password: SecretStr',
    'if (password === confirmPassword) return;',
    'items.map(token => token.trim())',
    'commit 3f1c9a7e2b4d6f8a0c1e3b5d7f9a1c3e5b7d9f1a fixed it; see 7b3f0c2e-5d41-4e8a-9c6b-2f1d8a7e4b90',
    'sha256: e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
    'max_tokens = 4096\nTOKEN_LIMIT=8000\npasswordHash = bcrypt.hash(pw, 10)\ntokenizer = AutoTokenizer.from_pretrained("bert-base")',
    'API_KEY=<your key here>\nTOKEN=${GITHUB_TOKEN}\nSECRET=changeme\nPASSWORD=',
    'env:\n  GITHUB_TOKEN: ${{ secrets.GITHUB_TOKEN }}\n  NPM_TOKEN: ${{ secrets.NPM_TOKEN }}',
    '<input type="password" name="password" placeholder="Enter your password" autocomplete="current-password">',
    '{ "password": "Enter your password", "token": "Token" }',
    'Authorization: Bearer ${token}',
    'headers: { Authorization: `Bearer ${accessToken}` }',
    'postgres://user:password@localhost:5432/db and mysql://root:${MYSQL_PASSWORD}@db/app',
    'the bearer of bad news: the token service is down, ask the password reset team',
    'See https://github.com/acme/ledger/pull/1234 and https://example.com/a?b=c&page=2',
    'Use sk-learn? No: scikit-learn. The css class is .sk-button-primary.',
    'ghp_ tokens start with ghp_, npm tokens with npm_; our prefix is hf_model_',
    'AKIA is the prefix of AWS access key ids; the ARN is arn:aws:iam::123456789012:role/deploy',
    'eyJ is how a base64 JSON object starts',
    'const key = "user:42"; const cacheKey = `${userId}:${page}`;',
    '-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIUY2Vy\n-----END CERTIFICATE-----',
    'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGq4Vb2kO5y0bHfQwWkNn5pJzI3y8AaS3Qe1O7Xx dana@laptop',
    'export PATH="$HOME/.local/bin:$PATH"',
    'PWD=/home/dana/src/ledger\nOLDPWD=/home/dana',
    'self.token = token\nclient(api_key=api_key, timeout=30)\nsecret_key=settings.SECRET_KEY\nauth_token = None\nrefresh_token: refreshToken',
    'password_min_length: 12\nsecret: true\ntoken_type: bearer\nconst { token } = useAuth();',
  ];
  for (const text of clean) {
    const r = redactSecrets(text);
    assert.equal(r.count, 0, `false positive ${JSON.stringify(r.kinds)} in ${JSON.stringify(text)} -> ${JSON.stringify(r.text)}`);
    assert.equal(r.text, text);
  }
});

test('empty and odd input', () => {
  assert.deepEqual(redactSecrets(''), { text: '', count: 0, kinds: [] });
  assert.deepEqual(redactSecrets(undefined as unknown as string), { text: '', count: 0, kinds: [] });
  const long = 'const x = 1;\n'.repeat(20_000) + `TOKEN=${GITHUB_PAT}`;
  const r = redactSecrets(long);
  assert.equal(r.count, 1);
  assert.ok(r.text.endsWith('TOKEN=[REDACTED:github_token]'), r.text.slice(-60));
});

test('pathological text is scanned in linear time, not quadratic', { timeout: 20_000 }, () => {
  // With unbounded values "a=a=a=…" was quadratic; a hang fails this test by its timeout.
  for (const text of ['A='.repeat(500_000), 'x: '.repeat(300_000), `"${'k'.repeat(999_000)}`]) {
    const r = redactSecrets(text);
    assert.equal(r.count, 0);
    assert.equal(r.text.length, text.length);
  }
});
