/**
 * The public schema as the contract writes it, copied as written: section 1 (the hosted API) and
 * section 5's additions (wfapi's insight queries). Tests compare the schema a server serves with
 * these tables, so that nothing is added to, or missing from, either kind of schema.
 */
import assert from 'node:assert/strict';
import {
  buildClientSchema,
  getIntrospectionQuery,
  type IntrospectionQuery,
  isEnumType,
  isInputObjectType,
  isObjectType,
  isScalarType,
  isSpecifiedScalarType,
} from 'graphql';
import type { TestServer } from './server.js';

/** A schema as the contract writes it: each type's fields as `name: Type, ...` (`!` = never null). */
export interface ContractSchema {
  /** Object types other than Query. */
  readonly objects: Readonly<Record<string, string>>;
  readonly inputs: Readonly<Record<string, string>>;
  /** Every value, in the contract's order. */
  readonly enums: Readonly<Record<string, string>>;
  /** Root fields: `(input: XInput!) Output!`, or the type alone for fields without arguments. */
  readonly queries: Readonly<Record<string, string>>;
  /** Custom scalars (the specified ones, String, Int, ..., are GraphQL's own). */
  readonly scalars: readonly string[];
}

/** Contract section 1, "Public read interface". */
export const SECTION_1: ContractSchema = {
  objects: {
    OrganizationAccount:
      'memberId: MemberId!, userId: UserId, organizationId: OrganizationId!, emailAddress: Email!, displayName: LabelText!, memberType: MemberType, memberStatus: MemberStatus!, createdAt: Time!, updatedAt: Time!, invitedByUser: UserId, invitedAt: Time, joinedAt: Time, removedByUser: UserId, removedAt: Time',
    Organization:
      'organizationId: OrganizationId!, displayName: LabelText!, createdAt: Time!, updatedAt: Time!, restrictionStatus: OrganizationRestrictionStatus!, activeStatus: EntityActiveStatus!, tenantId: Int!',
    Workflow:
      'uuid: String!, ownerAddress: OnchainAddress!, name: String!, workflowId: WorkflowId!, status: WorkflowDeploymentStatus!, registeredAt: Time!, creditUsed: CreditAmount, executedAt: Time, executionCount: Int!, executionCountByStatus: WorkflowExecutionCountByStatus!, workflowSource: String!, hasTeeExecutions: Boolean!, hasNonTeeExecutions: Boolean!',
    WorkflowExecutionCountByStatus: 'success: Int!, failure: Int!',
    WorkflowActivityRow: 'from: Time!, to: Time!, successCount: Int!, failureCount: Int!',
    WorkflowDeployment:
      'uuid: String!, workflowID: String!, status: WorkflowDeploymentStatus!, deployedAt: Time!, txHash: String, errorMessage: String, binaryURL: String, configURL: String, executionCountByStatus: WorkflowExecutionCountByStatus, workflowSource: String!, hasTeeExecutions: Boolean!, hasNonTeeExecutions: Boolean!',
    WorkflowExecution:
      'uuid: String!, workflowUUID: String!, id: String!, workflowName: String!, workflowId: WorkflowId!, status: WorkflowExecutionStatus!, classifiedStatus: WorkflowExecutionClassifiedStatus, startedAt: Time!, finishedAt: Time, creditUsed: CreditAmount, errors: [ExecutionError], executedInTee: Boolean',
    ExecutionError: 'error: String!, count: Int!',
    CapabilityExecutionError: 'error: String!, count: Int!',
    WorkflowExecutionLog: 'nodeID: String!, message: String!, timestamp: Time!',
    WorkflowExecutionEvent:
      'capabilityID: String!, status: String!, method: String, startedAt: Time!, finishedAt: Time, errors: [CapabilityExecutionError]',
    WorkflowsOutput: 'data: [Workflow!]!, count: Int!',
    WorkflowOutput: 'data: Workflow!',
    WorkflowActivityOutput: 'data: [WorkflowActivityRow!]',
    WorkflowDeploymentsOutput: 'data: [WorkflowDeployment!]!, count: Int!',
    WorkflowDeploymentOutput: 'data: WorkflowDeployment!',
    WorkflowExecutionsOutput: 'data: [WorkflowExecution!]!, count: Int!',
    WorkflowExecutionOutput: 'data: WorkflowExecution',
    WorkflowExecutionLogsOutput: 'data: [WorkflowExecutionLog!]',
    WorkflowExecutionEventsOutput: 'data: [WorkflowExecutionEvent!]',
  },
  inputs: {
    Page: 'number: Int, size: Int',
    WorkflowsInput:
      'workflowOwnerAddress: [OnchainAddress!], status: [WorkflowDeploymentStatus!], search: String, orderBy: WorkflowOrderBy, page: Page',
    WorkflowInput: 'uuid: String!, from: Time!',
    WorkflowActivityInput: 'workflowUUID: String, from: Time, to: Time',
    WorkflowDeploymentsInput:
      'workflowUUID: String!, status: [WorkflowDeploymentStatus!], from: Time, to: Time, search: String, orderBy: WorkflowDeploymentOrderBy, page: Page',
    WorkflowDeploymentInput: 'uuid: String!',
    WorkflowExecutionsInput:
      'workflowUuid: String, status: [WorkflowExecutionStatus!], search: String, from: Time, to: Time, orderBy: WorkflowExecutionOrderBy, page: Page',
    WorkflowExecutionInput: 'uuid: String!',
    WorkflowExecutionLogsInput: 'workflowExecutionUUID: String!',
    WorkflowExecutionEventsInput: 'workflowExecutionUUID: String!, capabilityID: String, status: String',
    WorkflowOrderBy: 'field: WorkflowOrderByField!, order: SortingOrder!',
    WorkflowDeploymentOrderBy: 'field: WorkflowDeploymentOrderByField!, order: SortingOrder!',
    WorkflowExecutionOrderBy: 'field: WorkflowExecutionOrderByField!, order: SortingOrder!',
  },
  enums: {
    WorkflowDeploymentStatus: 'PENDING, FAILED, ACTIVE, PAUSED, DELETED',
    WorkflowExecutionStatus: 'UNKNOWN, UNSPECIFIED, TRIGGERED, IN_PROGRESS, SUCCESS, FAILURE',
    WorkflowExecutionClassifiedStatus: 'UNSPECIFIED, SUCCESS, USER_ERROR, SYSTEM_ERROR',
    SortingOrder: 'ASC, DESC',
    WorkflowOrderByField: 'NAME, STATUS, EXECUTED_AT',
    WorkflowDeploymentOrderByField: 'WORKFLOW_ID, DEPLOYED_AT',
    WorkflowExecutionOrderByField: 'ID, STATUS, STARTED_AT, CREDIT_USED',
    OrganizationRestrictionStatus: 'GATED, FULL_ACCESS',
    EntityActiveStatus: 'ACTIVE, DELETED',
    MemberType: 'ROOT, ADMIN',
    MemberStatus: 'INVITED, JOINED, REMOVED',
  },
  queries: {
    getAccountDetails: 'OrganizationAccount',
    getOrganization: 'Organization',
    workflows: '(input: WorkflowsInput!) WorkflowsOutput!',
    workflow: '(input: WorkflowInput!) WorkflowOutput!',
    workflowActivity: '(input: WorkflowActivityInput!) WorkflowActivityOutput!',
    workflowDeployments: '(input: WorkflowDeploymentsInput!) WorkflowDeploymentsOutput!',
    workflowDeployment: '(input: WorkflowDeploymentInput!) WorkflowDeploymentOutput!',
    workflowExecutions: '(input: WorkflowExecutionsInput!) WorkflowExecutionsOutput!',
    workflowExecution: '(input: WorkflowExecutionInput!) WorkflowExecutionOutput!',
    workflowExecutionLogs: '(input: WorkflowExecutionLogsInput!) WorkflowExecutionLogsOutput!',
    workflowExecutionEvents: '(input: WorkflowExecutionEventsInput!) WorkflowExecutionEventsOutput!',
  },
  scalars: [
    'Time',
    'WorkflowId',
    'OnchainAddress',
    'ChainSelector',
    'OrganizationId',
    'TenantId',
    'MemberId',
    'UserId',
    'Email',
    'LabelText',
    'CredentialText',
    'UUID',
    'CreditAmount',
    'JSONObject',
  ],
};

