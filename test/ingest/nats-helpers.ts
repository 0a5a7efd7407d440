/** Talking to the test's nats-server as producers and observers do: publish raw messages, read rejections, wait for the consumer. */

import { setTimeout as sleep } from 'node:timers/promises';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect, headers, type NatsConnection } from '@nats-io/transport-node';
import {
  FIRST_LINE_HEADER,
  INGEST_CONSUMER,
  INGEST_STREAM,
  REJECTED_STREAM,
  type RejectedMessage,
} from '../../src/ingest/nats-jetstream.js';
import { ndjson } from './http.js';

export interface NatsClient {
  readonly nc: NatsConnection;
  /** Publishes one message to `subject` (records or raw lines), confirmed by JetStream. */
  publish(
    subject: string,
    body: readonly unknown[],
    options?: { msgID?: string; firstLine?: number },
  ): Promise<void>;
  /** Every rejection report published on `subject` so far, in order. */
  rejections(subject: string): Promise<RejectedMessage[]>;
  /** Messages of the shared consumer not yet delivered, and delivered but not acknowledged. */
  consumerState(): Promise<{ pending: number; unacknowledged: number }>;
  /** Resolves once the shared consumer has nothing pending and nothing unacknowledged. */
  drained(timeoutMs?: number): Promise<{ delivered: number; redelivered: number }>;
  close(): Promise<void>;
}

export async function natsClient(url: string): Promise<NatsClient> {
  const nc = await connect({ servers: url });
  const jsm = await jetstreamManager(nc);
  const js = jetstream(nc);
  return {
    nc,
    async publish(subject, body, options = {}) {
      const h = headers();
      if (options.firstLine !== undefined) h.set(FIRST_LINE_HEADER, String(options.firstLine));
      await js.publish(subject, ndjson(body), {
        headers: h,
        ...(options.msgID ? { msgID: options.msgID } : {}),
      });
    },
    async rejections(subject) {
      const info = await jsm.streams
        .info(REJECTED_STREAM, { subjects_filter: subject })
        .catch(() => undefined);
      const count = info?.state.subjects?.[subject] ?? 0;
      if (count === 0) return [];
      const consumer = await js.consumers.get(REJECTED_STREAM, { filter_subjects: subject });
      const found: RejectedMessage[] = [];
      for await (const message of await consumer.fetch({ max_messages: count, expires: 2000 })) {
        found.push(message.json<RejectedMessage>());
      }
      return found;
    },
    async consumerState() {
      const info = await jsm.consumers.info(INGEST_STREAM, INGEST_CONSUMER);
      return { pending: info.num_pending, unacknowledged: info.num_ack_pending };
    },
    async drained(timeoutMs = 60_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const info = await jsm.consumers.info(INGEST_STREAM, INGEST_CONSUMER).catch(() => undefined);
        if (info && info.num_pending === 0 && info.num_ack_pending === 0) {
          return { delivered: info.delivered.stream_seq, redelivered: info.num_redelivered };
        }
        if (Date.now() > deadline) throw new Error(`the consumer is not drained: ${JSON.stringify(info)}`);
        await sleep(100);
      }
    },
    close: () => nc.close(),
  };
}
