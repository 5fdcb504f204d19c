export {
  migrateMoneyOut,
  type MoneyOutOptions,
  type MoneyOutReport,
  type MoneyOutChange,
  type MoneyOutSkip,
} from './money-out.ts';
export {
  migrateDomainImports,
  RUNTIME_DOMAIN_NAMES,
  DOMAIN_IMPORTS_REASON,
  type DomainImportsOptions,
  type DomainImportsReport,
  type DomainImportsChange,
  type DomainImportsSkip,
} from './domain-imports.ts';
export { formatMoneyOutReport, formatDomainImportsReport } from './format.ts';
export { INTERNAL_TRANSACTION_DEPRECATION, INTERNAL_TRANSACTION_DEPRECATED_SINCE } from './deprecation.ts';
export type { MoneyOutReport as Report } from './money-out.ts';
export { CodemodInputError } from './files.ts';