/** Contract section 5, "Queries": the types and root fields it adds, and the one input field it adds. */
export const SECTION_5_ADDITIONS = {
  objects: {
    ErrorGroupsOutput: 'data: [ErrorGroup!]!, count: Int!',
    ErrorGroup:
      'fingerprint: String!, pattern: String!, sampleMessage: String!, occurrences: Int!, executionCount: Int!, workflowCount: Int!, capabilityIDs: [String!]!, firstSeenAt: Time!, lastSeenAt: Time!, activity: [ErrorGroupBucket!]!',
    ErrorGroupBucket: 'from: Time!, to: Time!, occurrences: Int!',
    DurationStatsOutput: 'data: DurationStats!',
    DurationStats:
      'count: Int!, minMs: Float, maxMs: Float, meanMs: Float, p50Ms: Float, p90Ms: Float, p95Ms: Float, p99Ms: Float, histogram: [DurationBucket!]!',
    DurationBucket: 'fromMs: Float!, toMs: Float!, count: Int!',
    CapabilityStatsOutput: 'data: [CapabilityStats!]!, count: Int!',
    CapabilityStats:
      'capabilityID: String!, calls: Int!, failures: Int!, failureRate: Float!, p50Ms: Float, p95Ms: Float',
    SearchExecutionLogsOutput: 'data: [ExecutionLogMatch!]!, count: Int!, countIsExact: Boolean!',
    ExecutionLogMatch:
      'workflowExecutionUUID: String!, workflowUUID: String!, workflowName: String!, nodeID: String!, timestamp: Time!, message: String!',
  },
  inputs: {
    ErrorGroupsInput: 'workflowUUID: String, capabilityID: String, from: Time, to: Time, page: Page',
    DurationStatsInput:
      'workflowUUID: String, capabilityID: String, status: [WorkflowExecutionStatus!], from: Time, to: Time',
    CapabilityStatsInput: 'workflowUUID: String, from: Time, to: Time, page: Page',
    SearchExecutionLogsInput:
      'query: String!, workflowUUID: String, nodeID: String, from: Time, to: Time, page: Page',
  },
  queries: {
    errorGroups: '(input: ErrorGroupsInput!) ErrorGroupsOutput!',
    durationStats: '(input: DurationStatsInput!) DurationStatsOutput!',
    capabilityStats: '(input: CapabilityStatsInput!) CapabilityStatsOutput!',
    searchExecutionLogs: '(input: SearchExecutionLogsInput!) SearchExecutionLogsOutput!',
  },
  /** "One additive input field: WorkflowExecutionsInput.errorFingerprint: String". */
  inputFields: { WorkflowExecutionsInput: 'errorFingerprint: String' },
} as const;

