import type { ApiKey, CreateApiKeyInput, CreatedApiKey } from '../../../admin/admin-types.generated.js';
import { type AdminConnection, adminRequest } from '../../admin-client.js';
import type { Palette } from '../../render/colors.js';
import { renderFields, renderTable } from '../../render/table.js';
import { formatInstant } from '../../time-input.js';

/** The new key, as the server returned it: this is the only time the key itself exists in clear. */
export async function createApiKey(
  connection: AdminConnection,
  input: CreateApiKeyInput,
): Promise<CreatedApiKey> {
  return adminRequest(connection, 'createApiKey', { input });
}

export async function listApiKeys(connection: AdminConnection, organizationId: string): Promise<ApiKey[]> {
  return adminRequest(connection, 'apiKeys', { input: { organizationId } });
}

export async function revokeApiKey(connection: AdminConnection, id: string): Promise<ApiKey> {
  return adminRequest(connection, 'revokeApiKey', { input: { id } });
}

/** Whether a key would be accepted now, as far as the key itself goes (not its member or organization). */
export function keyStatus(key: ApiKey, now = new Date()): 'revoked' | 'expired' | 'active' {
  if (key.revokedAt !== null) return 'revoked';
  if (key.expiresAt !== null && Date.parse(key.expiresAt) <= now.getTime()) return 'expired';
  return 'active';
}

export function renderCreatedApiKey(created: CreatedApiKey, p: Palette): string {
  return [
    'API key created.',
    renderFields(
      [
        ['key id', created.id],
        ['name', created.name],
        ['expires', created.expiresAt ? formatInstant(created.expiresAt) : 'never'],
      ],
      p,
    ),
    '',
    `  ${p.bold(created.key)}`,
    '',
    p.yellow('This is the only time the key is shown: store it now, it cannot be shown again.'),
    'Send it as the header `Authorization: Apikey <key>`.',
  ].join('\n');
}

const KEY_STATUS_STYLE = { active: 'green', revoked: 'red', expired: 'yellow' } as const;

export function renderApiKeys(keys: readonly ApiKey[], p: Palette, now = new Date()): string {
  if (keys.length === 0) return 'No API keys in this organization.';
  const optionalTime = (time: string | null, none: string) => (time ? formatInstant(time) : none);
  return renderTable(
    keys,
    [
      { header: 'KEY ID', value: (key) => key.id },
      { header: 'NAME', value: (key) => key.name, max: 32 },
      { header: 'MEMBER ID', value: (key) => key.memberId },
      {
        header: 'STATUS',
        value: (key) => keyStatus(key, now),
        style: (text, key) => p[KEY_STATUS_STYLE[keyStatus(key, now)]](text),
      },
      { header: 'CREATED', value: (key) => formatInstant(key.createdAt) },
      { header: 'EXPIRES', value: (key) => optionalTime(key.expiresAt, 'never') },
      { header: 'LAST USED', value: (key) => optionalTime(key.lastUsedAt, '-') },
    ],
    p,
  );
}

export const renderRevokedApiKey = (key: ApiKey): string =>
  `API key ${key.id} (${key.name}) is revoked since ${formatInstant(key.revokedAt ?? key.createdAt)}: ` +
  'it is refused with 401 from now on.';
