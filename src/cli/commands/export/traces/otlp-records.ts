import {
  type Attributes,
  type HrTime,
  type SpanContext,
  SpanKind,
  SpanStatusCode,
  TraceFlags,
} from '@opentelemetry/api';
import type { InstrumentationScope } from '@opentelemetry/core';
import type { Resource } from '@opentelemetry/resources';
import type { ReadableLogRecord } from '@opentelemetry/sdk-logs';
import type { ReadableSpan, TimedEvent } from '@opentelemetry/sdk-trace';
import {
  ATTR_ERROR_TYPE,
  ATTR_EXCEPTION_MESSAGE,
  ERROR_TYPE_VALUE_OTHER,
} from '@opentelemetry/semantic-conventions';
import {
  ATTR_CICD_PIPELINE_ACTION_NAME,
  ATTR_CICD_PIPELINE_NAME,
  ATTR_CICD_PIPELINE_RESULT,
  ATTR_CICD_PIPELINE_RUN_ID,
  ATTR_CICD_PIPELINE_RUN_STATE,
  ATTR_CICD_PIPELINE_TASK_NAME,
  ATTR_CICD_PIPELINE_TASK_RUN_RESULT,
  CICD_PIPELINE_ACTION_NAME_VALUE_RUN,
  CICD_PIPELINE_RESULT_VALUE_FAILURE,
  CICD_PIPELINE_RESULT_VALUE_SUCCESS,
  CICD_PIPELINE_RUN_STATE_VALUE_EXECUTING,
  CICD_PIPELINE_RUN_STATE_VALUE_PENDING,
  CICD_PIPELINE_TASK_RUN_RESULT_VALUE_FAILURE,
  CICD_PIPELINE_TASK_RUN_RESULT_VALUE_SUCCESS,
} from '@opentelemetry/semantic-conventions/incubating';
import type { QueryResult } from '../../../../client/index.js';
import type { Execution } from '../window.js';
import { runSpanIdOf, taskSpanIdOf, traceIdOf } from './span-ids.js';

export type ExecutionEvent = NonNullable<QueryResult<'workflowExecutionEvents'>['data']>[number];
export type ExecutionLog = NonNullable<QueryResult<'workflowExecutionLogs'>['data']>[number];

/** One execution with its capability events and log lines, as read through the SDK. */
export interface TracedExecution {
  readonly execution: Execution;
  readonly events: readonly ExecutionEvent[];
  readonly logs: readonly ExecutionLog[];
}

/** Who the records come from: the same resource and scope objects for all of them (the serializers group by identity). */
export interface TelemetrySource {
  readonly resource: Resource;
  readonly scope: InstrumentationScope;
}

/** A Time of the API as OpenTelemetry's [seconds, nanoseconds], keeping digits beyond the millisecond. */
export function hrTimeOf(time: string): HrTime {
  const ms = Date.parse(time);
  const fraction = /T[^.]*\.(\d+)/.exec(time)?.[1] ?? '';
  return [Math.floor(ms / 1000), Number(fraction.padEnd(9, '0').slice(0, 9))];
}

function later(a: HrTime, b: HrTime): HrTime {
  return a[0] > b[0] || (a[0] === b[0] && a[1] >= b[1]) ? a : b;
}

function durationOf(start: HrTime, end: HrTime): HrTime {
  let seconds = end[0] - start[0];
  let nanos = end[1] - start[1];
  if (nanos < 0) {
    seconds -= 1;
    nanos += 1e9;
  }
  return [seconds, nanos];
}

/** A capability call fails when it carries an error or its status is neither COMPLETED nor SUCCESS (CONTRACT section 5). */
function eventFailed(event: ExecutionEvent): boolean {
  return (event.errors?.length ?? 0) > 0 || (event.status !== 'COMPLETED' && event.status !== 'SUCCESS');
}