/**
 * wfapi's own additions, additive like section 5 (extended schema only): the paged read of one
 * execution's log lines that an answer past the byte budget points to (issue 44).
 */
export const WFAPI_ADDITIONS = {
  objects: { WorkflowExecutionLogPageOutput: 'data: [WorkflowExecutionLog!], next: String' },
  inputs: { WorkflowExecutionLogPageInput: 'workflowExecutionUUID: String!, after: String, size: Int' },
  queries: {
    workflowExecutionLogPage: '(input: WorkflowExecutionLogPageInput!) WorkflowExecutionLogPageOutput!',
  },
} as const;

/** Contract section 7, "Verdicts": deployment impact and anomalies (the parts of it this server serves). */
export const SECTION_7_ADDITIONS = {
  objects: {
    DeploymentImpactOutput: 'data: [DeploymentImpact!]!, count: Int!',
    DeploymentImpact:
      'deployment: WorkflowDeployment!, verdict: DeploymentVerdict!, before: ImpactWindow!, after: ImpactWindow!, failureRateChange: Float, failureRatePValue: Float, durationChange: Float, durationPValue: Float, newErrorGroups: [ErrorGroup!]!, resolvedErrorGroups: [ErrorGroup!]!',
    ImpactWindow:
      'from: Time!, to: Time!, executions: Int!, failures: Int!, failureRate: Float, p50Ms: Float, p95Ms: Float',
    AnomaliesOutput: 'data: [Anomaly!]!, series: [AnomalySeries!]!',
    AnomalySeries: 'metric: AnomalyMetric!, workflowUUID: String, points: [AnomalyPoint!]!',
    AnomalyPoint:
      'from: Time!, to: Time!, observed: Float, expected: Float, lower: Float, upper: Float, anomalous: Boolean!',
    Anomaly:
      'metric: AnomalyMetric!, workflowUUID: String, workflowName: String, from: Time!, to: Time!, observed: Float!, expected: Float!, lower: Float!, upper: Float!, direction: AnomalyDirection!, score: Float!',
  },
  inputs: {
    DeploymentImpactInput: 'workflowUUID: String!, deploymentUUID: String, page: Page',
    AnomaliesInput:
      'workflowUUID: String, metrics: [AnomalyMetric!], from: Time, to: Time, sensitivity: Float',
  },
  enums: {
    DeploymentVerdict: 'REGRESSED, IMPROVED, NO_CHANGE, INSUFFICIENT_DATA',
    AnomalyMetric: 'EXECUTIONS, FAILURE_RATE, DURATION_P95',
    AnomalyDirection: 'UP, DOWN',
  },
  queries: {
    deploymentImpact: '(input: DeploymentImpactInput!) DeploymentImpactOutput!',
    anomalies: '(input: AnomaliesInput!) AnomaliesOutput!',
  },
};

