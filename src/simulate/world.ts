/**
 * The simulated world: one organization's owners, nodes and workflow catalogue, each workflow
 * with its trigger (a cron schedule, or an arrival rate of HTTP calls or on-chain logs), chain,
 * failure rate and TEE share. A plan always gives the same world. `draftWorld` calibrates arrival
 * rates to a little more than the plan's executions; create-world.ts then fixes which arrivals
 * run (`quota`), so that exactly `executions` start in [start, start + days].
 */
import { DAY, MINUTE } from '../lib/time.js';
import { FAILURES, type Failure } from './failures.js';
import { hashText, type Random, randomFor } from './prng.js';
import { TEMPLATES, type Template } from './templates.js';
import {
  address,
  CHAINS,
  type Chain,
  CRON_SCHEDULES,
  type CronSchedule,
  DON_SIZE,
  nodeId,
  ORGANIZATIONS,
} from './vocabulary.js';

export interface SimulationPlan {
  readonly seed: string;
  readonly organizationId: string;
  readonly workflows: number;
  /** The instant executions begin (ms since the epoch); most workflows are registered earlier. */
  readonly start: number;
  readonly days: number;
  /** Executions that start in [start, start + days]; they keep coming after that at the same rates. */
  readonly executions: number;
}

/** An arrival's place in the order that decides which arrivals run: its hash, then its identity. */
export interface ArrivalKey {
  readonly hash: number;
  readonly workflow: number;
  readonly slot: number;
  readonly index: number;
}

/** Which arrivals of a kind run: all, none, or those whose key is at most the bound. */
export type KeepBound = 'all' | 'none' | ArrivalKey;

/** Cron ticks and event-driven arrivals are kept apart, so that crons lose ticks only when they must. */
export interface ExecutionQuota {
  readonly cron: KeepBound;
  readonly event: KeepBound;
}

/** How generously a draft is calibrated; create-world.ts raises these until the plan fits. */
export interface DraftTuning {
  /** Event-driven arrivals expected, as a multiple of what the plan leaves them. */
  readonly eventHeadroom: number;
  /** Steps towards faster schedules for cron workflows (when nothing else can run). */
  readonly cronSpeedup: number;
}

/** Independent random streams of a world, one per kind of thing it invents. */
export const STREAM = {
  organization: 1,
  workflow: 2,
  deployments: 3,
  incidents: 4,
  arrivals: 5,
  execution: 6,
  quota: 7,
  regressions: 8,
} as const;

export type Trigger =
  | { readonly kind: 'cron'; readonly schedule: CronSchedule }
  /** Poisson arrivals at `perMs` on average, drawn per slot of `slotMs` (a divisor of a day). */
  | { readonly kind: 'http' | 'log'; readonly perMs: number; readonly slotMs: number };

export interface InitialDeployment {
  readonly uuid: string;
  readonly txHash: string;
  readonly binaryURL: string;
  readonly configURL: string;
}

export interface SimWorkflow {
  readonly index: number;
  readonly uuid: string;
  readonly workflowId: string;
  readonly name: string;
  readonly ownerAddress: string;
  readonly source: string;
  /** Registration and first deployment happen at this instant. */
  readonly registeredAt: number;
  readonly initialDeployment: InitialDeployment;
  readonly template: Template;
  readonly subject: string;
  readonly chain: Chain;
  readonly host: string;
  readonly contract: string;
  readonly trigger: Trigger;
  readonly failureRate: number;
  /** Share of executions run in a trusted execution environment: 0, 0.5 or 1. */
  readonly teeShare: number;
  /** Failures this workflow's stages can have, user errors and system errors apart. */
  readonly failures: { readonly user: readonly Failure[]; readonly system: readonly Failure[] };
}

