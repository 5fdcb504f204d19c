export { auditDeliveries, dedupeKeyOf, deliveryFigures, type DeliveryAudit } from './audit.ts';
export {
  formatSummary,
  readScenarios,
  recordScenario,
  violations,
  REPORT_DIR_ENV,
  longestRestarts,
  type ReliabilityReport,
  type ReplicaFigures,
  type ScenarioFigures,
} from './report.ts';
export { currentScale, scaled, SCALE_ENV, type Scale } from './scale.ts';
export {
  ACME_CLABE,
  countApplied,
  countAppliedEvents,
  IS_APPLIED,
  startStack,
  type AppliedCounts,
  type Stack,
  type StackOptions,
  type StoredEvent,
} from './stack.ts';
export {
  haproxyConfig,
  haproxyMissing,
  haproxyServerName,
  startHaproxy,
  HAPROXY,
  HAPROXY_BACKEND,
  HAPROXY_REQUIRED,
  type Haproxy,
  type HaproxyConfigOptions,
  type HaproxyServerStat,
} from './haproxy.ts';
export { sendCredits, sleep, until, type CreditLoad } from './load.ts';
