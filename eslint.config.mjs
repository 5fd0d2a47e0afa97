// Lint for the whole tree: typescript-eslint's recommended rules, no import cycles, and the
// layering of docs/ARCHITECTURE.md (rooms point inward; the extension never imports the CLI).
import tseslint from 'typescript-eslint';
import importX, { createNodeResolver } from 'eslint-plugin-import-x';
import prettier from 'eslint-config-prettier';

const rooms = (target, ...from) => ({ target: `./src/${target}`, from: from.map((f) => `./src/${f}`) });

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', '.cache/**', 'test/e2e/artifacts/**', 'test/fixtures/**', '**/*.vsix'] },
  ...tseslint.configs.recommended,
  {
    files: ['src/**/*.ts', 'test/**/*.ts', 'scripts/**/*.ts'],
    plugins: { 'import-x': importX },
    // Sources import './x.js' for x.ts (NodeNext style): resolve those to the .ts files.
    settings: {
      ...importX.flatConfigs.typescript.settings,
      'import-x/resolver-next': [createNodeResolver({ extensions: ['.ts', '.js', '.mjs'], extensionAlias: { '.js': ['.ts', '.js'] } })],
    },
    rules: {
      'import-x/no-cycle': ['error', { ignoreExternal: true }],
      'import-x/no-restricted-paths': [
        'error',
        {
          zones: [
            rooms('core', 'service', 'extension', 'cli', 'mcp', 'tools', 'bench'),
            rooms('extension', 'cli', 'bench'),
            rooms('service', 'extension', 'cli', 'mcp', 'tools', 'bench'),
            rooms('tools', 'extension', 'cli', 'mcp', 'bench'),
            rooms('mcp', 'extension', 'cli', 'bench'),
            rooms('core/model', 'core/store', 'core/retrieval', 'core/ingest', 'core/vectors', 'core/memory'),
            rooms('core/store', 'core/retrieval', 'core/ingest', 'core/vectors', 'core/memory'),
            rooms('core/retrieval', 'core/ingest', 'core/memory'),
            rooms('core/ingest', 'core/store', 'core/retrieval', 'core/vectors', 'core/memory'),
            rooms('core/vectors', 'core/retrieval', 'core/ingest', 'core/memory'),
            rooms('core', 'sync'),
            rooms('sync', 'extension', 'cli', 'mcp', 'tools', 'bench'),
            // core/anchors (code anchors against a workspace) sees only the model; memory uses it.
            rooms('core/anchors', 'core/store', 'core/retrieval', 'core/ingest', 'core/vectors', 'core/memory'),
            rooms('core/model', 'core/anchors'),
            rooms('core/store', 'core/anchors'),
            rooms('core/retrieval', 'core/anchors'),
            rooms('core/ingest', 'core/anchors'),
            rooms('core/vectors', 'core/anchors'),
            // The extension's rooms: views are leaves; graph and chat draw with the views' parts;
            // ingest sees none of them. None imports the wiring (activation, the command table).
            rooms('extension/views', 'extension/graph', 'extension/chat', 'extension/ingest'),
            rooms('extension/graph', 'extension/chat', 'extension/ingest'),
            rooms('extension/chat', 'extension/graph', 'extension/ingest'),
            rooms('extension/ingest', 'extension/views', 'extension/graph', 'extension/chat'),
            {
              target: ['views', 'graph', 'chat', 'ingest'].map((r) => `./src/extension/${r}`),
              from: ['./src/extension/extension.ts', './src/extension/commands.ts'],
            },
            // A common/ folder imports only other common/ code from the extension, so nothing it
            // loads reaches `vscode` (the rule below) at run time.
            { target: './src/extension/**/common/**', from: './src/extension/**', except: ['**/src/extension/**/common/**'] },
          ],
        },
      ],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      '@typescript-eslint/no-unused-expressions': ['error', { allowShortCircuit: true, allowTernary: true }],
    },
  },
  // Retrieval reads the store through its search index and graph only: never the database itself.
  {
    files: ['src/core/retrieval/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: [
                '**/store/sqlite',
                '**/store/sqlite.js',
                '**/store/fts',
                '**/store/fts.js',
                '**/store/meta',
                '**/store/meta.js',
                '**/store/ids',
                '**/store/ids.js',
              ],
              message: 'Retrieval reaches the database only through store/search-index.ts and store/graph.ts.',
            },
          ],
        },
      ],
    },
  },
  // The extension's common/ folders run without VS Code: node tests import them directly, and
  // the graph's messages are shared with its webview script.
  {
    files: ['src/extension/**/common/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { paths: [{ name: 'vscode', message: 'common/ runs without VS Code: keep vscode in the room around it.' }] },
      ],
    },
  },
  // Tests read JSON answers loosely; a wrong shape fails the assertion that reads it.
  { files: ['test/**/*.ts'], rules: { '@typescript-eslint/no-explicit-any': 'off' } },
  // Plain CommonJS files (the e2e probe extension) load modules with require.
  { files: ['**/*.js'], rules: { '@typescript-eslint/no-require-imports': 'off' } },
  {
    files: ['**/*.mjs', '**/*.js'],
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        __dirname: 'readonly',
        require: 'readonly',
        module: 'writable',
        Buffer: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        URL: 'readonly',
      },
    },
  },
  prettier,
);