function errorEvents(
  errors: ReadonlyArray<{ error: string; count: number } | null> | null | undefined,
  at: HrTime,
): TimedEvent[] {
  return (errors ?? []).flatMap((entry) =>
    entry
      ? [
          {
            name: 'exception',
            time: at,
            attributes: { [ATTR_EXCEPTION_MESSAGE]: entry.error, 'wfapi.error.count': entry.count },
          },
        ]
      : [],
  );
}

function firstError(errors: ReadonlyArray<{ error: string } | null> | null | undefined): string | undefined {
  return errors?.find((entry) => entry !== null)?.error;
}

function context(traceId: string, spanId: string): SpanContext {
  return { traceId, spanId, traceFlags: TraceFlags.SAMPLED, isRemote: false };
}

interface SpanFields {
  readonly name: string;
  readonly kind: SpanKind;
  readonly context: SpanContext;
  readonly parent?: SpanContext;
  readonly start: HrTime;
  readonly end: HrTime;
  readonly failed: boolean;
  readonly message: string | undefined;
  readonly attributes: Attributes;
  readonly events: TimedEvent[];
}

function span(source: TelemetrySource, fields: SpanFields): ReadableSpan {
  const end = later(fields.end, fields.start);
  return {
    name: fields.name,
    kind: fields.kind,
    spanContext: () => fields.context,
    ...(fields.parent ? { parentSpanContext: fields.parent } : {}),
    startTime: fields.start,
    endTime: end,
    duration: durationOf(fields.start, end),
    ended: true,
    status: fields.failed
      ? { code: SpanStatusCode.ERROR, ...(fields.message === undefined ? {} : { message: fields.message }) }
      : { code: SpanStatusCode.UNSET },
    attributes: fields.attributes,
    links: [],
    events: fields.events,
    resource: source.resource,
    instrumentationScope: source.scope,
    droppedAttributesCount: 0,
    droppedEventsCount: 0,
    droppedLinksCount: 0,
  };
}

/**
 * The spans of one execution: a pipeline-run span (kind SERVER, named `RUN <workflow name>` as
 * the CI/CD conventions name `{action} {pipeline}`), and a task span (kind INTERNAL, named
 * after the capabilityID) per capability event, its child. Failures set status ERROR, the
 * first error as its message, `error.type`, and each error as an `exception` span event.
 */
