export { startGateway, type Gateway, type GatewayOptions } from './server.ts';
export { loadConfig, ConfigError, type GatewayConfig, type CoreAuthConfig, type PolicyConfig } from './config.ts';
export {
  defaultRules,
  decideMoneyIn,
  moneyInFacts,
  type MoneyInRule,
  type MoneyInFacts,
  type RuleVerdict,
  type Decision,
} from './policy.ts';
