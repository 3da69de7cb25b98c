import { FRAMEWORKS, frameworkSenders } from '@plumbline/test-utils';
import type { Request } from 'express';
import { XMLParser } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';
import { getNegotiation } from '../src/express.js';
import { negotiationApps, PROJECT } from './apps.js';

// One behaviour, four frameworks: Express 5, Express 4, Fastify 5 and Hono (on Node).
const senders = frameworkSenders(negotiationApps);

describe.each(FRAMEWORKS)('negotiation on %s', (name) => {
  const send = senders[name]!;

  it.each([
    ['no Vary yet', undefined, 'Accept, Accept-Language'],
    ['Vary: Origin', 'Origin', 'Origin, Accept, Accept-Language'],
    ['Vary: accept (other case)', 'accept', 'accept, Accept-Language'],
    ['Vary: Accept-Language, Accept', 'Accept-Language, Accept', 'Accept-Language, Accept'],
    ['Vary: *', '*', '*'],
  ] as const)('merges Vary with %s', async (_label, preset, expected) => {
    const outcome = await send({
      path: '/project',
      headers: preset === undefined ? {} : { 'X-Preset-Vary': preset },
    });
    expect(outcome.status).toBe(200);
    expect(outcome.headers['vary']).toBe(expected);
  });

  it('does not duplicate Vary when handlers add to it afterwards', async () => {
    const outcome = await send({ path: '/cors-after' });
    expect(outcome.headers['vary']).toBe('Accept, Accept-Language, Origin');
  });

  it.each([
    ['/own-language', 200, 'fr', 'Accept, Accept-Language'],
    ['/vary-added', 200, 'en', 'Accept, Accept-Language, Origin'],
    ['/vary-added-then-fail', 409, 'en', 'Accept, Accept-Language, Origin'],
  ] as const)(
    'the handler after negotiate(), %s: its Content-Language wins, its Vary adds to ours',
    async (path, status, language, vary) => {
      const outcome = await send({ path });
      expect([outcome.status, outcome.headers['content-language'], outcome.headers['vary']]).toEqual([
        status,
        language,
        vary,
      ]);
    },
  );

  it.each([
    [undefined, 'en'],
    ['de-CH, en;q=0.5', 'de'],
    ['fr', 'en'],
  ] as const)('Accept-Language %s → Content-Language %s', async (acceptLanguage, language) => {
    const outcome = await send({
      path: '/project',
      headers: acceptLanguage === undefined ? {} : { 'Accept-Language': acceptLanguage },
    });
    expect(outcome.headers['content-language']).toBe(language);
  });

  it('sends JSON by default', async () => {
    const outcome = await send({ path: '/project' });
    expect(outcome.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(outcome.body).toEqual(PROJECT);
  });

  it('sends an XML body for Accept: application/xml, and it round-trips', async () => {
    const outcome = await send({ path: '/project', headers: { Accept: 'application/xml' } });
    expect(outcome.status).toBe(200);
    expect(outcome.headers['content-type']).toBe('application/xml; charset=utf-8');
    expect(outcome.body).toBe(
      '<?xml version="1.0" encoding="UTF-8"?><data><id>7</id><name>Bridge &amp; &lt;Tunnel&gt;</name>' +
        '<tags><i>steel</i><i>river</i></tags><owner><name>Ada</name><roles><i>admin</i></roles></owner>' +
        '<archived>false</archived><note/></data>',
    );
    const parsed = new XMLParser({ isArray: (tag) => tag === 'i', parseTagValue: false }).parse(
      outcome.body as string,
    );
    expect(parsed.data.tags.i).toEqual(['steel', 'river']);
    expect(parsed.data.owner).toEqual({ name: 'Ada', roles: { i: ['admin'] } });
    expect(parsed.data.name).toBe('Bridge & <Tunnel>');
  });

  it('sends a vendor type as JSON and reports it', async () => {
    const accept = 'application/vnd.plumbline.v2+json';
    const outcome = await send({ path: '/project', headers: { Accept: accept } });
    expect(outcome.headers['content-type']).toBe(`${accept}; charset=utf-8`);
    expect(outcome.body).toEqual(PROJECT);
    const decision = await send({ path: '/decision', headers: { Accept: accept } });
    expect(decision.body).toEqual({
      ok: true,
      mediaType: accept,
      contentType: `${accept}; charset=utf-8`,
      language: 'en',
      vendor: { name: 'plumbline', version: 2 },
    });
  });

  it('answers a 406 with a JSON problem document listing the available types', async () => {
    const outcome = await send({
      path: '/project',
      headers: { Accept: 'text/html', 'Accept-Language': 'de' },
    });
    expect(outcome.status).toBe(406);
    expect(outcome.headers['content-type']).toBe('application/problem+json; charset=utf-8');
    expect(outcome.headers['content-language']).toBe('de');
    expect(outcome.headers['vary']).toBe('Accept, Accept-Language');
    expect(outcome.body).toEqual({
      available: ['application/json', 'application/xml'],
      type: '/errors/not_acceptable',
      title: 'Not Acceptable',
      status: 406,
      detail:
        'Keiner der angefragten Medientypen kann geliefert werden; verfügbar: application/json, application/xml.',
      instance: '/project',
      error_code: 'not_acceptable',
      message:
        'Keiner der angefragten Medientypen kann geliefert werden; verfügbar: application/json, application/xml.',
    });
  });

  it('represents a created resource with a status, Location and the negotiated type', async () => {
    const outcome = await send({
      method: 'POST',
      path: '/projects',
      headers: { 'Content-Type': 'application/json', Accept: 'application/xml' },
      body: '{"name":"Dam"}',
    });
    expect(outcome.status).toBe(201);
    expect(outcome.headers['location']).toBe('/projects/8');
    expect(outcome.body).toBe(
      '<?xml version="1.0" encoding="UTF-8"?><data><id>8</id><name>Dam</name></data>',
    );
  });

  it('answers an unsupported body with 415 and Accept-Post before parsing it', async () => {
    const outcome = await send({
      method: 'POST',
      path: '/projects',
      headers: { 'Content-Type': 'text/plain' },
      body: 'not json',
    });
    expect(outcome.status).toBe(415);
    expect(outcome.headers['accept-post']).toBe('application/json');
    expect(outcome.body).toMatchObject({ error_code: 'unsupported_media_type' });
  });

  it('sends no body on 204 and HEAD', async () => {
    const empty = await send({ path: '/empty' });
    expect([empty.status, empty.body]).toEqual([204, '']);
    const head = await send({ method: 'HEAD', path: '/project' });
    expect([head.status, head.body, head.headers['content-type']]).toEqual([
      200,
      '',
      'application/json; charset=utf-8',
    ]);
  });

  it('uses a custom XML root through serializers', async () => {
    const outcome = await send({ path: '/custom-root', headers: { Accept: 'application/xml' } });
    expect(outcome.body).toBe('<?xml version="1.0" encoding="UTF-8"?><project><ok>true</ok></project>');
  });

  it('fails loudly (500) when represent() runs without negotiate()', async () => {
    const outcome = await send({ path: '/bare' });
    expect(outcome.status).toBe(500);
    expect(outcome.body).toMatchObject({ error_code: 'internal_error' });
  });
});

describe('getNegotiation()', () => {
  it('is undefined when negotiate() did not run', () => {
    expect(getNegotiation({} as Request)).toBeUndefined();
  });
});
