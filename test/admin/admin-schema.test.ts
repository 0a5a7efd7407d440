// test: any-database (what it proves does not depend on the database kind: it runs once, in the last phase)
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { type GraphQLObjectType, printType } from 'graphql';
import { renderAdminTypes, renderSchemaTypes } from '../../scripts/gen/render-types.js';
import { buildPublicSchema } from '../../src/graphql/schema.js';
import { buildAdminSchema } from '../../src/operator/operator.schema.js';

const source = (path: string) => readFileSync(new URL(`../../src/${path}`, import.meta.url), 'utf8');

/** `name(args): Type` of each field of a root type, as SDL. */
function signatures(type: GraphQLObjectType | null | undefined): Record<string, string> {
  return Object.fromEntries(
    Object.values(type?.getFields() ?? {}).map((field) => [
      field.name,
      `(${field.args.map((a) => `${a.name}: ${a.type}`).join(', ')}): ${field.type}`,
    ]),
  );
}

describe('the admin schema', () => {
  it('has exactly the root fields of the contract, plus setOrganizationStatus, the organization and member lists, the alert fields of section 5 and the objectives of section 7', () => {
    const schema = buildAdminSchema();
    assert.deepEqual(signatures(schema.getQueryType()), {
      apiKeys: '(input: ApiKeysInput!): [ApiKey!]!',
      organizations: '(): [Organization!]!',
      members: '(input: MembersInput!): [Member!]!',
      alertRules: '(input: AlertRulesInput!): [AlertRule!]!',
      webhookDeliveries: '(input: WebhookDeliveriesInput!): [WebhookDelivery!]!',
      serviceLevelObjectives: '(input: ServiceLevelObjectivesInput!): [ServiceLevelObjective!]!',
    });
    assert.deepEqual(signatures(schema.getMutationType()), {
      createOrganization: '(input: CreateOrganizationInput!): Organization!',
      createMember: '(input: CreateMemberInput!): OrganizationAccount!',
      setDeployAccess: '(input: SetDeployAccessInput!): OrganizationAccount!',
      createApiKey: '(input: CreateApiKeyInput!): CreatedApiKey!',
      revokeApiKey: '(input: RevokeApiKeyInput!): ApiKey!',
      setOrganizationStatus: '(input: SetOrganizationStatusInput!): Organization!',
      createAlertRule: '(input: CreateAlertRuleInput!): CreatedAlertRule!',
      updateAlertRule: '(input: UpdateAlertRuleInput!): AlertRule!',
      deleteAlertRule: '(input: DeleteAlertRuleInput!): AlertRule!',
      redeliverWebhook: '(input: RedeliverWebhookInput!): WebhookDelivery!',
      createServiceLevelObjective: '(input: CreateServiceLevelObjectiveInput!): ServiceLevelObjective!',
      updateServiceLevelObjective: '(input: UpdateServiceLevelObjectiveInput!): ServiceLevelObjective!',
      deleteServiceLevelObjective: '(input: DeleteServiceLevelObjectiveInput!): ServiceLevelObjective!',
    });
  });

  it('serves the very same Organization, OrganizationAccount and scalars as the public schema', () => {
    const admin = buildAdminSchema();
    const publicSchema = buildPublicSchema();
    for (const name of ['Organization', 'OrganizationAccount', 'MemberType', 'Time', 'MemberId']) {
      assert.equal(printType(admin.getType(name)!), printType(publicSchema.getType(name)!), name);
    }
    assert.doesNotMatch(
      source('admin/admin.graphql'),
      /^\s*(type|enum|scalar) (Organization|MemberType|Time)\b/m,
    );
  });

  it('keeps the generated types in step with the SDL (run `npm run gen` after editing a .graphql file)', () => {
    assert.equal(source('admin/admin-types.generated.ts'), renderAdminTypes());
    assert.equal(source('schema/schema-types.generated.ts'), renderSchemaTypes());
  });
});
