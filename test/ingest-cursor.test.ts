/**
 * Cursor's "Export Chat" markdown. The real exports in test/fixtures/real/cursor are counted in
 * real-transcripts.test.ts; here, what they must never get wrong: whose words a turn is, the
 * export's own separators, markers quoted in a reply, and the export date in its many locales.
 */
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { test } from 'node:test';
import { exportTime } from '../src/core/ingest/cursor';
import { parseTranscript } from '../src/core/ingest/detect';
import { readTranscriptFile } from '../src/core/ingest/files';
import { ROOT } from './helpers';

const exportOf = (...turns: [string, string][]): string =>
  [
    '# Pick a worker',
    '_Exported on 8/21/2025 at 18:13:28 GMT+2 from Cursor (1.4.5)_',
    '',
    ...turns.flatMap(([who, text]) => ['---', '', `**${who}**`, '', text, '']),
  ].join('\n');

test("one exchange: the reply is the assistant's, never folded into the person's turn", () => {
  const parsed = parseTranscript(exportOf(['User', 'which worker should I use?'], ['Cursor', 'Use the generic worker.']), 'cursor_pick.md');
  assert.equal(parsed.format, 'cursor');
  assert.deepEqual(
    new Set(parsed.episodes.map((e) => e.sessionTitle)),
    new Set(['Pick a worker']),
    "the chat's name is the session's title",
  );
  assert.deepEqual(
    parsed.episodes.map((e) => [e.authority, e.text]),
    [
      ['user', 'which worker should I use?'],
      ['agent', 'Use the generic worker.'],
    ],
  );
});

test("the separators are the export's; a rule or marker inside a reply is the reply's", () => {
  const reply = [
    'First part.',
    '',
    '---',
    '',
    'Second part.',
    '',
    '```md',
    '---',
    '',
    '**User**',
    '```',
    '',
    '**User**',
    'is a label here',
  ].join('\n');
  const { episodes } = parseTranscript(exportOf(['User', 'show me'], ['Cursor', reply], ['User', 'thanks']), 'cursor_show.md');
  assert.equal(episodes.length, 3);
  assert.equal(episodes[1]!.text, reply);
  assert.equal(episodes[2]!.text, 'thanks');
  for (const e of episodes) assert.doesNotMatch(e.text, /\n---\s*$/);
});

test('without the export line, markers after separators still make it a Cursor export', () => {
  const text = ['---', '', '**User**', '', 'hello', '', '---', '', '**Cursor**', '', 'Hi.'].join('\r\n');
  const parsed = parseTranscript(text, 'chat.md');
  assert.equal(parsed.format, 'cursor');
  assert.deepEqual(
    parsed.episodes.map((e) => e.authority),
    ['user', 'agent'],
  );
  assert.equal(parsed.episodes[0]!.time, undefined, 'no export line, no date');
});

