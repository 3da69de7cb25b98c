import { coreOutcome, describeAdapters, frameworkRunners } from '@plumbline/test-utils';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { negotiationApps } from '../test/apps.js';
import { requireContentType } from './express.js';
import { checkRequestBody } from './index.js';

const ACCEPTED = ['application/json', 'application/merge-patch+json'];
const LIST = 'application/json, application/merge-patch+json';

interface BodyCase {
  readonly name: string;
  readonly method: string;
  readonly contentType?: string;
  readonly body?: string;
  /** `undefined`: the request passes. */
  readonly hint?: 'accept-post' | 'accept-patch' | 'accept';
  readonly detail?: string;
  readonly matched?: string;
}

const CASES: readonly BodyCase[] = [
  {
    name: 'POST text/plain',
    method: 'POST',
    contentType: 'text/plain',
    body: 'hi',
    hint: 'accept-post',
    detail: `Content type "text/plain" is not supported; supported: ${LIST}.`,
  },
  {
    name: 'POST with a body and no Content-Type',
    method: 'POST',
    body: '{"a":1}',
    hint: 'accept-post',
    detail: `The request body needs a Content-Type; supported: ${LIST}.`,
  },
  {
    name: 'PATCH application/xml',
    method: 'PATCH',
    contentType: 'application/xml',
    body: '<a/>',
    hint: 'accept-patch',
    detail: `Content type "application/xml" is not supported; supported: ${LIST}.`,
  },
  {
    name: 'PUT text/plain hints with Accept',
    method: 'PUT',
    contentType: 'text/plain',
    body: 'hi',
    hint: 'accept',
    detail: `Content type "text/plain" is not supported; supported: ${LIST}.`,
  },
  {
    name: 'POST unparseable Content-Type',
    method: 'POST',
    contentType: 'garbage',
    body: '{}',
    hint: 'accept-post',
    detail: `Content type "garbage" is not supported; supported: ${LIST}.`,
  },
  {
    name: 'POST JSON in latin1 (RFC 8259: JSON is UTF-8)',
    method: 'POST',
    contentType: 'application/json; charset=iso-8859-1',
    body: '{}',
    hint: 'accept-post',
    detail: `Content type "application/json; charset=iso-8859-1" is not supported; supported: ${LIST}.`,
  },
  { name: 'GET without a body', method: 'GET' },
  { name: 'DELETE without a body', method: 'DELETE' },
  { name: 'DELETE with a Content-Type but no body', method: 'DELETE', contentType: 'text/plain' },
  { name: 'POST with Content-Length 0', method: 'POST', contentType: 'text/plain', body: '' },
  {
    name: 'POST application/json',
    method: 'POST',
    contentType: 'application/json',
    body: '{}',
    matched: 'application/json',
  },
  {
    name: 'POST application/json; charset=utf-8',
    method: 'POST',
    contentType: 'application/json; charset=utf-8',
    body: '{}',
    matched: 'application/json',
  },
  {
    name: 'POST APPLICATION/JSON',
    method: 'POST',
    contentType: 'APPLICATION/JSON',
    body: '{}',
    matched: 'application/json',
  },
  {
    name: 'PATCH merge-patch',
    method: 'PATCH',
    contentType: 'application/merge-patch+json',
    body: '{}',
    matched: 'application/merge-patch+json',
  },
];

const runners = frameworkRunners(negotiationApps, (c: BodyCase) => ({
  method: c.method,
  path: '/body',
  headers: c.contentType === undefined ? {} : { 'Content-Type': c.contentType },
  ...(c.body === undefined ? {} : { body: c.body }),
}));

describeAdapters(
  'request body Content-Type (415)',
  CASES,
  {
    core: (c) =>
      coreOutcome(() => {
        const result = checkRequestBody({
          contentType: c.contentType,
          hasBody: c.body !== undefined && c.body !== '',
          method: c.method,
          accepted: ACCEPTED,
        });
        if (!result.ok) throw result.error;
        return result;
      }),
    ...runners,
  },
  (outcome, c, adapter) => {
    if (c.hint === undefined) {
      expect(outcome.status).toBe(200);
      if (adapter === 'core') expect(outcome.body).toEqual({ ok: true, mediaType: c.matched });
      else expect(outcome.body).toEqual({ passed: true });
      return;
    }
    expect(outcome.status).toBe(415);
    const hints = ['accept-post', 'accept-patch', 'accept'].filter((h) => outcome.headers[h] === LIST);
    expect(hints).toEqual([c.hint]);
    expect(outcome.body).toMatchObject({
      status: 415,
      error_code: 'unsupported_media_type',
      detail: c.detail,
    });
  },
);

describe('checkRequestBody() details', () => {
  it.each([
    [['application/*'], 'application/anything', true],
    [['application/*'], 'text/plain', false],
    [['application/*+json'], 'application/merge-patch+json', true],
    [['application/*+json'], 'application/json', false],
    [['application/*+json'], 'text/x+json', false],
    [['*/*'], 'image/png', true],
    [['text/csv'], 'text/csv; header=present', true],
  ] as const)('accepted %j, Content-Type %s → %s', (accepted, contentType, ok) => {
    expect(checkRequestBody({ contentType, hasBody: true, method: 'POST', accepted }).ok).toBe(ok);
  });

  it.each([
    [[], /at least one/],
    [['json'], /Invalid accepted media type "json"/],
    [['*/json'], /Invalid accepted media type/],
  ] as const)('rejects accepted %j at configuration time', (accepted, message) => {
    expect(() =>
      checkRequestBody({ contentType: undefined, hasBody: false, method: 'GET', accepted }),
    ).toThrow(message);
    expect(() => requireContentType(...accepted)).toThrow(message);
  });

  it('keeps the echoed type short and free of control characters in the message', async () => {
    const result = checkRequestBody({
      contentType: `text/${'x'.repeat(500)}\u0007`,
      hasBody: true,
      method: 'POST',
      accepted: ACCEPTED,
    });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    const outcome = await coreOutcome(() => Promise.reject(result.error));
    const detail = (outcome.body as { detail: string }).detail;
    expect(detail.length).toBeLessThan(250);
    expect(detail).not.toContain('\u0007');
  });

  it('never throws on any Content-Type', () => {
    fc.assert(
      fc.property(
        fc.option(fc.string({ unit: 'binary', maxLength: 300 }), { nil: undefined }),
        (contentType) => {
          const result = checkRequestBody({ contentType, hasBody: true, method: 'POST', accepted: ACCEPTED });
          expect(result.ok ? result.mediaType : result.error.status).toBeDefined();
        },
      ),
      { numRuns: 300 },
    );
  });
});
