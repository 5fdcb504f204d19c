import config from '@paykit/eslint-config';

// The fixture workspace breaks the boundary rules on purpose; it is read by dependency-cruiser, not run.
export default [{ ignores: ['fixtures/**'] }, ...config];
