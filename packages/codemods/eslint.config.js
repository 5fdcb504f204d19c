import config from '@paykit/eslint-config';

// The fixtures are code bases for the codemod to rewrite, not part of this package.
export default [{ ignores: ['test/fixtures/**'] }, ...config];
