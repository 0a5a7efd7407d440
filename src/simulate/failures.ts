/**
 * How executions fail: each failure happens in one stage, is classified as the user's fault
 * (their code, their config, their contract, their upstream API) or the platform's (RPC, gas,
 * consensus, nodes), and some are timeouts that make the failing stage long. Incidents are
 * platform-wide periods in which one system failure hits every workflow it can reach.
 */
import type { Random } from './prng.js';
import type { Chain, Stage } from './vocabulary.js';

export type FailureClass = 'USER_ERROR' | 'SYSTEM_ERROR';

/** What a failure message may mention about the workflow it happens to. */
export interface FailureContext {
  readonly chain: Chain;
  readonly host: string;
  readonly contract: string;
}

export interface Failure {
  readonly key: string;
  readonly stage: Stage;
  readonly classified: FailureClass;
  /** When set, the failing stage lasts this long (a deadline expired), in milliseconds. */
  readonly timeoutMs?: number;
  message(r: Random, context: FailureContext): string;
}

const gwei = (r: Random, median: number) => r.logNormal(median, 0.3).toFixed(1);

export const FAILURES: readonly Failure[] = [
  {
    key: 'rpc-timeout-read',
    stage: 'evmRead',
    classified: 'SYSTEM_ERROR',
    timeoutMs: 10_000,
    message: (r, c) =>
      `rpc error: context deadline exceeded after ${(10 + r.next() / 10).toFixed(3)}s (chain ${c.chain.name}, selector ${c.chain.selector})`,
  },
  {
    key: 'rpc-timeout-write',
    stage: 'evmWrite',
    classified: 'SYSTEM_ERROR',
    timeoutMs: 30_000,
    message: (r, c) =>
      `rpc error: context deadline exceeded while waiting for receipt of tx 0x${r.hex(64)} on ${c.chain.name}`,
  },
  {
    key: 'underpriced',
    stage: 'evmWrite',
    classified: 'SYSTEM_ERROR',
    message: (r) =>
      `transaction underpriced: max fee per gas ${gwei(r, 14)} gwei less than block base fee ${gwei(r, 31)} gwei`,
  },
  {
    key: 'forwarder-funds',
    stage: 'evmWrite',
    classified: 'SYSTEM_ERROR',
    message: (r, c) =>
      `insufficient funds for gas * price + value: forwarder 0x${r.hex(40)} balance ${r.between(0.0001, 0.004).toFixed(5)} ${c.chain.nativeToken}`,
  },
  {
    key: 'nonce',
    stage: 'evmWrite',
    classified: 'SYSTEM_ERROR',
    message: (r) => {
      const nonce = r.intBetween(1200, 90_000);
      return `nonce too low: next nonce ${nonce + 1}, tx nonce ${nonce}`;
    },
  },
  {
    key: 'consensus',
    stage: 'consensus',
    classified: 'SYSTEM_ERROR',
    timeoutMs: 20_000,
    message: (r) => `consensus not reached: ${r.intBetween(1, 2)} of 4 observations agree, 3 required (F=1)`,
  },
  {
    key: 'quorum',
    stage: 'compute',
    classified: 'SYSTEM_ERROR',
    timeoutMs: 15_000,
    message: (r) => `DON quorum unavailable: ${r.intBetween(1, 2)} of 4 nodes responded before the deadline`,
  },
  {
    key: 'http-capability-timeout',
    stage: 'http',
    classified: 'SYSTEM_ERROR',
    timeoutMs: 10_000,
    message: (r, c) => `capability http-actions@1.0.0: request ${r.uuid()} to ${c.host} timed out after 10s`,
  },
  {
    key: 'panic-index',
    stage: 'compute',
    classified: 'USER_ERROR',
    message: (r) => {
      const length = r.intBetween(0, 4);
      return `wasm trap: panic: runtime error: index out of range [${length}] with length ${length}`;
    },
  },
  {
    key: 'panic-json',
    stage: 'compute',
    classified: 'USER_ERROR',
    message: (r) =>
      `panic: json: cannot unmarshal string "${r.pick(['n/a', 'null', 'NaN', ''])}" into Go struct field Response.data.price of type float64 (offset ${r.intBetween(40, 900)})`,
  },
  {
    key: 'memory',
    stage: 'compute',
    classified: 'USER_ERROR',
    message: (r) =>
      `workflow exceeded its memory limit of 128 MiB (${(128 + r.next() * 8).toFixed(1)} MiB in use)`,
  },
  {
    key: 'upstream-status',
    stage: 'http',
    classified: 'USER_ERROR',
    message: (r, c) =>
      `upstream ${c.host} returned ${r.pick(['429 Too Many Requests', '404 Not Found', '401 Unauthorized', '502 Bad Gateway'])}`,
  },
  {
    key: 'revert-write',
    stage: 'evmWrite',
    classified: 'USER_ERROR',
    message: (r, c) =>
      `execution reverted: ${r.pick(['StalePrice()', 'InvalidReport()', 'Ownable: caller is not the owner', 'Pausable: paused'])} (contract ${c.contract})`,
  },
  {
    key: 'revert-read',
    stage: 'evmRead',
    classified: 'USER_ERROR',
    message: (r, c) =>
      `execution reverted: call to ${c.contract} reverted without a reason at block ${r.intBetween(20_000_000, 24_000_000)}`,
  },
  {
    key: 'bad-payload',
    stage: 'trigger',
    classified: 'USER_ERROR',
    message: (r) =>
      `http trigger: invalid payload: signature 0x${r.hex(130)} does not match any authorized key`,
  },
];

export interface IncidentKind {
  readonly key: string;
  readonly failure: Failure;
  /** Whether the incident hits one chain only (RPC outages, gas spikes) or every workflow. */
  readonly perChain: boolean;
  readonly weight: number;
}

const failure = (key: string): Failure => FAILURES.find((f) => f.key === key)!;

export const INCIDENT_KINDS: readonly IncidentKind[] = [
  { key: 'rpc-outage-write', failure: failure('rpc-timeout-write'), perChain: true, weight: 3 },
  { key: 'rpc-outage-read', failure: failure('rpc-timeout-read'), perChain: true, weight: 2 },
  { key: 'gas-spike', failure: failure('underpriced'), perChain: true, weight: 3 },
  { key: 'consensus-degraded', failure: failure('consensus'), perChain: false, weight: 2 },
  { key: 'node-outage', failure: failure('quorum'), perChain: false, weight: 1 },
];
