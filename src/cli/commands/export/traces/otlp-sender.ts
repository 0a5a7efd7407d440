import { ProtobufLogsSerializer, ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import type { ReadableLogRecord } from '@opentelemetry/sdk-logs';
import type { ReadableSpan } from '@opentelemetry/sdk-trace';
import { errorFromAnswer, WfapiError } from '../../../../client/errors.js';
import { parseRetryAfter } from '../../../../client/retry.js';
import { type Answer, httpUrl, type RetryNotice, Transport } from '../../../../client/transport.js';
import { CliError, EXIT, exitCodeOf } from '../../../exit-codes.js';

const PROTOBUF = 'application/x-protobuf';

export interface OtlpSenderOptions {
  /** The OTLP/HTTP base URL, e.g. `http://collector:4318`; requests go to its `/v1/traces` and `/v1/logs`. */
  readonly endpoint: string;
  /** Extra headers, e.g. an Authorization the collector demands. */
  readonly headers: Readonly<Record<string, string>>;
  readonly timeoutMs: number;
  /** Retries of one request after a 429, a 5xx, a timeout or a network failure. */
  readonly retries: number;
  readonly onRetry?: (what: string, retry: RetryNotice) => void;
}

/** An OTLP/HTTP answer: any 2xx is accepted; anything else becomes the SDK's error of its status (429 and 5xx retryable). */
function readOtlpAnswer({ status, headers, text }: Answer): void {
  if (status >= 200 && status < 300) return;
  // The body of a refusal is a google.rpc.Status; its message is readable text inside it.
  const readable = text
    .replace(/[^\x20-\x7e]+/g, ' ')
    .trim()
    .slice(0, 200);
  throw errorFromAnswer({
    status,
    errors: undefined,
    requestId: undefined,
    retryAfterMs: parseRetryAfter(headers.get('retry-after')),
    fallbackMessage: `HTTP ${status}${readable ? `: ${readable}` : ''}`,
  });
}

/**
 * Sends spans and log records to an OTLP/HTTP receiver as protobuf (the collectors' default),
 * encoded by OpenTelemetry's own serializers. Each request is retried with exponential backoff
 * and full jitter (and `Retry-After`), the SDK transport's policy.
 */
export class OtlpSender {
  readonly base: string;
  private readonly traces: Transport;
  private readonly logs: Transport;
  private readonly onRetry: OtlpSenderOptions['onRetry'];

  constructor(options: OtlpSenderOptions) {
    let base: URL;
    try {
      base = httpUrl(options.endpoint);
    } catch (error) {
      throw new CliError(`--endpoint: ${(error as Error).message}`, EXIT.USAGE);
    }
    this.base = base.toString().replace(/\/+$/, '');
    const transport = (path: string) =>
      new Transport({
        endpoint: `${this.base}${path}`,
        contentType: PROTOBUF,
        accept: PROTOBUF,
        headers: options.headers,
        timeoutMs: options.timeoutMs,
        retries: options.retries,
        retryDelayMs: 500,
        maxRetryDelayMs: 30_000,
      });
    this.traces = transport('/v1/traces');
    this.logs = transport('/v1/logs');
    this.onRetry = options.onRetry;
  }

  async sendSpans(spans: ReadableSpan[], signal?: AbortSignal): Promise<void> {
    if (spans.length === 0) return;
    await this.post(this.traces, 'spans', ProtobufTraceSerializer.serializeRequest(spans), signal);
  }

  async sendLogRecords(records: ReadableLogRecord[], signal?: AbortSignal): Promise<void> {
    if (records.length === 0) return;
    await this.post(this.logs, 'log records', ProtobufLogsSerializer.serializeRequest(records), signal);
  }

  private async post(
    transport: Transport,
    what: string,
    body: Uint8Array | undefined,
    signal: AbortSignal | undefined,
  ): Promise<void> {
    if (body === undefined) throw new CliError(`could not encode the ${what} as OTLP protobuf`);
    try {
      await transport.send(new Uint8Array(body), readOtlpAnswer, {
        ...(signal ? { signal } : {}),
        onRetry: (retry) => this.onRetry?.(what, retry),
      });
    } catch (error) {
      if (!(error instanceof WfapiError)) throw error;
      const reason =
        error.status === undefined ? error.message : `${transport.endpoint} answered ${error.message}`;
      throw new CliError(
        `could not send ${what} to the OTLP endpoint: ${reason}. Is a collector listening there? Check --endpoint`,
        exitCodeOf(error),
      );
    }
  }
}