test('the export date dates the turns, read in the locales real exports are written in', () => {
  // Export lines seen in public repositories, then edge cases written here; instants worked out by hand.
  const cases: [string, string | undefined][] = [
    ['8/21/2025 at 18:13:28 GMT+2', '2025-08-21T16:13:28.000Z'],
    ['19/10/2025 at 12:29:42 GMT+8', '2025-10-19T04:29:42.000Z'],
    ['6/16/2025 at 12:55:28 GMT+3', '2025-06-16T09:55:28.000Z'],
    ['7/8/2025 at 11:55:38 PDT', '2025-07-08T18:55:38.000Z'],
    ['7/29/2025 at 18:51:14 EDT', '2025-07-29T22:51:14.000Z'],
    ['10/17/2025 at 01:05:09 GMT+4', '2025-10-16T21:05:09.000Z'],
    ['2025. 6. 27. at 14시 17분 35초 GMT+9', '2025-06-27T05:17:35.000Z'],
    ['2025/12/14 at GMT+8 23:42:15', '2025-12-14T15:42:15.000Z'],
    ['21/02/2026 at 19:45:15 CET', '2026-02-21T18:45:15.000Z'],
    ['2025/6/9 at 11:08:50 [GMT+8]', '2025-06-09T03:08:50.000Z'],
    ['2025/6/25 at 12:06:49 JST', '2025-06-25T03:06:49.000Z'],
    ['2025-05-20 at 8:50:49 CEST', '2025-05-20T06:50:49.000Z'],
    ['22/02/2026 at 0:35:51 CET', '2026-02-21T23:35:51.000Z'],
    // Written here: a dotted day-first date and a 12-hour clock.
    ['21.8.2025 at 18:13:28 GMT+2', '2025-08-21T16:13:28.000Z'],
    ['7/8/2025 at 2:05:00 PM PDT', '2025-07-08T21:05:00.000Z'],
    // Day and month could be either outside a US zone: no guess.
    ['7/3/2025 at 19:39:41 GMT+2', undefined],
    // Written here: a zone we cannot place, no time, no such day.
    ['7/29/2025 at 18:51:14 XYZT', undefined],
    ['7/29/2025', undefined],
    ['2/30/2025 at 10:00:00 GMT', undefined],
  ];
  for (const [stamp, want] of cases) assert.equal(exportTime(stamp), want, stamp);
  const { episodes } = parseTranscript(exportOf(['User', 'a'], ['Cursor', 'b']), 'cursor_a.md');
  assert.deepEqual(
    episodes.map((e) => e.time),
    ['2025-08-21T16:13:28.000Z', '2025-08-21T16:13:28.000Z'],
  );
});

test('an export with no turn is an error, not an empty success', () => {
  assert.throws(
    () => parseTranscript('# Empty chat\n_Exported on 8/21/2025 at 18:13:28 GMT+2 from Cursor (1.4.5)_\n\n---\n', 'cursor_empty.md'),
    /read as cursor, but no turn was found/,
  );
});

test('a hand-edited export without separators is read as markdown, Cursor still the assistant', () => {
  const parsed = parseTranscript(['**User**', 'is this safe?', '', '**Cursor**', 'Yes, with a lock.'].join('\n'), 'notes.md');
  assert.equal(parsed.format, 'markdown');
  assert.deepEqual(
    parsed.episodes.map((e) => [e.authority, e.text]),
    [
      ['user', 'is this safe?'],
      ['agent', 'Yes, with a lock.'],
    ],
  );
});

test('the real exports: every turn dated by its export line, named by its title, the person first', () => {
  // Instants worked out by hand from each file's `_Exported on` line (see SOURCES.md).
  const real: Record<string, [string, string]> = {
    'one-exchange-de.md': ['2025-08-21T16:13:28.000Z', 'Unterschied zwischen generic und secretary worker'],
    'one-exchange-ko-yearfirst-code-citation.md': ['2025-11-09T10:33:16.000Z', '콜백 함수 실행 이유 질문'],
    'ko-yearfirst-nested-fences.md': ['2025-11-09T10:48:14.000Z', 'README.md 파일 존댓말로 작성하기'],
    'one-exchange-zh-tz-before-time.md': ['2025-12-14T15:42:15.000Z', 'Component 的 is 属性与 rendervnode'],
    'es-dayfirst-cet-hr-and-code.md': ['2026-02-21T18:45:15.000Z', 'Modificación de colliders en múltiples plataformas'],
  };
  for (const [file, [time, title]] of Object.entries(real)) {
    const { episodes } = readTranscriptFile(path.join(ROOT, 'test', 'fixtures', 'real', 'cursor', file));
    assert.deepEqual(new Set(episodes.map((e) => e.time)), new Set([time]), file);
    assert.deepEqual(new Set(episodes.map((e) => e.sessionTitle)), new Set([title]), file);
    assert.deepEqual(
      episodes.map((e) => e.authority),
      episodes.map((_, i) => (i % 2 === 0 ? 'user' : 'agent')),
      `${file}: the person and Cursor take turns`,
    );
  }
});