export interface World {
  readonly plan: SimulationPlan;
  readonly seed: number;
  readonly start: number;
  readonly end: number;
  readonly organization: { readonly displayName: string; readonly slug: string };
  readonly owners: readonly string[];
  /** The nodes every execution runs on. */
  readonly nodes: readonly string[];
  readonly chains: readonly Chain[];
  readonly workflows: readonly SimWorkflow[];
  /** Which arrivals run (see create-world.ts); a draft keeps all of them. */
  readonly quota: ExecutionQuota;
  /**
   * Executions that start in [start, end]: the plan's `executions`, unless every workflow is
   * cron-triggered and even their fastest schedules tick fewer times.
   */
  readonly executionCount: number;
}

const SLOT_WIDTHS = [MINUTE, 5 * MINUTE, 15 * MINUTE, 60 * MINUTE, 360 * MINUTE, DAY];
/** Expected arrivals per slot the slot width is chosen for: small slots for busy workflows. */
const ARRIVALS_PER_SLOT = 3;

/**
 * The world of a plan with every arrival kept; `executionCount` is unknown (NaN) until
 * create-world.ts has counted them.
 */
export function draftWorld(plan: SimulationPlan, tuning: DraftTuning): World {
  if (!Number.isInteger(plan.workflows) || plan.workflows < 1) throw new RangeError('workflows must be >= 1');
  if (!(plan.days > 0)) throw new RangeError('days must be > 0');
  if (!(plan.executions >= 0)) throw new RangeError('executions must be >= 0');
  const seed = hashText(plan.seed);
  const { displayName, slug } = organizationProfile(plan.seed);
  const organization = { displayName, slug };
  const org = randomFor(seed, STREAM.organization);
  const owners = Array.from({ length: org.intBetween(1, 3) }, () => address(org));
  const nodes = Array.from({ length: DON_SIZE }, () => nodeId(org));
  const templates = shuffled(org, TEMPLATES);
  const start = plan.start;
  const end = start + plan.days * DAY;

  const names = new Set<string>();
  const drafts = Array.from({ length: plan.workflows }, (_, index) => {
    const r = randomFor(seed, STREAM.workflow, index);
    const template = templates[index % templates.length]!;
    const subject = uniqueSubject(r, template, names);
    const name = `${subject}-${template.suffix}${names.has(`${subject}-${template.suffix}`) ? `-${index}` : ''}`;
    names.add(name);
    const registeredAt =
      index < 3 || r.chance(0.75)
        ? Math.floor(start - r.between(1, 90) * DAY)
        : Math.floor(start + r.between(0, 0.6) * plan.days * DAY);
    const artifacts = `https://storage.googleapis.com/${organization.slug}-workflows/${name}/${r.hex(12)}`;
    const chain = r.weighted(CHAINS.map((c, i) => [c, i < 3 ? 3 : 1] as const));
    const stages = new Set<string>(template.steps);
    if (template.trigger === 'http') stages.add('trigger');
    const reachable = FAILURES.filter((f) => stages.has(f.stage));
    return {
      index,
      uuid: r.uuid(),
      workflowId: r.hex(64),
      name,
      ownerAddress: r.pick(owners),
      source: r.chance(0.7) ? `https://github.com/${organization.slug}/workflows/tree/main/${name}` : 'cli',
      registeredAt,
      initialDeployment: {
        uuid: r.uuid(),
        txHash: `0x${r.hex(64)}`,
        binaryURL: `${artifacts}/binary.wasm.br`,
        configURL: `${artifacts}/config.json`,
      },
      template,
      subject,
      chain,
      host: template.hosts.length > 0 ? r.pick(template.hosts) : 'api.example.com',
      contract: address(r),
      failureRate: index % 7 === 3 ? r.between(0.08, 0.15) : Math.min(0.08, r.logNormal(0.015, 0.6)),
      teeShare: index % 5 === 2 ? 1 : index % 10 === 4 ? 0.5 : 0,
      failures: {
        user: reachable.filter((f) => f.classified === 'USER_ERROR'),
        system: reachable.filter((f) => f.classified === 'SYSTEM_ERROR'),
      },
      weight: template.weight * r.logNormal(1, 0.8),
    };
  });
  const triggers = calibrate(drafts, plan, start, end, tuning);
  const workflows = drafts.map(({ weight: _weight, ...draft }, i) => ({ ...draft, trigger: triggers[i]! }));
  const chains = [...new Set(workflows.map((w) => w.chain))];
  const quota: ExecutionQuota = { cron: 'all', event: 'all' };
  return {
    plan,
    seed,
    start,
    end,
    organization,
    owners,
    nodes,
    chains,
    workflows,
    quota,
    executionCount: NaN,
  };
}