export function spansOf(source: TelemetrySource, traced: TracedExecution): ReadableSpan[] {
  const { execution, events } = traced;
  const traceId = traceIdOf(execution.uuid);
  const run = context(traceId, runSpanIdOf(execution.uuid));
  const start = hrTimeOf(execution.startedAt);
  // A run without finishedAt ends at the last thing known of it.
  let end = execution.finishedAt ? hrTimeOf(execution.finishedAt) : start;
  if (!execution.finishedAt) {
    for (const event of events) end = later(end, hrTimeOf(event.finishedAt ?? event.startedAt));
  }
  const failed = execution.status === 'FAILURE';
  const runAttributes: Attributes = {
    [ATTR_CICD_PIPELINE_NAME]: execution.workflowName,
    [ATTR_CICD_PIPELINE_RUN_ID]: execution.uuid,
    [ATTR_CICD_PIPELINE_ACTION_NAME]: CICD_PIPELINE_ACTION_NAME_VALUE_RUN,
    'wfapi.workflow.uuid': execution.workflowUUID,
    'wfapi.workflow.id': execution.workflowId,
    'wfapi.execution.id': execution.id,
    'wfapi.execution.status': execution.status,
  };
  if (execution.status === 'SUCCESS')
    runAttributes[ATTR_CICD_PIPELINE_RESULT] = CICD_PIPELINE_RESULT_VALUE_SUCCESS;
  if (failed) {
    runAttributes[ATTR_CICD_PIPELINE_RESULT] = CICD_PIPELINE_RESULT_VALUE_FAILURE;
    const classified = execution.classifiedStatus;
    runAttributes[ATTR_ERROR_TYPE] =
      classified === 'USER_ERROR' || classified === 'SYSTEM_ERROR' ? classified : ERROR_TYPE_VALUE_OTHER;
  }
  if (execution.status === 'IN_PROGRESS')
    runAttributes[ATTR_CICD_PIPELINE_RUN_STATE] = CICD_PIPELINE_RUN_STATE_VALUE_EXECUTING;
  if (execution.status === 'TRIGGERED')
    runAttributes[ATTR_CICD_PIPELINE_RUN_STATE] = CICD_PIPELINE_RUN_STATE_VALUE_PENDING;
  if (execution.classifiedStatus)
    runAttributes['wfapi.execution.classified_status'] = execution.classifiedStatus;
  if (execution.creditUsed !== null && execution.creditUsed !== undefined)
    runAttributes['wfapi.execution.credit_used'] = String(execution.creditUsed);
  if (typeof execution.executedInTee === 'boolean')
    runAttributes['wfapi.execution.executed_in_tee'] = execution.executedInTee;
  const spans = [
    span(source, {
      name: `${CICD_PIPELINE_ACTION_NAME_VALUE_RUN} ${execution.workflowName}`,
      kind: SpanKind.SERVER,
      context: run,
      start,
      end,
      failed,
      message: failed ? (firstError(execution.errors) ?? 'FAILURE') : undefined,
      attributes: runAttributes,
      events: errorEvents(execution.errors, end),
    }),
  ];
  const ranks = new Map<string, number>();
  for (const event of events) {
    const key = `${event.capabilityID}\0${event.startedAt}`;
    const rank = ranks.get(key) ?? 0;
    ranks.set(key, rank + 1);
    const eventStart = hrTimeOf(event.startedAt);
    const eventEnd = hrTimeOf(event.finishedAt ?? event.startedAt);
    const eventFails = eventFailed(event);
    const attributes: Attributes = {
      [ATTR_CICD_PIPELINE_TASK_NAME]: event.capabilityID,
      [ATTR_CICD_PIPELINE_TASK_RUN_RESULT]: eventFails
        ? CICD_PIPELINE_TASK_RUN_RESULT_VALUE_FAILURE
        : CICD_PIPELINE_TASK_RUN_RESULT_VALUE_SUCCESS,
      'wfapi.capability.status': event.status,
    };
    if (event.method) attributes['wfapi.capability.method'] = event.method;
    if (eventFails) {
      const statusFailed = event.status !== 'COMPLETED' && event.status !== 'SUCCESS';
      attributes[ATTR_ERROR_TYPE] = statusFailed ? event.status : ERROR_TYPE_VALUE_OTHER;
    }
    spans.push(
      span(source, {
        name: event.capabilityID,
        kind: SpanKind.INTERNAL,
        context: context(traceId, taskSpanIdOf(execution.uuid, event, rank)),
        parent: run,
        start: eventStart,
        end: eventEnd,
        failed: eventFails,
        message: eventFails ? (firstError(event.errors) ?? event.status) : undefined,
        attributes,
        events: errorEvents(event.errors, eventEnd),
      }),
    );
  }
  return spans;
}

/**
 * The log lines of one execution as OTLP log records in the pipeline-run span's context (a log
 * line names a workflow node, not a capability call): body the message, time the line's
 * timestamp, `wfapi.node.id` the nodeID. The API has no severity, so none is set.
 */
export function logRecordsOf(source: TelemetrySource, traced: TracedExecution): ReadableLogRecord[] {
  const { execution } = traced;
  const run = context(traceIdOf(execution.uuid), runSpanIdOf(execution.uuid));
  return traced.logs.map((log) => {
    const time = hrTimeOf(log.timestamp);
    return {
      hrTime: time,
      hrTimeObserved: time,
      spanContext: run,
      body: log.message,
      resource: source.resource,
      instrumentationScope: source.scope,
      attributes: { 'wfapi.node.id': log.nodeID, [ATTR_CICD_PIPELINE_RUN_ID]: execution.uuid },
      droppedAttributesCount: 0,
    };
  });
}
