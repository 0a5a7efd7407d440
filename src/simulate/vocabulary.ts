/**
 * The words of the simulated platform: capabilities with their methods, typical durations and
 * credit costs, chains, node ids and organization names. Values are modelled on a real
 * decentralised workflow platform so that dashboards and filters built on the API look right.
 */
import type { Random } from './prng.js';

export type TriggerKind = 'cron' | 'http' | 'log';
export type StepKind = 'http' | 'evmRead' | 'compute' | 'consensus' | 'evmWrite';
/** A stage of an execution: the trigger, then the workflow's steps in order. */
export type Stage = 'trigger' | StepKind;

export interface Capability {
  readonly id: string;
  readonly method: string;
  /** Typical duration (log-normal median, spread and hard bounds), in milliseconds. */
  readonly medianMs: number;
  readonly sigma: number;
  readonly minMs: number;
  readonly maxMs: number;
  /** Credits charged per call, in millionths of a credit: [min, max). */
  readonly microCredits: readonly [number, number];
}

export const TRIGGER_CAPABILITIES: Readonly<Record<TriggerKind, Capability>> = {
  cron: {
    id: 'cron-trigger@1.0.0',
    method: 'Trigger',
    medianMs: 35,
    sigma: 0.4,
    minMs: 8,
    maxMs: 400,
    microCredits: [500, 1000],
  },
  http: {
    id: 'http-trigger@1.0.0',
    method: 'Trigger',
    medianMs: 60,
    sigma: 0.5,
    minMs: 10,
    maxMs: 900,
    microCredits: [800, 1500],
  },
  log: {
    id: 'evm-log-trigger@1.0.0',
    method: 'LogTrigger',
    medianMs: 90,
    sigma: 0.5,
    minMs: 15,
    maxMs: 1500,
    microCredits: [1000, 2000],
  },
};

export const STEP_CAPABILITIES: Readonly<Record<StepKind, Capability>> = {
  http: {
    id: 'http-actions@1.0.0',
    method: 'SendRequest',
    medianMs: 420,
    sigma: 0.6,
    minMs: 60,
    maxMs: 8000,
    microCredits: [4000, 9000],
  },
  evmRead: {
    id: 'evm-read@1.0.0',
    method: 'CallContract',
    medianMs: 180,
    sigma: 0.5,
    minMs: 30,
    maxMs: 4000,
    microCredits: [2000, 5000],
  },
  compute: {
    id: 'compute@1.0.0',
    method: 'Execute',
    medianMs: 90,
    sigma: 0.7,
    minMs: 12,
    maxMs: 5000,
    microCredits: [1000, 12000],
  },
  consensus: {
    id: 'consensus@1.0.0',
    method: 'Report',
    medianMs: 900,
    sigma: 0.45,
    minMs: 250,
    maxMs: 6000,
    microCredits: [6000, 11000],
  },
  evmWrite: {
    id: 'evm-write@1.0.0',
    method: 'WriteReport',
    medianMs: 4200,
    sigma: 0.5,
    minMs: 900,
    maxMs: 30000,
    microCredits: [25000, 90000],
  },
};

export interface Chain {
  readonly name: string;
  /** The chain selector used by cross-chain tooling, a decimal uint64. */
  readonly selector: string;
  readonly nativeToken: string;
  readonly blockMs: number;
}

export const CHAINS: readonly Chain[] = [
  { name: 'ethereum-mainnet', selector: '5009297550715157269', nativeToken: 'ETH', blockMs: 12_000 },
  { name: 'base-mainnet', selector: '15971525489660198786', nativeToken: 'ETH', blockMs: 2_000 },
  { name: 'arbitrum-one', selector: '4949039107694359620', nativeToken: 'ETH', blockMs: 1_000 },
  { name: 'optimism-mainnet', selector: '3734403246176062136', nativeToken: 'ETH', blockMs: 2_000 },
  { name: 'polygon-mainnet', selector: '4051577828743386545', nativeToken: 'POL', blockMs: 2_000 },
  { name: 'avalanche-mainnet', selector: '6433500567565415381', nativeToken: 'AVAX', blockMs: 2_000 },
];

export interface CronSchedule {
  readonly expression: string;
  readonly intervalMs: number;
}

const MIN = 60_000;
/** Cron schedules people actually use; each interval divides a day, so ticks align to UTC midnight. */
export const CRON_SCHEDULES: readonly CronSchedule[] = [
  { expression: '* * * * *', intervalMs: MIN },
  { expression: '*/2 * * * *', intervalMs: 2 * MIN },
  { expression: '*/5 * * * *', intervalMs: 5 * MIN },
  { expression: '*/10 * * * *', intervalMs: 10 * MIN },
  { expression: '*/15 * * * *', intervalMs: 15 * MIN },
  { expression: '*/30 * * * *', intervalMs: 30 * MIN },
  { expression: '0 * * * *', intervalMs: 60 * MIN },
  { expression: '0 */2 * * *', intervalMs: 120 * MIN },
  { expression: '0 */6 * * *', intervalMs: 360 * MIN },
  { expression: '0 */12 * * *', intervalMs: 720 * MIN },
  { expression: '0 0 * * *', intervalMs: 1440 * MIN },
];

/** Nodes of one decentralised oracle network: every execution runs on all of them. */
export const DON_SIZE = 4;
/** Observations consensus needs: 2F+1 of 3F+1 nodes. */
export const QUORUM = 3;

/** A libp2p peer id, the form node ids take on such networks. */
export function nodeId(r: Random): string {
  return `12D3KooW${r.base58(44)}`;
}

export function address(r: Random): string {
  return `0x${r.hex(40)}`;
}

export const ORGANIZATIONS: readonly { readonly displayName: string; readonly slug: string }[] = [
  { displayName: 'Northwind Oracles', slug: 'northwind-oracles' },
  { displayName: 'Acme Digital Assets', slug: 'acme-digital-assets' },
  { displayName: 'Globex Markets', slug: 'globex-markets' },
  { displayName: 'Initech Treasury', slug: 'initech-treasury' },
  { displayName: 'Contoso DeFi Labs', slug: 'contoso-defi' },
  { displayName: 'Umbrella Tokenization', slug: 'umbrella-tokenization' },
];

/** Reasons a deployment is refused before any transaction is sent. */
export const DEPLOY_ERRORS: readonly ((r: Random) => string)[] = [
  (r) => `workflow binary is ${r.intBetween(21, 48)} MB, above the 20 MB limit`,
  () => 'compile workflow: wasm validation failed: unknown import "env.get_secret_v2"',
  () => 'config validation failed: schedule: expected 5 or 6 fields, got 4',
  (r) =>
    `secret "${r.pick(['API_KEY', 'RPC_TOKEN', 'SIGNER_KEY'])}" referenced by the workflow is not set for this owner`,
  () => 'workflow registry rejected the registration: a workflow with this name already exists for the owner',
  () => 'owner address is not allowlisted to deploy workflows',
];
