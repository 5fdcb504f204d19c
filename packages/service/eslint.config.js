export { default } from '@paykit/eslint-config';