/** Section 7's service levels, additive like section 5 (extended schema only). */
export const SECTION_7_SERVICE_LEVELS = {
  objects: {
    ServiceLevelsOutput: 'data: [ServiceLevel!]!',
    ServiceLevel:
      'id: String!, name: String!, workflowUUID: String, workflowName: String, indicator: ServiceLevelIndicator!, target: Float!, thresholdMs: Float, periodDays: Int!, total: Int!, good: Int!, attainment: Float, errorBudgetRemaining: Float, burnRates: [BurnRate!]!, status: ServiceLevelStatus!',
    BurnRate: 'window: String!, total: Int!, bad: Int!, rate: Float',
  },
  inputs: { ServiceLevelsInput: 'workflowUUID: String' },
  enums: { ServiceLevelIndicator: 'SUCCESS, LATENCY', ServiceLevelStatus: 'OK, TICKET, PAGE, NO_DATA' },
  queries: { serviceLevels: '(input: ServiceLevelsInput!) ServiceLevelsOutput!' },
} as const;

/** The extended schema (the default): section 1 plus exactly section 5's, section 7's and wfapi's additions. */
export const EXTENDED: ContractSchema = {
  objects: {
    ...SECTION_1.objects,
    ...SECTION_5_ADDITIONS.objects,
    ...SECTION_7_ADDITIONS.objects,
    ...WFAPI_ADDITIONS.objects,
    ...SECTION_7_SERVICE_LEVELS.objects,
  },
  inputs: {
    ...SECTION_1.inputs,
    ...SECTION_5_ADDITIONS.inputs,
    ...SECTION_7_ADDITIONS.inputs,
    ...WFAPI_ADDITIONS.inputs,
    ...SECTION_7_SERVICE_LEVELS.inputs,
    WorkflowExecutionsInput: `${SECTION_1.inputs.WorkflowExecutionsInput}, ${SECTION_5_ADDITIONS.inputFields.WorkflowExecutionsInput}`,
  },
  enums: { ...SECTION_1.enums, ...SECTION_7_ADDITIONS.enums, ...SECTION_7_SERVICE_LEVELS.enums },
  queries: {
    ...SECTION_1.queries,
    ...SECTION_5_ADDITIONS.queries,
    ...SECTION_7_ADDITIONS.queries,
    ...WFAPI_ADDITIONS.queries,
    ...SECTION_7_SERVICE_LEVELS.queries,
  },
  scalars: SECTION_1.scalars,
};

