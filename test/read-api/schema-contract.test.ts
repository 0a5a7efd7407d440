import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createTenant } from '../harness/fixtures.js';
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
  Page: 'number: Int = 0, size: Int = 10',
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

const TYPE_REF = 'kind name ofType { kind name ofType { kind name ofType { kind name } } }';
const INTROSPECTION = `{ __schema {
  queryType { fields { name type { ${TYPE_REF} } args { name type { ${TYPE_REF} } } } }
  types {
    kind name
    fields { name type { ${TYPE_REF} } }
    inputFields { name defaultValue type { ${TYPE_REF} } }
    enumValues { name }
  }
} }`;

interface TypeRef {
  kind: string;
  name: string | null;
  ofType: TypeRef | null;
}

/** An introspected type reference in SDL notation: `[Workflow!]!`. */
function sdl(type: TypeRef): string {
  if (type.kind === 'NON_NULL') return `${sdl(type.ofType!)}!`;
  if (type.kind === 'LIST') return `[${sdl(type.ofType!)}]`;
  return type.name!;
}

const sorted = (list: string) => list.split(', ').sort();

describe('schema of accounts, workflows, deployments and activity', () => {
  const ctx = useServer();

  async function introspect() {
    const tenant = await createTenant(ctx.db);
    return dataOf(await ctx.server.gql(tenant.key, INTROSPECTION)).__schema;
  }

  it('has exactly the contract fields and nullability on every object type', async () => {
    const schema = await introspect();
    for (const [name, fields] of Object.entries(OBJECTS)) {
      const type = schema.types.find((t: { name: string }) => t.name === name);
      assert.equal(type?.kind, 'OBJECT', `${name} is an object type`);
      const actual = type.fields.map((f: { name: string; type: TypeRef }) => `${f.name}: ${sdl(f.type)}`);
      assert.deepEqual(actual.sort(), sorted(fields), name);
    }
  });

  it('has exactly the contract fields, nullability and defaults on every input type', async () => {
    const schema = await introspect();
    for (const [name, fields] of Object.entries(INPUTS)) {
      const type = schema.types.find((t: { name: string }) => t.name === name);
      assert.equal(type?.kind, 'INPUT_OBJECT', `${name} is an input type`);
      const actual = type.inputFields.map(
        (f: { name: string; type: TypeRef; defaultValue: string | null }) =>
          `${f.name}: ${sdl(f.type)}${f.defaultValue === null ? '' : ` = ${f.defaultValue}`}`,
      );
      assert.deepEqual(actual.sort(), sorted(fields), name);
    }
  });

  it('has every value of each enum, in the contract order', async () => {
    const schema = await introspect();
    for (const [name, values] of Object.entries(ENUMS)) {
      const type = schema.types.find((t: { name: string }) => t.name === name);
      assert.equal(type?.kind, 'ENUM', `${name} is an enum`);
      assert.deepEqual(
        type.enumValues.map((v: { name: string }) => v.name),
        values.split(', '),
        name,
      );
    }
  });

  it('declares the root fields with their input argument and return type', async () => {
    const schema = await introspect();
    for (const [name, signature] of Object.entries(QUERIES)) {
      const field = schema.queryType.fields.find((f: { name: string }) => f.name === name);
      assert.ok(field, `Query.${name} exists`);
      const args = field.args.map((a: { name: string; type: TypeRef }) => `${a.name}: ${sdl(a.type)}`);
      const actual = `${args.length ? `(${args.join(', ')}) ` : ''}${sdl(field.type)}`;
      assert.equal(actual, signature, `Query.${name}`);
    }
  });

  it('declares the contract scalars as scalars', async () => {
    const schema = await introspect();
    for (const name of SCALARS) {
      const type = schema.types.find((t: { name: string }) => t.name === name);
      assert.equal(type?.kind, 'SCALAR', name);
    }
  });
});
