import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createTenant } from '../harness/fixtures.js';
import { assertContractFields, enumValuesOf, queryRootFields } from '../harness/introspection.js';
import { useServer } from '../harness/suite.js';
import { dataOf } from './graphql-assertions.js';

/**
 * Contract section 1, copied as written: every field, argument and input field with its exact type
 * (`!` = never null). The schema must have exactly these, no more and no fewer.
 */
const OBJECTS: Record<string, string> = {
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
  WorkflowsOutput: 'data: [Workflow!]!, count: Int!',
  WorkflowOutput: 'data: Workflow!',
  WorkflowActivityOutput: 'data: [WorkflowActivityRow!]',
  WorkflowDeploymentsOutput: 'data: [WorkflowDeployment!]!, count: Int!',
  WorkflowDeploymentOutput: 'data: WorkflowDeployment!',
};

const INPUTS: Record<string, string> = {
  Page: 'number: Int, size: Int',
  WorkflowsInput:
    'workflowOwnerAddress: [OnchainAddress!], status: [WorkflowDeploymentStatus!], search: String, orderBy: WorkflowOrderBy, page: Page',
  WorkflowInput: 'uuid: String!, from: Time!',
  WorkflowActivityInput: 'workflowUUID: String, from: Time, to: Time',
  WorkflowDeploymentsInput:
    'workflowUUID: String!, status: [WorkflowDeploymentStatus!], from: Time, to: Time, search: String, orderBy: WorkflowDeploymentOrderBy, page: Page',
  WorkflowDeploymentInput: 'uuid: String!',
  WorkflowOrderBy: 'field: WorkflowOrderByField!, order: SortingOrder!',
  WorkflowDeploymentOrderBy: 'field: WorkflowDeploymentOrderByField!, order: SortingOrder!',
};

const ENUMS: Record<string, string> = {
  WorkflowDeploymentStatus: 'PENDING, FAILED, ACTIVE, PAUSED, DELETED',
  SortingOrder: 'ASC, DESC',
  WorkflowOrderByField: 'NAME, STATUS, EXECUTED_AT',
  WorkflowDeploymentOrderByField: 'WORKFLOW_ID, DEPLOYED_AT',
  OrganizationRestrictionStatus: 'GATED, FULL_ACCESS',
  EntityActiveStatus: 'ACTIVE, DELETED',
  MemberType: 'ROOT, ADMIN',
  MemberStatus: 'INVITED, JOINED, REMOVED',
};

const QUERIES: Record<string, string> = {
  getAccountDetails: 'OrganizationAccount',
  getOrganization: 'Organization',
  workflows: '(input: WorkflowsInput!) WorkflowsOutput!',
  workflow: '(input: WorkflowInput!) WorkflowOutput!',
  workflowActivity: '(input: WorkflowActivityInput!) WorkflowActivityOutput!',
  workflowDeployments: '(input: WorkflowDeploymentsInput!) WorkflowDeploymentsOutput!',
  workflowDeployment: '(input: WorkflowDeploymentInput!) WorkflowDeploymentOutput!',
};

const SCALARS = [
  'Time',
  'CreditAmount',
  'WorkflowId',
  'OnchainAddress',
  'OrganizationId',
  'MemberId',
  'UserId',
  'Email',
  'LabelText',
];

describe('schema of accounts, workflows, deployments and activity', () => {
  const ctx = useServer();

  it('has exactly the contract fields and nullability on every object and input type', async () => {
    const tenant = await createTenant(ctx.db);
    for (const [name, fields] of Object.entries({ ...OBJECTS, ...INPUTS })) {
      await assertContractFields(ctx.server, tenant.key, name, fields);
    }
  });

  it('defaults a page to number 0 and size 10', async () => {
    const tenant = await createTenant(ctx.db);
    const data = dataOf(
      await ctx.server.gql(tenant.key, '{ __type(name: "Page") { inputFields { name defaultValue } } }'),
    );
    assert.deepEqual(data.__type.inputFields, [
      { name: 'number', defaultValue: '0' },
      { name: 'size', defaultValue: '10' },
    ]);
  });

  it('has every value of each enum, in the contract order', async () => {
    const tenant = await createTenant(ctx.db);
    for (const [name, values] of Object.entries(ENUMS)) {
      assert.deepEqual(await enumValuesOf(ctx.server, tenant.key, name), values.split(', '), name);
    }
  });

  it('declares the root fields with their input argument and return type', async () => {
    const tenant = await createTenant(ctx.db);
    const roots = await queryRootFields(ctx.server, tenant.key);
    for (const [name, signature] of Object.entries(QUERIES)) {
      const field = roots.find((f) => f.name === name);
      assert.ok(field, `Query.${name} exists`);
      const actual = `${field.args.length ? `(${field.args.join(', ')}) ` : ''}${field.type}`;
      assert.equal(actual, signature, `Query.${name}`);
    }
  });

  it('declares the contract scalars as scalars', async () => {
    const tenant = await createTenant(ctx.db);
    for (const name of SCALARS) {
      const data = dataOf(await ctx.server.gql(tenant.key, `{ __type(name: "${name}") { kind } }`));
      assert.equal(data.__type?.kind, 'SCALAR', name);
    }
  });
});
