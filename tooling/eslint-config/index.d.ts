// The config's type, for the TypeScript that reads it (packages/codemods' test of the domain-imports rule).
import type { Linter } from 'eslint';

declare const config: Linter.Config[];
export default config;
