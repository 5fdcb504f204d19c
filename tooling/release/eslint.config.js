import config from '@paykit/eslint-config';

// test/consumer holds a product team's code, type-checked against the packed packages in a
// project of its own, not here.
export default [{ ignores: ['test/consumer/**'] }, ...config];