/** Fields compared as sets: declaration order is free, names and types are not. */
const fieldSet = (fields: string) => fields.split(', ').sort();

/**
 * The schema a server serves, read with the standard introspection query and written in the
 * contract's form, every named type included (GraphQL's own scalars and introspection types aside).
 */
export async function servedSchema(server: TestServer, key: string): Promise<ContractSchema> {
  const answer = await server.gql(key, getIntrospectionQuery());
  assert.equal(answer.status, 200, JSON.stringify(answer.body).slice(0, 500));
  assert.equal(answer.body.errors, undefined);
  const schema = buildClientSchema(answer.body.data as IntrospectionQuery);
  assert.equal(schema.getMutationType() ?? null, null, '/graphql is read-only');
  assert.equal(schema.getSubscriptionType() ?? null, null);
  const objects: Record<string, string> = {};
  const inputs: Record<string, string> = {};
  const enums: Record<string, string> = {};
  const queries: Record<string, string> = {};
  const scalars: string[] = [];
  for (const type of Object.values(schema.getTypeMap())) {
    if (type.name.startsWith('__')) continue;
    if (isObjectType(type)) {
      const fields = Object.values(type.getFields());
      if (type === schema.getQueryType()) {
        for (const field of fields) {
          const args = field.args.map((arg) => `${arg.name}: ${arg.type}`).join(', ');
          queries[field.name] = `${args ? `(${args}) ` : ''}${field.type}`;
        }
      } else {
        // Arguments are written out too: section 1 and 5 objects have none, so any would differ.
        objects[type.name] = fields
          .map((field) => {
            const args = field.args.map((arg) => `${arg.name}: ${arg.type}`).join(', ');
            return `${field.name}${args ? `(${args})` : ''}: ${field.type}`;
          })
          .join(', ');
      }
    } else if (isInputObjectType(type)) {
      inputs[type.name] = Object.values(type.getFields())
        .map((field) => `${field.name}: ${field.type}`)
        .join(', ');
    } else if (isEnumType(type)) {
      enums[type.name] = type
        .getValues()
        .map((value) => value.name)
        .join(', ');
    } else if (isScalarType(type) && !isSpecifiedScalarType(type)) {
      scalars.push(type.name);
    } else if (!isScalarType(type)) {
      assert.fail(
        `the public schema has a ${type.constructor.name} ${type.name}, which the contract has not`,
      );
    }
  }
  return { objects, inputs, enums, queries, scalars };
}

/** Asserts the served schema is exactly `expected`: the same types, each with the same fields or values. */
export function assertSchemaEquals(served: ContractSchema, expected: ContractSchema): void {
  for (const kind of ['objects', 'inputs'] as const) {
    assert.deepEqual(Object.keys(served[kind]).sort(), Object.keys(expected[kind]).sort(), kind);
    for (const [name, fields] of Object.entries(expected[kind])) {
      assert.deepEqual(fieldSet(served[kind][name]!), fieldSet(fields), name);
    }
  }
  assert.deepEqual(served.enums, expected.enums);
  assert.deepEqual(served.queries, expected.queries);
  assert.deepEqual([...served.scalars].sort(), [...expected.scalars].sort());
}
