/**
 * A test OTLP/HTTP receiver: a small HTTP server that answers POST /v1/traces and /v1/logs and
 * decodes each protobuf body with the protobufjs types that OpenTelemetry generated from
 * opentelemetry-proto and shipped in @opentelemetry/otlp-transformer up to 0.212 (installed
 * under the alias `otlp-transformer-protobufjs`: the current release encodes by hand and
 * exports no decoder). The exporter under test encodes with the current release, so the two
 * ends use independent code.
 */

import { createServer, type Server } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';

const require = createRequire(import.meta.url);
// biome-ignore lint/suspicious/noExplicitAny: the generated protobufjs root has no types here.
const root: any = require('otlp-transformer-protobufjs/build/src/generated/root.js');
const proto = root.opentelemetry.proto;

type Json = Record<string, unknown>;

export interface DecodedSpan {
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId: string;
  readonly name: string;
  readonly kind: number;
  readonly startTimeUnixNano: string;
  readonly endTimeUnixNano: string;
  readonly attributes: Record<string, unknown>;
  readonly status: { code: number; message: string };
  readonly events: { name: string; attributes: Record<string, unknown> }[];
  readonly resource: Record<string, unknown>;
  readonly scope: string;
}

export interface DecodedLogRecord {
  readonly traceId: string;
  readonly spanId: string;
  readonly timeUnixNano: string;
  readonly body: unknown;
  readonly attributes: Record<string, unknown>;
}

const hex = (bytes: Uint8Array | undefined) => Buffer.from(bytes ?? []).toString('hex');

function anyValue(value: Json | undefined): unknown {
  if (!value) return undefined;
  if ('stringValue' in value) return value.stringValue;
  if ('boolValue' in value) return value.boolValue;
  if ('intValue' in value) return Number(value.intValue);
  if ('doubleValue' in value) return value.doubleValue;
  return value;
}

function attributesOf(list: Json[] | undefined): Record<string, unknown> {
  return Object.fromEntries((list ?? []).map((kv) => [kv.key, anyValue(kv.value as Json)]));
}

const OBJECT = { longs: String, defaults: true, arrays: true, objects: true } as const;

export class OtlpReceiver {
  readonly spans: DecodedSpan[] = [];
  readonly logRecords: DecodedLogRecord[] = [];
  /** Every request: its path and content type. */
  readonly requests: { path: string; contentType: string | undefined }[] = [];
  /** Statuses to answer before accepting again, per path (e.g. [503] for one refusal). */
  readonly refusals: Record<string, number[]> = {};
  /** Per path, the number of requests accepted before every later one is answered 503 (an outage). */
  readonly outageAfter: Record<string, number> = {};
  private server: Server | undefined;
  url = '';

  async start(): Promise<void> {
    this.server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const path = request.url ?? '';
        this.requests.push({ path, contentType: request.headers['content-type'] });
        const seen = this.requests.filter((r) => r.path === path).length - 1;
        const outage =
          this.outageAfter[path] !== undefined && seen >= this.outageAfter[path] ? 503 : undefined;
        const refusal = outage ?? this.refusals[path]?.shift();
        if (refusal !== undefined) {
          response.writeHead(refusal, { 'content-type': 'application/x-protobuf' }).end();
          return;
        }
        const body = Buffer.concat(chunks);
        if (path === '/v1/traces') this.decodeTraces(body);
        else if (path === '/v1/logs') this.decodeLogs(body);
        else {
          response.writeHead(404).end();
          return;
        }
        response.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  reset(): void {
    this.spans.length = 0;
    this.logRecords.length = 0;
    this.requests.length = 0;
    for (const path of Object.keys(this.refusals)) delete this.refusals[path];
    for (const path of Object.keys(this.outageAfter)) delete this.outageAfter[path];
  }

  async close(): Promise<void> {
    await new Promise<void>((resolve) => this.server?.close(() => resolve()) ?? resolve());
  }

  private decodeTraces(body: Buffer): void {
    const message = proto.collector.trace.v1.ExportTraceServiceRequest.decode(body);
    for (const resourceSpans of message.resourceSpans) {
      const resource = attributesOf(
        proto.resource.v1.Resource.toObject(resourceSpans.resource, OBJECT).attributes,
      );
      for (const scopeSpans of resourceSpans.scopeSpans) {
        for (const span of scopeSpans.spans) {
          const plain = proto.trace.v1.Span.toObject(span, OBJECT);
          this.spans.push({
            traceId: hex(span.traceId),
            spanId: hex(span.spanId),
            parentSpanId: hex(span.parentSpanId),
            name: span.name,
            kind: span.kind,
            startTimeUnixNano: plain.startTimeUnixNano,
            endTimeUnixNano: plain.endTimeUnixNano,
            attributes: attributesOf(plain.attributes),
            status: { code: span.status?.code ?? 0, message: span.status?.message ?? '' },
            events: (plain.events as Json[]).map((event) => ({
              name: event.name as string,
              attributes: attributesOf(event.attributes as Json[]),
            })),
            resource,
            scope: scopeSpans.scope?.name ?? '',
          });
        }
      }
    }
  }

  private decodeLogs(body: Buffer): void {
    const message = proto.collector.logs.v1.ExportLogsServiceRequest.decode(body);
    for (const resourceLogs of message.resourceLogs) {
      for (const scopeLogs of resourceLogs.scopeLogs) {
        for (const record of scopeLogs.logRecords) {
          const plain = proto.logs.v1.LogRecord.toObject(record, OBJECT);
          this.logRecords.push({
            traceId: hex(record.traceId),
            spanId: hex(record.spanId),
            timeUnixNano: plain.timeUnixNano,
            body: anyValue(plain.body),
            attributes: attributesOf(plain.attributes),
          });
        }
      }
    }
  }
}
