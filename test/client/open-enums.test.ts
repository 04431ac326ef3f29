/**
 * Enums the document declares open may gain values within v1: a client built today meets a new error code, event
 * type or audit event type without breaking, and its types say so.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { parseOpenEnums } from '../../src/cli/open-enums.js';
import {
  type AuditEvent,
  type AuditEventList,
  type AuditEventType,
  type AuditTarget,
  createFormFunnelClient,
  type ErrorCode,
  type Event,
  type EventList,
  type EventType,
  FormFunnelError,
  type OpenEnum,
  type Problem,
  type Schema,
  unwrap,
} from '../../src/client/index.js';
import { FORM_ID, fakeFetch, json, problem, REQUEST_ID } from './fake-transport.js';

const clientOf = (transport: ReturnType<typeof fakeFetch>) =>
  createFormFunnelClient({ apiKey: 'svc_test_4eC39HqLyjWDarjtT1zdp7dc', fetch: transport.fetch, maxRetries: 0 });

/** A value none of the document's enums has: what a value added after this client was built looks like. */
const addedLater = 'added_within_v1';

describe('an error code added after this client was built', () => {
  it('when the API answers a code the client does not know, then unwrap throws a FormFunnelError that keeps it', async () => {
    const result = await clientOf(fakeFetch(problem(409, 'form_archived', 'conflict_error'))).GET('/forms/{id}', {
      params: { path: { id: FORM_ID } },
    });
    let caught: unknown;
    try {
      unwrap(result);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(FormFunnelError);
    const error = caught as FormFunnelError;
    expect({ kind: error.kind, status: error.status, type: error.type, code: error.code }).toEqual({
      kind: 'api',
      status: 409,
      type: 'conflict_error',
      code: 'form_archived',
    });
    expectTypeOf(error.code).toEqualTypeOf<OpenEnum<ErrorCode> | undefined>();
    expectTypeOf(error.problem).toEqualTypeOf<Problem | undefined>();
    // Known codes still narrow and complete; an unknown one is a string, not a type error.
    const code: string | undefined = error.code;
    expect(code === 'slug_taken').toBe(false);
  });
});

describe('the client types of the open enums', () => {
  it('when the document declares an enum open, then the client type that carries it in responses is open', () => {
    // Each builds the client type's member from a value outside its enum: it compiles only while the member is open.
    const carriers = {
      ErrorCode: (): Problem['code'] => addedLater,
      EventType: (): Event['type'] => addedLater,
      AuditEventType: (): AuditEvent['type'] => addedLater,
      'AuditTarget.type': (): AuditTarget['type'] => addedLater,
    };
    const declared = parseOpenEnums(readFileSync('openapi/baseline/open-enums.yaml', 'utf8'));
    expect(Object.keys(carriers).sort()).toEqual([...declared].sort());
    for (const carry of Object.values(carriers)) expect(carry()).toBe(addedLater);

    expectTypeOf<Problem['code']>().toEqualTypeOf<OpenEnum<ErrorCode>>();
    expectTypeOf<Event['type']>().toEqualTypeOf<OpenEnum<EventType>>();
    expectTypeOf<AuditEvent['type']>().toEqualTypeOf<OpenEnum<AuditEventType>>();
    expectTypeOf<AuditTarget['type']>().toEqualTypeOf<OpenEnum<Schema<'AuditTarget'>['type']>>();
    expectTypeOf<AuditEvent['target']>().toEqualTypeOf<AuditTarget>();
    expectTypeOf<EventList['data'][number]>().toEqualTypeOf<Event>();
    expectTypeOf<AuditEventList['data'][number]>().toEqualTypeOf<AuditEvent>();
    // Nothing else changes: the other members are the generated ones.
    expectTypeOf<Event['data']>().toEqualTypeOf<Schema<'Event'>['data']>();
    expectTypeOf<Problem['type']>().toEqualTypeOf<Schema<'Problem'>['type']>();
    // What openapi-fetch answers (the generated, closed types) is taken as it is.
    expectTypeOf<Schema<'EventList'>>().toExtend<EventList>();
    expectTypeOf<Schema<'AuditEventList'>>().toExtend<AuditEventList>();
    expectTypeOf<Schema<'Problem'>>().toExtend<Problem>();
  });

  it('when the events feed carries a type the client does not know, then a switch over the known types takes it in its default branch', async () => {
    const event = (id: string, type: string) => ({
      id,
      object: 'event',
      type,
      created_at: '2026-11-02T09:00:00.000Z',
      test: false,
      data: { object: { id: FORM_ID, object: 'form' } },
    });
    const transport = fakeFetch(() =>
      json(200, {
        object: 'list',
        data: [event('evt_0aB1cD2eF3gH4iJ5kL6mN7o1', addedLater), event('evt_0aB1cD2eF3gH4iJ5kL6mN7o2', 'form.created')],
        has_more: false,
        request_id: REQUEST_ID,
      }),
    );
    const page: EventList = unwrap(await clientOf(transport).GET('/events'));

    // Every known type has its case; the default branch is still needed, and gets what was added since.
    const handled = (type: Event['type']): string => {
      switch (type) {
        case 'form.created':
        case 'form.updated':
        case 'form.deleted':
          return `form: ${type}`;
        case 'submission.created':
        case 'submission.completed':
        case 'submission.rescored':
        case 'submission.deleted':
        case 'submission.erased':
          return `submission: ${type}`;
        case 'integration.ping':
        case 'integration.disabled':
          return `integration: ${type}`;
        default: {
          // @ts-expect-error An open enum is never exhausted: code that assumes it is does not compile.
          const exhausted: never = type;
          return `skipped: ${exhausted}`;
        }
      }
    };
    expect(page.data.map((item) => handled(item.type))).toEqual([`skipped: ${addedLater}`, 'form: form.created']);
  });
});
