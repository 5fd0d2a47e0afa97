/**
 * Rules and choices a person states in Spanish, French and German, read from real sentences people
 * wrote for their assistants, and real sentences of the same texts that state neither. Origins
 * (repository, path, commit), one per sentence group:
 * - es: mrcl29/doswords src/constants/llmRules.ts @698f864794bf452f981b307c553c2f7de1805d26;
 *   wicouy/bot-llm src/models/prompt.py @f174a990ecebd466110715099ad776efd6899727
 * - fr: Mister-Wolfgang/the-endless-sea PROMPT-GARDE-FOUS.md @7caa73023340cb15d3bc0c711a37fecc1528ec58;
 *   saboiteau/SecondBrain-Starter-Kit Mon_Profil/MES_REGLES.md @efcc9379edc643c9ce5b03e7abf92926b33d3d70;
 *   ServOMorph/auto_copier_coller .claude/CLAUDE.md @b21d4e3c1bc54e781227fcce5619c82e278da4db
 * - de: Paulschmidt-GDS2/KIDT KIDT/KIDT/Prompts/conversation-instructions.md @6b1430896914c2b87053ae65894d6af9201b051c;
 *   Talhaman91/Sprachlernmaterial_Generator src/sprachlern_tool/prompts/system_prompt.py @4eb75e58e695814618d903e6df1402f56740460e;
 *   JonathanXDR/M324 Dokumentation/D1_Applikation_Technologien.md @0b9da31cbdaace5e4cdc3480786f010752b47403
 * - "must" with a verb (es, pt, fr): Blizard32/seniales .aider.chat.history.md @5fd48734fd5534a53a92f0e1dd020944e856291f
 *   (line 113, a run-on turn, also test/fixtures/knowledge); Yusukepkl/I.A-Sarah AGENTS.md
 *   @ad7a94ac6e45b7fd0e44e0130ba883e053cbe4f8; Hackboot-Dev/website CLAUDE.md @fd8fe5e2b9e12006a9c057fea1c25ac5b299d133
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { readKnowledge } from '../src/core/ingest/knowledge-read';

const read = (text: string) => readKnowledge({ text, role: 'user' });
const kinds = (text: string): string[] => read(text).map((k) => k.kind);

const RULES: Record<string, string[]> = {
  es: [
    'No uses encabezados, viñetas, numeraciones automáticas, cursivas, citas ni bloques de código.',
    'Responde siempre en español.',
    'Usa siempre el Sistema Internacional de Unidades (SI) para todas las medidas, magnitudes y cálculos.',
    'Nunca mientes, inventas información ni generas datos no confirmados.',
  ],
  fr: [
    'TOUJOURS utiliser YARN pour la gestion des paquets',
    'Ne jamais inventer de citations ou de chiffres.',
    'Toujours vérifier mes fichiers Connaissances avant de répondre sur un sujet technique.',
    "Ne pas prendre d'initiatives non sollicitées",
  ],
  de: ['NIEMALS schätzen: "etwa 10 Wörter"', 'Du antwortest IMMER in natürlicher Sprache!'],
  'must + verb': [
    'Mensagens de commit e resumos de pull request devem ser escritos em português.',
    "Toute interaction avec l'utilisateur doit être en FRANÇAIS",
  ],
};

for (const [language, sentences] of Object.entries(RULES))
  test(`a person's rules in ${language}, each read as a rule in its own words`, () => {
    for (const s of sentences) {
      const items = read(s);
      assert.deepEqual(
        items.map((k) => [k.kind, k.statement]),
        [['rule', s]],
        s,
      );
    }
  });

/** Sentences that state neither a rule nor a choice, by why not. */
const NOT_READ: Record<string, string[]> = {
  // Real: sentences of the same texts that describe or introduce.
  'sentences of the same texts that describe or introduce are not rules': [
    'Mantén las respuestas simples, claras y directas.',
    'Esta restricción de idioma es obligatoria para todos los mensajes del chat.',
    'Tu es un assistant de développement avec des RÈGLES ABSOLUES à respecter.',
    'Ces règles existent suite à une destruction catastrophique de code par automatisation irréfléchie.',
    'Die Inhalte sollen realistisch wirken, so als wären sie von Muttersprachlern für Muttersprachler geschrieben.',
    'Wir sind alle mit MariaDB vertraut und beherrschen SQL.',
  ],
  'a doubt or a condition in these languages is not read': [
    'Quizás usaremos PostgreSQL.',
    'Vielleicht verwenden wir TypeScript.',
    'Si on utilise React, toujours tester.',
  ],
  // Constructed in the words of a bug report, the case the verb lists guard against.
  'a report of a failure with the subject dropped is not a rule ("falla siempre", "bekomme immer")': [
    'Falla siempre al compilar el proyecto.',
    'Bekomme immer den gleichen Fehler.',
    'Marche toujours pas.',
    'Sbagli sempre la stessa cosa.',
  ],
};

for (const [title, sentences] of Object.entries(NOT_READ))
  test(title, () => {
    for (const s of sentences) assert.deepEqual(kinds(s), [], s);
  });

/** Choices, each the only item its sentence gives, and what it chose. */
const DECIDED: Record<string, [string, string]> = {
  'a choice in German word order, after an opening phrase, is a decision naming what was chosen': [
    'Basierend auf JavaScript, verwenden wir TypeScript damit uns weniger Fehler während dem Programmieren unterlaufen und diese auch nicht erst während der Laufzeit erkannt werden.',
    'TypeScript',
  ],
  'Portuguese: "vamos mudar para X" is a change of choice, as before the forms moved here': [
    'Vamos mudar para PostgreSQL no backend.',
    'PostgreSQL',
  ],
};

