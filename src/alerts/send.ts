/**
 * One delivery attempt over HTTP: a Standard Webhooks request for WEBHOOK rules, a POST of the
 * alert to `/api/v2/alerts` for ALERTMANAGER ones. Bounded in time (connection to last byte) and
 * in what it reads of the answer; private addresses are refused at connection time unless allowed.
 */
import { createHmac } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import type { AlertRuleRow, WebhookDeliveryRow } from '../db/tables.js';
import { alertmanagerAlerts } from './alertmanager.js';
import { guardedLookup } from './receiver-address.js';
import { isPrivateAddress } from './special-addresses.js';

export interface SendOptions {
  readonly timeoutMs: number;
  readonly allowPrivate: boolean;
  /** The webhook signing secret (`whsec_...`), for WEBHOOK rules. */
  readonly secret: string | undefined;
  readonly signal?: AbortSignal;
  readonly now?: Date;
  /** How often a firing ALERTMANAGER alert is re-sent (its `endsAt` follows from it). */
  readonly resendMs: number;
}

export interface SendResult {
  /** The HTTP status; null when no answer arrived. */
  readonly status: number | null;
  readonly error: string | null;
}

/**
 * `v1,<base64 HMAC-SHA256 of "id.timestamp.body">` keyed by the secret's bytes (the base64 after
 * `whsec_`), as the Standard Webhooks specification signs.
 */
export function webhookSignature(secret: string, id: string, timestamp: number, body: string): string {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  return `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
}

export function requestOf(
  rule: AlertRuleRow,
  delivery: WebhookDeliveryRow,
  options: SendOptions,
): { url: URL; body: string; headers: Record<string, string> } {
  const now = options.now ?? new Date();
  if (rule.target === 'ALERTMANAGER') {
    const url = new URL(rule.url);
    url.pathname = `${url.pathname.replace(/\/+$/, '')}/api/v2/alerts`;
    return {
      url,
      body: JSON.stringify(alertmanagerAlerts(rule, delivery.payload, now, options.resendMs)),
      headers: { 'content-type': 'application/json' },
    };
  }
  if (!options.secret) throw new Error('no signing secret');
  const body = JSON.stringify(delivery.payload);
  const timestamp = Math.floor(now.getTime() / 1000);
  return {
    url: new URL(rule.url),
    body,
    headers: {
      'content-type': 'application/json',
      'webhook-id': delivery.id,
      'webhook-timestamp': String(timestamp),
      'webhook-signature': webhookSignature(options.secret, delivery.id, timestamp, body),
    },
  };
}

export function send(
  rule: AlertRuleRow,
  delivery: WebhookDeliveryRow,
  options: SendOptions,
): Promise<SendResult> {
  let prepared: ReturnType<typeof requestOf>;
  try {
    prepared = requestOf(rule, delivery, options);
  } catch (error) {
    return Promise.resolve({ status: null, error: (error as Error).message });
  }
  const { url, body, headers } = prepared;
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  if (!options.allowPrivate && isIP(host) && isPrivateAddress(host)) {
    return Promise.resolve({ status: null, error: `${host} is a private address` });
  }
  return new Promise((resolve) => {
    let settled = false;
    const finish = (result: SendResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(result);
    };
    const request = (url.protocol === 'https:' ? httpsRequest : httpRequest)(
      url,
      {
        method: 'POST',
        headers: {
          ...headers,
          'content-length': String(Buffer.byteLength(body)),
          'user-agent': 'wfapi-alerts',
        },
        ...(options.allowPrivate ? {} : { lookup: guardedLookup as never }),
        signal: options.signal,
      },
      (response) => {
        // The answer's body is not needed: read and drop it, so the connection ends cleanly.
        response.resume();
        response.on('end', () => finish({ status: response.statusCode ?? null, error: null }));
        response.on('error', (error) =>
          finish({ status: response.statusCode ?? null, error: error.message }),
        );
      },
    );
    const timer = setTimeout(() => {
      request.destroy(new Error(`no answer within ${options.timeoutMs} ms`));
    }, options.timeoutMs);
    request.on('error', (error) => finish({ status: null, error: error.message }));
    request.end(body);
  });
}
