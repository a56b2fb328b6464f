// ESLint flat config for mmviz (`npm run lint` = `eslint web tests scripts`): the UI, its e2e harness, the Node tests and scripts.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import reactHooks from 'eslint-plugin-react-hooks';

const nodeGlobals = Object.fromEntries(
  ['process', 'console', 'URL', 'Buffer', 'setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'navigator', 'document', 'window', 'location', 'history', 'HTMLInputElement', 'Event', 'performance', 'structuredClone'].map(
    (name) => [name, 'readonly'],
  ),
);

/** Only web/src/engine/raw.ts may import the generated wasm package. */
const wasmPackagePattern = {
  group: ['**/wasm-pkg', '**/wasm-pkg/**', 'wasm-pkg', 'wasm-pkg/**'],
  message: 'Only web/src/engine/raw.ts imports the wasm package; use the SimEngine interface (engine/engine.ts).',
};
/** Only the engine worker may load raw.ts: wasm never runs on the UI thread (types are fine anywhere). */
const rawModulePattern = {
  group: ['**/raw', './raw'],
  allowTypeImports: true,
  message: 'Only web/src/engine/worker.ts loads the wasm module (raw.ts); the UI uses the SimEngine interface (engine/engine.ts).',
};
const wasmImportRule = ['error', { patterns: [wasmPackagePattern, rawModulePattern] }];

/**
 * No HTML from data anywhere in the lab (tests may build DOM fixtures from markup): no
 * dangerouslySetInnerHTML, no innerHTML/outerHTML assignment, no insertAdjacentHTML,
 * createContextualFragment or document.write. Text goes into the DOM as text nodes only.
 * tests/eslint-no-html.test.mjs checks that each of these fires.
 */
const noHtml = [
  { selector: "JSXAttribute[name.name='dangerouslySetInnerHTML']", message: 'Never interpret data as HTML (dangerouslySetInnerHTML).' },
  {
    selector: "AssignmentExpression > MemberExpression.left[property.name=/^(innerHTML|outerHTML)$/]",
    message: 'Never interpret data as HTML (innerHTML/outerHTML assignment): set textContent or build elements.',
  },
  {
    selector: "AssignmentExpression > MemberExpression.left[computed=true][property.value=/^(innerHTML|outerHTML)$/]",
    message: 'Never interpret data as HTML (innerHTML/outerHTML assignment): set textContent or build elements.',
  },
  {
    selector: 'CallExpression[callee.property.name=/^(insertAdjacentHTML|createContextualFragment)$/]',
    message: 'Never interpret data as HTML (insertAdjacentHTML, createContextualFragment).',
  },
  {
    selector: "CallExpression[callee.object.name='document'][callee.property.name=/^(write|writeln)$/]",
    message: 'Never interpret data as HTML (document.write).',
  },
];
const noWasmGlob = {
  selector: "CallExpression[callee.object.type='MetaProperty'][callee.property.name=/^glob/] Literal[value=/wasm-pkg/]",
  message: 'Only web/src/engine/raw.ts loads the wasm package.',
};

export default tseslint.config(
  { ignores: ['web/dist/**', 'web/src/wasm-pkg/**', 'artifacts/**', 'target/**'] },
  js.configs.recommended,
  {
    files: ['web/**/*.{ts,tsx}'],
    extends: [...tseslint.configs.recommended],
    plugins: { 'react-hooks': reactHooks },
    rules: {
      ...reactHooks.configs.flat.recommended.rules,
      'no-restricted-imports': wasmImportRule,
      'no-restricted-syntax': ['error', ...noHtml, noWasmGlob],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
    },
  },
  {
    files: ['web/src/engine/raw.ts'],
    rules: { 'no-restricted-imports': 'off', 'no-restricted-syntax': ['error', ...noHtml] },
  },
  {
    // Tests build DOM fixtures from literal markup of their own.
    files: ['web/src/**/*.test.{ts,tsx}'],
    rules: { 'no-restricted-syntax': ['error', noWasmGlob] },
  },
  {
    files: ['web/src/engine/worker.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [wasmPackagePattern] }] },
  },
  {
    files: ['web/e2e/**/*.mjs', 'tests/**/*.mjs', 'scripts/**/*.mjs', 'eslint.config.js'],
    languageOptions: { globals: nodeGlobals, sourceType: 'module' },
  },
  {
    // The service worker (written out as sw.js by the build, with BUILD and ASSETS in front).
    files: ['web/src/offline/serviceWorker.js'],
    languageOptions: {
      sourceType: 'script',
      globals: Object.fromEntries(['self', 'caches', 'fetch', 'URL', 'BUILD', 'ASSETS'].map((n) => [n, 'readonly'])),
    },
  },
);