for (const [title, [sentence, choice]] of Object.entries(DECIDED))
  test(title, () => {
    const [item, ...rest] = read(sentence);
    assert.equal(rest.length, 0);
    assert.equal(item?.kind, 'decision');
    assert.equal(item?.object, choice);
  });

test('a run-on turn too long for one sentence is read clause by clause: its two rules, not the request around them', () => {
  // Blizard32/seniales .aider.chat.history.md line 113, the person's turn as written (one sentence of 400 characters).
  const turn =
    'Quiero que me agregues lo analizado al README.md y además crees un archivo nuevo para realizar test de las funciones que estan generadas actualmentes, los test preferiblemente deberían estar en una subcarpeta llamada test y que haya un archivo para cada test, en estos se debe corroborar que se ejecuten las funciones sin que lancen error intentando llevarlas al fallo. Tambien estaría bueno otro archivo RunTests que ejecute cada archivo de la subcarpeta';
  assert.deepEqual(
    read(turn).map((k) => [k.kind, k.statement]),
    [
      ['rule', 'los test preferiblemente deberían estar en una subcarpeta llamada test y que haya un archivo para cada test'],
      ['rule', 'en estos se debe corroborar que se ejecuten las funciones sin que lancen error intentando llevarlas al fallo.'],
    ],
  );
});

test('a reminder and a named requirement are rules; an agent names a failure with its cause or fix in other languages', () => {
  // Origins in test/fixtures/knowledge/SOURCES.md: LuizHMachado05/simoldesproject and PauloMatheusGr/graphs (Cursor
  // exports, pt), steadyfall/wwbm-webapp (Claude Code, en), yutakobayashidev/dotnix (Claude Code, ja).
  for (const said of [
    'lembre-se de quando for fazer alguma alteração, leve o projeto como um todo em contexto, seja o src, ou api tudo que for necessario',
    "Well-tested code is non-negotiable; I'd rather have too many tests than too few.",
  ])
    assert.deepEqual(kinds(said), ['rule'], said);
  const agent = (text: string): string[] => readKnowledge({ text, role: 'assistant' }).map((k) => k.kind);
  for (const said of [
    'O problema era `\\AUC$_\\text{pool}$` sem `\\usepackage{amsmath}`, o que quebrava a 1ª passagem e impedia o `bibtex` de rodar (daí os `??`).',
    'stable（nixos-25.11）ではこの問題は修正済みなので、`pkgs.stable.yt-dlp` で回避できます。',
  ])
    assert.deepEqual(agent(said), ['lesson'], said);
  // Written for this test: a requirement's place, not a requirement; a failure without its cause.
  assert.deepEqual(kinds('A login is required for the admin page.'), []);
  assert.deepEqual(agent('O build falhou de novo.'), []);
});

test('what the person wants of the work in Portuguese and Spanish, not a task asked of the agent', () => {
  // MateusKasuya/lamjav and LuizHMachado05/simoldesproject (cursor); origins in test/fixtures/knowledge/SOURCES.md.
  const kinds = (t: string): string[] => readKnowledge({ text: t, role: 'user' }).map((k) => k.kind);
  assert.deepEqual(kinds('Também quero que as funcoes desenvolvidas estejam no arquivo smartbetting.py'), ['preference']);
  assert.deepEqual(kinds('preciso que ao assinar o projeto eu precise preencher a senha do usuario que esta assinando'), ['preference']);
  // Written for this test: the agent asked to do something now.
  assert.deepEqual(kinds('quero que você faça o commit'), []);
  assert.deepEqual(kinds('quero que foque nos testes'), []);
  assert.deepEqual(kinds('quiero que las pruebas estén en la carpeta tests'), ['preference']);
});

test('what to do "whenever I ask you" is a standing rule; "whenever I run it" is a report', () => {
  // LuizHMachado05/simoldesproject (cursor); origin in test/fixtures/knowledge/SOURCES.md.
  const kinds = (t: string): string[] => readKnowledge({ text: t, role: 'user' }).map((k) => k.kind);
  const said =
    'quando eu te pedir alguma coisa, quero que faça de forma que não altere outras funcionalidades desnecessarias nem faça alterações desnecessarias';
  assert.deepEqual(kinds(said), ['rule']);
  // Written for this test: the same frame in Spanish and French, and a bug report in the same words.
  assert.deepEqual(kinds('cuando te pida un cambio, no toques otros archivos.'), ['rule']);
  assert.deepEqual(kinds('chaque fois que je te demande un commit, écris le message en anglais.'), ['rule']);
  assert.deepEqual(kinds('toda vez que eu abro o app ele trava'), []);
  assert.deepEqual(kinds('quando eu rodo o teste, dá erro.'), []);
});

test('the state a person wants of the work in Japanese, and what not to do every time; a task they want to do is neither', () => {
  // digitaldemocracy2030/broad-listening-book and yutakobayashidev/repiq (claude-code); origins in test/fixtures/knowledge/SOURCES.md.
  const kinds = (t: string): string[] => readKnowledge({ text: t, role: 'user' }).map((k) => k.kind);
  assert.deepEqual(kinds('基本的にはリモートとの差分がない状態にしたい'), ['preference']);
  assert.deepEqual(kinds('commitlintでfeatとかのよくあるやつの規約を守るようにしてほしい'), ['preference']);
  // Written for this test: don't ask every time (a rule); "I want to test" and "an error every time" (neither).
  assert.deepEqual(kinds('毎回確認しないでください'), ['rule']);
  assert.deepEqual(kinds('このテストを実行したい'), []);
  assert.deepEqual(kinds('毎回エラーが出ます'), []);
});
