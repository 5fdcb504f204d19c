// The one lint config: ESLint's and typescript-eslint's recommended rules, strict about `any`
// (allowed only in generated code, which is not linted: it is checked by `pnpm gen:check`).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

// The domain primitives live in @paykit/domain; @paykit/runtime still re-exports them, deprecated,
// so its consumers keep working. Inside the workspace they come from @paykit/domain
// (`paykit-codemod domain-imports` rewrites an import; packages/codemods' test pins this list to
// the runtime's re-exports).
const RUNTIME_DOMAIN_NAMES = [
  'toCentavos',
  'fromCentavos',
  'formatMoney',
  'MoneyError',
  'parseMexicoCityLocal',
  'parseOffsetTimestamp',
  'formatMexicoCity',
  'formatMexicoCityLocal',
  'formatMexicoCityOffset',
  'TimeFormatError',
  'parseClabe',
  'isValidClabe',
  'clabeControlDigit',
  'ClabeError',
  'isValidRfc',
  'isValidCardNumber',
  'maskCardNumber',
  'maskCardNumbersIn',
];

export default tseslint.config(
  { ignores: ['**/dist/**', '**/src/generated/**', '**/node_modules/**', '**/.turbo/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' },
      ],
      eqeqeq: ['error', 'always'],
      'no-restricted-imports': [
        'error',
        {
          paths: [
            {
              name: '@paykit/runtime',
              importNames: RUNTIME_DOMAIN_NAMES,
              message:
                'import it from @paykit/domain (the domain primitives moved there; `paykit-codemod domain-imports` rewrites the import).',
            },
          ],
        },
      ],
    },
  },
);
