import config from '@paykit/eslint-config';

// blocks/ holds the docs' blocks as the check writes them: checked by tsc, not linted.
export default [{ ignores: ['blocks/**', 'test-blocks-*/**', 'test-tree-*/**'] }, ...config];