/**
 * The organization a seed simulates: its name, and the id its records carry when no
 * organization id is given (stable, so that a file generated twice is the same file).
 */
export function organizationProfile(seedText: string): {
  displayName: string;
  slug: string;
  defaultId: string;
} {
  const r = randomFor(hashText(seedText), STREAM.organization, 0);
  return { ...r.pick(ORGANIZATIONS), defaultId: r.uuid() };
}

/**
 * Gives cron workflows the schedule nearest their share of the daily budget (`cronSpeedup` steps
 * faster), then spreads what the cron ticks leave of `executions`, with headroom, over the
 * event-driven workflows by weight and active time.
 */
function calibrate(
  drafts: readonly { template: Template; weight: number; registeredAt: number }[],
  plan: SimulationPlan,
  start: number,
  end: number,
  tuning: DraftTuning,
): Trigger[] {
  const totalWeight = drafts.reduce((sum, d) => sum + d.weight, 0);
  const perDay = plan.executions / plan.days;
  const activeMs = (d: { registeredAt: number }) => Math.max(0, end - Math.max(start, d.registeredAt));
  let cronExecutions = 0;
  const schedules = drafts.map((d) => {
    if (d.template.trigger !== 'cron') return undefined;
    const targetMs = DAY / Math.max((perDay * d.weight) / totalWeight, 1e-9);
    const schedule = fasterSchedule(nearestSchedule(targetMs), tuning.cronSpeedup);
    const from = Math.max(start, d.registeredAt);
    cronExecutions += Math.max(
      0,
      Math.ceil(end / schedule.intervalMs) - Math.ceil(from / schedule.intervalMs),
    );
    return schedule;
  });
  const share = Math.max(plan.executions - cronExecutions, plan.executions * 0.02);
  // A little more than their share, so that the quota can pick exactly as many as they need.
  const remaining = (share * 1.1 + 3 * Math.sqrt(share) + 3) * tuning.eventHeadroom;
  const eventExposure = drafts.reduce(
    (sum, d) => (d.template.trigger === 'cron' ? sum : sum + d.weight * activeMs(d)),
    0,
  );
  return drafts.map((d, i): Trigger => {
    const schedule = schedules[i];
    if (schedule) return { kind: 'cron', schedule };
    const perMs = eventExposure > 0 ? (remaining * d.weight) / eventExposure : 0;
    const slotMs = [...SLOT_WIDTHS].reverse().find((w) => perMs * w <= ARRIVALS_PER_SLOT) ?? MINUTE;
    return { kind: d.template.trigger as 'http' | 'log', perMs, slotMs };
  });
}

function nearestSchedule(targetMs: number): CronSchedule {
  let best = CRON_SCHEDULES[0]!;
  for (const schedule of CRON_SCHEDULES) {
    if (Math.abs(Math.log(schedule.intervalMs / targetMs)) < Math.abs(Math.log(best.intervalMs / targetMs)))
      best = schedule;
  }
  return best;
}

/** The schedule `steps` places faster in the list (which runs from every minute to daily). */
function fasterSchedule(schedule: CronSchedule, steps: number): CronSchedule {
  return CRON_SCHEDULES[Math.max(0, CRON_SCHEDULES.indexOf(schedule) - steps)]!;
}

function uniqueSubject(r: Random, template: Template, taken: ReadonlySet<string>): string {
  const first = r.int(template.subjects.length);
  for (let i = 0; i < template.subjects.length; i++) {
    const subject = template.subjects[(first + i) % template.subjects.length]!;
    if (!taken.has(`${subject}-${template.suffix}`)) return subject;
  }
  return template.subjects[first]!;
}

function shuffled<T>(r: Random, items: readonly T[]): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = r.int(i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}
