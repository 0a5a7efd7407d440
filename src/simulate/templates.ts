/**
 * Kinds of workflow people deploy: what triggers them, the capabilities they call in order, how
 * they are named, and what their own code logs. A simulated workflow is one template applied to
 * one subject (a price pair, an asset, a partner...).
 */
import type { Random } from './prng.js';
import type { StepKind, TriggerKind } from './vocabulary.js';

export interface Template {
  readonly key: string;
  readonly trigger: TriggerKind;
  /** Capabilities called after the trigger, in order. */
  readonly steps: readonly StepKind[];
  /** Relative busyness of such workflows. */
  readonly weight: number;
  readonly subjects: readonly string[];
  /** Names are `<subject>-<suffix>`. */
  readonly suffix: string;
  /** External APIs the workflow's http steps call. */
  readonly hosts: readonly string[];
  /** Log event a log-triggered workflow listens to. */
  readonly logEvent?: string;
  /** A line the workflow's own code logs on each node during compute. */
  userLog(r: Random, subject: string): string;
}

const PRICES: Readonly<Record<string, number>> = {
  'eth-usd': 3120,
  'btc-usd': 64250,
  'link-usd': 14.2,
  'sol-usd': 151,
  'eur-usd': 1.084,
  'xau-usd': 2365,
  'steth-eth': 0.9993,
};

const pair = (subject: string) => subject.toUpperCase().replace('-', '/');
const amount = (r: Random, median: number) => Math.round(r.logNormal(median, 0.6)).toLocaleString('en-US');
const fixed = (value: number, digits: number) => value.toFixed(digits);

export const TEMPLATES: readonly Template[] = [
  {
    key: 'price-feed',
    trigger: 'cron',
    steps: ['http', 'compute', 'consensus', 'evmWrite'],
    weight: 3,
    subjects: Object.keys(PRICES),
    suffix: 'price-feed',
    hosts: ['api.coingecko.com', 'api.kraken.com', 'api.coinbase.com'],
    userLog: (r, subject) =>
      `fetched ${pair(subject)} median ${fixed((PRICES[subject] ?? 1) * (1 + 0.004 * r.normal()), 4)} from 3 of 3 sources (spread ${fixed(r.between(0.01, 0.2), 2)}%)`,
  },
  {
    key: 'proof-of-reserve',
    trigger: 'cron',
    steps: ['http', 'evmRead', 'compute', 'consensus', 'evmWrite'],
    weight: 1,
    subjects: ['usdc', 'wbtc', 'tusd', 'paxg', 'cbbtc', 'eurc'],
    suffix: 'proof-of-reserve',
    hosts: ['reserves.custodian.example', 'attest.ledgerworks.io'],
    userLog: (r, subject) =>
      `${subject.toUpperCase()} reserves ${amount(r, 4_200_000)} vs supply ${amount(r, 4_150_000)}: collateral ratio ${fixed(r.between(1.0, 1.04), 4)}`,
  },
  {
    key: 'nav-update',
    trigger: 'cron',
    steps: ['http', 'compute', 'consensus', 'evmWrite'],
    weight: 0.5,
    subjects: ['tbill-fund', 'money-market', 'private-credit', 'real-estate-pool'],
    suffix: 'nav-update',
    hosts: ['api.fundadmin.example', 'nav.transferagent.io'],
    userLog: (r) => `NAV per share ${fixed(r.between(1.0, 1.09), 6)} (AUM $${fixed(r.between(40, 900), 1)}M)`,
  },
  {
    key: 'vault-rebalancer',
    trigger: 'cron',
    steps: ['evmRead', 'compute', 'consensus', 'evmWrite'],
    weight: 1,
    subjects: ['usdc-yield', 'eth-staking', 'stable-lp', 'treasury'],
    suffix: 'vault-rebalancer',
    hosts: [],
    userLog: (r) =>
      `utilization ${fixed(r.between(55, 97), 1)}%: moving ${amount(r, 120_000)} USDC to ${r.pick(['aave-v3', 'compound-v3', 'morpho-blue'])}`,
  },
  {
    key: 'health-monitor',
    trigger: 'cron',
    steps: ['evmRead', 'compute', 'http'],
    weight: 1.5,
    subjects: ['lending-pool', 'bridge-liquidity', 'oracle-deviation', 'keeper-balance'],
    suffix: 'monitor',
    hosts: ['hooks.slack.com', 'events.pagerduty.com'],
    userLog: (r) =>
      `checked ${r.intBetween(4, 40)} positions: min health factor ${fixed(r.between(1.1, 3.5), 3)}, no alert`,
  },
  {
    key: 'webhook-relay',
    trigger: 'http',
    steps: ['compute', 'consensus', 'evmWrite'],
    weight: 2,
    subjects: ['stripe', 'shopify', 'partner-orders', 'kyc-provider'],
    suffix: 'webhook-relay',
    hosts: [],
    userLog: (r, subject) =>
      `received ${subject} event #${r.intBetween(10_000, 999_999)} (${r.intBetween(300, 4000)} bytes): signature valid`,
  },
  {
    key: 'api-sync',
    trigger: 'http',
    steps: ['http', 'compute'],
    weight: 2,
    subjects: ['crm', 'settlement-ledger', 'risk-engine', 'invoice'],
    suffix: 'api-sync',
    hosts: ['api.internal.example', 'ledger.partner.example'],
    userLog: (r, subject) => `synced ${r.intBetween(1, 250)} ${subject} records (cursor ${r.hex(8)})`,
  },
  {
    key: 'bridge-relayer',
    trigger: 'log',
    steps: ['compute', 'consensus', 'evmWrite'],
    weight: 2,
    subjects: ['base-arbitrum', 'eth-base', 'eth-optimism', 'polygon-eth'],
    suffix: 'bridge-relayer',
    hosts: [],
    logEvent: 'MessageSent',
    userLog: (r, subject) =>
      `relaying ${fixed(r.logNormal(1.5, 1), 4)} ETH over ${subject} (nonce ${r.intBetween(1000, 90_000)})`,
  },
  {
    key: 'liquidation-guard',
    trigger: 'log',
    steps: ['evmRead', 'compute', 'consensus', 'evmWrite'],
    weight: 1,
    subjects: ['aave-v3', 'compound-v3', 'spark', 'morpho'],
    suffix: 'liquidation-guard',
    hosts: [],
    logEvent: 'PositionUpdated',
    userLog: (r) =>
      `position 0x${r.hex(8)}… health ${fixed(r.between(1.0, 1.08), 3)} below 1.08: submitting top-up of ${amount(r, 5000)} USDC`,
  },
  {
    key: 'mint-attestation',
    trigger: 'log',
    steps: ['http', 'compute', 'consensus', 'evmWrite'],
    weight: 1,
    subjects: ['usdx', 'tokenized-gold', 'euro-stable', 'carbon-credit'],
    suffix: 'mint-attestation',
    hosts: ['custody.bank.example', 'api.registry.example'],
    logEvent: 'MintRequested',
    userLog: (r, subject) =>
      `mint of ${amount(r, 50_000)} ${subject} attested by custodian (ref ${r.hex(12)})`,
  },
];
