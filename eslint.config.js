import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/', '.stack/', '.tools/', 'coverage/', 'loadtest/results/', 'k6/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-console': 'off',
    },
  },
  {
    // The portal's one browser script.
    files: ['services/portal/static/**/*.js'],
    languageOptions: {
      sourceType: 'script',
      globals: {
        document: 'readonly',
        Element: 'readonly',
        navigator: 'readonly',
        fetch: 'readonly',
        setInterval: 'readonly',
      },
    },
  },
);
