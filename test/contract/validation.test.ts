import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorBody, type ErrorItem } from '../../shared/contract/errors.ts';
import { ScoreResponse } from '../../shared/contract/response.ts';
import { admin } from '../../infra/harness/fixtures.ts';
import { waitFor } from '../../infra/harness/processes.ts';
import { startHarness, type Harness } from './harness.ts';

/** docs/contract.md "Validation and errors" and the request limits of "Limits and billing". */
describe('POST /v1/score validation against the running API', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => {
    await h?.stop();
  });

  async function rejected(res: Response, status: number): Promise<ErrorItem[]> {
    expect(res.status).toBe(status);
    expect(res.headers.get('x-request-id')).toBeTruthy();
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    return ErrorBody.parse(await res.json()).errors;
  }

  const fields = (errors: ErrorItem[]) => errors.map((e) => `${e.code} ${e.field ?? ''}`.trim()).sort();
  const ok = { subject: { phone_number: '+447911123456' } };

  it('reports every violation of body and Idempotency-Key in one 422, one item each', async () => {
    const res = await h.callers.assess.score(
      {
        subject: { phone_number: '447911123456', ip_address: '999.1.1.1', ip: '1.2.3.4' },
        client_reference: 'x'.repeat(257),
        options: { max_latency_ms: 49, explain: 'no', shadow: '2026.08.0' },
        context: {
          sector: 'bank',
          geography: { operating_countries: ['gb'] },
          collection_point: { channel: 'fax', direction: 'sideways', moment: 'lunch' },
          risk_posture: 'paranoid',
        },
        tier: 'bureau',
      },
      { 'Idempotency-Key': 'k'.repeat(129) },
    );
    const errors = await rejected(res, 422);
    expect(fields(errors)).toEqual(
      [
        'E_INVALID_IDEMPOTENCY_KEY Idempotency-Key',
        'E_INVALID_IP_ADDRESS subject.ip_address',
        'E_INVALID_PHONE_NUMBER subject.phone_number',
        'E_UNKNOWN_FIELD options.shadow',
        'E_UNKNOWN_FIELD subject.ip',
        'E_UNKNOWN_FIELD tier',
        'E_VALIDATION client_reference',
        'E_VALIDATION context.collection_point.channel',
        'E_VALIDATION context.collection_point.direction',
        'E_VALIDATION context.collection_point.moment',
        'E_VALIDATION context.geography.operating_countries.0',
        'E_VALIDATION context.risk_posture',
        'E_VALIDATION options.explain',
        'E_VALIDATION options.max_latency_ms',
      ].sort(),
    );
    for (const e of errors) expect(e.message.length).toBeGreaterThan(0);
  });

  it.each([
    ['subject missing', {}, ['E_VALIDATION subject']],
    ['subject empty', { subject: {} }, ['E_VALIDATION subject']],
    ['subject not an object', { subject: '+447911123456' }, ['E_VALIDATION subject']],
    [
      'only a misspelt key',
      { subject: { ip: '1.1.1.1' } },
      ['E_UNKNOWN_FIELD subject.ip', 'E_VALIDATION subject'],
    ],
    [
      'phone with separators',
      { subject: { phone_number: '+44 7911 123456' } },
      ['E_INVALID_PHONE_NUMBER subject.phone_number'],
    ],
    [
      'phone without +',
      { subject: { phone_number: '07911123456' } },
      ['E_INVALID_PHONE_NUMBER subject.phone_number'],
    ],
    [
      'phone as number',
      { subject: { phone_number: 447911123456 } },
      ['E_INVALID_PHONE_NUMBER subject.phone_number'],
    ],
    ['ip hostname', { subject: { ip_address: 'example.com' } }, ['E_INVALID_IP_ADDRESS subject.ip_address']],
    [
      'ip with prefix',
      { subject: { ip_address: '10.0.0.0/8' } },
      ['E_INVALID_IP_ADDRESS subject.ip_address'],
    ],
    ['context_id empty', { ...ok, context_id: '' }, ['E_VALIDATION context_id']],
    [
      'context without required members',
      { ...ok, context: {} },
      [
        'E_VALIDATION context.collection_point',
        'E_VALIDATION context.geography',
        'E_VALIDATION context.sector',
      ],
    ],
    [
      'context unknown member',
      { ...ok, context: { sector: 's', geography: {}, collection_point: {}, mood: 'x' } },
      ['E_UNKNOWN_FIELD context.mood'],
    ],
    [
      'action_policy not strings',
      { ...ok, context: { sector: 's', geography: {}, collection_point: {}, action_policy: { high: 1 } } },
      ['E_VALIDATION context.action_policy.high'],
    ],
    [
      'max_latency_ms not an integer',
      { ...ok, options: { max_latency_ms: 75.5 } },
      ['E_VALIDATION options.max_latency_ms'],
    ],
    [
      'shadow_version empty',
      { ...ok, options: { shadow_version: '' } },
      ['E_VALIDATION options.shadow_version'],
    ],
    ['body is an array', [ok], ['E_VALIDATION']],
  ])('422 for %s', async (_name, body, expected) => {
    expect(fields(await rejected(await h.callers.assess.score(body), 422))).toEqual(expected.sort());
  });

  it('accepts the limits exactly: client_reference 256, max_latency_ms 50, Idempotency-Key 128', async () => {
    const res = await h.callers.assess.score(
      { ...ok, client_reference: 'r'.repeat(256), options: { max_latency_ms: 50 } },
      { 'Idempotency-Key': 'k'.repeat(128) },
    );
    expect(res.status).toBe(200);
    expect(ScoreResponse.parse(await res.json()).client_reference).toBe('r'.repeat(256));
  });

  it('422 on an empty Idempotency-Key, naming the header', async () => {
    const errors = await rejected(await h.callers.assess.score(ok, { 'Idempotency-Key': '' }), 422);
    expect(fields(errors)).toEqual(['E_INVALID_IDEMPOTENCY_KEY Idempotency-Key']);
  });

  it('an Idempotency-Key of anything but visible ASCII is a 422 naming the header', async () => {
    // fetch sends a header value's characters as Latin-1 bytes: 0xE9 is a Latin-1 byte on the wire.
    for (const key of ['a\tb', 'two words', 'caf\u00e9']) {
      const errors = await rejected(await h.callers.assess.score(ok, { 'Idempotency-Key': key }), 422);
      expect(fields(errors), JSON.stringify(key)).toEqual(['E_INVALID_IDEMPOTENCY_KEY Idempotency-Key']);
      expect(errors[0]!.message).toMatch(/visible ASCII/);
    }
    const visible = `!~"{}\\${Date.now()}`;
    expect((await h.callers.assess.score(ok, { 'Idempotency-Key': visible })).status).toBe(200);
  });

  describe('a member named twice in one object', () => {
    it.each([
      [
        'an address sent twice: not scored as the second',
        '{"subject":{"ip_address":"52.95.110.77","ip_address":"81.2.69.142"}}',
        ['E_DUPLICATE_KEY subject.ip_address'],
      ],
      [
        'at the top level',
        '{"subject":{"phone_number":"+447911123456"},"subject":{}}',
        ['E_DUPLICATE_KEY subject'],
      ],
      [
        'deep, in an array',
        '{"subject":{"phone_number":"+447911123456"},"context":{"sector":"s","geography":' +
          '{"operating_countries":["GB"],"operating_countries":["FR"]},"collection_point":{}}}',
        ['E_DUPLICATE_KEY context.geography.operating_countries'],
      ],
      [
        'the same name once escaped',
        '{"subject":{"phone_number":"+447911123456"},"client_reference":"a","client_\\u0072eference":"b"}',
        ['E_DUPLICATE_KEY client_reference'],
      ],
      [
        'in a caller map, and each one reported',
        '{"subject":{"phone_number":"+447911123456","phone_number":"+447911123457"},"context":{"sector":"s",' +
          '"geography":{},"collection_point":{},"action_policy":{"high":"review","high":"allow"}}}',
        ['E_DUPLICATE_KEY subject.phone_number', 'E_DUPLICATE_KEY context.action_policy.high'],
      ],
    ])('is a 422 naming its path: %s', async (_what, body, expected) => {
      const errors = await rejected(await h.callers.assess.score(body), 422);
      expect(fields(errors)).toEqual(expected.sort());
      for (const e of errors) expect(e.message).toMatch(/more than once/);
    });
  });

  it('__proto__, constructor and prototype as action_policy keys are a 422 naming each', async () => {
    const body =
      '{"subject":{"phone_number":"+447911123456"},"context":{"sector":"s","geography":{},' +
      '"collection_point":{},"action_policy":{"__proto__":"deny","constructor":"x","prototype":"y","high":"review"}}}';
    expect(fields(await rejected(await h.callers.assess.score(body), 422))).toEqual([
      'E_VALIDATION context.action_policy.__proto__',
      'E_VALIDATION context.action_policy.constructor',
      'E_VALIDATION context.action_policy.prototype',
    ]);
  });

  it('refuses the deprecated IPv4-compatible ::a.b.c.d and keeps ::ffff:a.b.c.d as its IPv4', async () => {
    for (const ip of ['::52.95.110.77', '0:0:0:0:0:0:52.95.110.77']) {
      const errors = await rejected(await h.callers.assess.score({ subject: { ip_address: ip } }), 422);
      expect(fields(errors), ip).toEqual(['E_INVALID_IP_ADDRESS subject.ip_address']);
      expect(errors[0]!.message).toMatch(/deprecated/);
    }
    const score = async (ip: string) => {
      const res = await h.callers.assess.score({ subject: { ip_address: ip } });
      expect(res.status, ip).toBe(200);
      return ScoreResponse.parse(await res.json());
    };
    const [v4, mapped] = [await score('52.95.110.77'), await score('::ffff:52.95.110.77')];
    expect(mapped.components).toEqual(v4.components);
  });

  it('accepts assigned country codes only: XX and ZZ are a 422 naming the item, not an elevated band', async () => {
    const context = (geography: Record<string, string[]>) => ({
      subject: { phone_number: '+447911123456' },
      context: { sector: 'retail', geography, collection_point: {} },
    });
    const errors = await rejected(
      await h.callers.assess.score(
        context({
          operating_countries: ['GB', 'XX'],
          expected_corridors: ['ZZ'],
          diaspora_corridors: ['AA'],
        }),
      ),
      422,
    );
    expect(fields(errors)).toEqual([
      'E_VALIDATION context.geography.diaspora_corridors.0',
      'E_VALIDATION context.geography.expected_corridors.0',
      'E_VALIDATION context.geography.operating_countries.1',
    ]);
    for (const e of errors) expect(e.message).toMatch(/assigned ISO 3166-1 alpha-2/);
    // Assigned codes without a calling code, and Kosovo's XK, are accepted (+447911 is Guernsey's).
    const res = await h.callers.assess.score(context({ operating_countries: ['GG', 'AQ', 'XK'] }));
    expect(res.status).toBe(200);
    expect(ScoreResponse.parse(await res.json()).context_applied).toMatchObject({ effect: 'none' });
  });

  it('a trunk zero after the country code is 200 and scores as unattested', async () => {
    const res = await h.callers.assess.score({ subject: { phone_number: '+4407911123456' } });
    expect(res.status).toBe(200);
    const body = ScoreResponse.parse(await res.json());
    const cli = body.components!.find((c) => c.component === 'caller_id_integrity')!;
    expect(cli).toMatchObject({ verdict: 'no_match', detail: 'CLI_UNATTESTED' });
    expect(body.subject!.phone_number).toMatchObject({ valid: false, allocated: false });
    expect(body.subject!.phone_number!.ndc).toBeUndefined();
  });

  it('accepts IPv6 and treats IPv4-mapped IPv6 as its IPv4', async () => {
    const v4 = ScoreResponse.parse(
      await (await h.callers.assess.score({ subject: { ip_address: '192.0.2.1' } })).json(),
    );
    const mapped = ScoreResponse.parse(
      await (await h.callers.assess.score({ subject: { ip_address: '::ffff:192.0.2.1' } })).json(),
    );
    expect(mapped.score).toBe(v4.score);
    expect(mapped.components).toEqual(v4.components);
    expect(
      (await h.callers.assess.score({ subject: { ip_address: '2a00:1450:4009:81f::200e' } })).status,
    ).toBe(200);
  });

  it('400 E_MALFORMED_JSON for a body that is not JSON', async () => {
    const errors = await rejected(await h.callers.assess.score('{"subject": '), 400);
    expect(errors[0]!.code).toBe('E_MALFORMED_JSON');
  });

  it('415 E_UNSUPPORTED_MEDIA_TYPE for another content type', async () => {
    const res = await fetch(`${h.api.url}/v1/score`, {
      method: 'POST',
      headers: { authorization: `Bearer ${h.callers.assess.apiKey}`, 'content-type': 'text/plain' },
      body: JSON.stringify(ok),
    });
    expect((await rejected(res, 415))[0]!.code).toBe('E_UNSUPPORTED_MEDIA_TYPE');
  });

  it('413 E_PAYLOAD_TOO_LARGE above 64 KiB', async () => {
    const big = JSON.stringify({ ...ok, client_reference: 'x'.repeat(70 * 1024) });
    expect((await rejected(await h.callers.assess.score(big), 413))[0]!.code).toBe('E_PAYLOAD_TOO_LARGE');
  });

  it('413 also for a streamed body with no Content-Length that grows past 64 KiB', async () => {
    const chunk = new TextEncoder().encode(' '.repeat(16 * 1024));
    const body = new ReadableStream<Uint8Array>({
      start(c) {
        for (let i = 0; i < 6; i++) c.enqueue(chunk);
        c.close();
      },
    });
    const res = await fetch(`${h.api.url}/v1/score`, {
      method: 'POST',
      headers: { authorization: `Bearer ${h.callers.assess.apiKey}`, 'content-type': 'application/json' },
      body,
      duplex: 'half',
    } as RequestInit);
    expect((await rejected(res, 413))[0]!.code).toBe('E_PAYLOAD_TOO_LARGE');
  });

  it('415 for JSON in another charset or with a content coding', async () => {
    for (const headers of [
      { 'content-type': 'application/json; charset=latin1' },
      { 'content-type': 'application/json', 'content-encoding': 'gzip' },
    ]) {
      const res = await fetch(`${h.api.url}/v1/score`, {
        method: 'POST',
        headers: { authorization: `Bearer ${h.callers.assess.apiKey}`, ...headers },
        body: JSON.stringify(ok),
      });
      expect((await rejected(res, 415))[0]!.code).toBe('E_UNSUPPORTED_MEDIA_TYPE');
    }
  });

  it('404 E_NOT_FOUND for an unknown route, 405 with Allow for a wrong method', async () => {
    expect((await rejected(await fetch(`${h.api.url}/v1/scores`), 404))[0]!.code).toBe('E_NOT_FOUND');
    const res = await fetch(`${h.api.url}/v1/score`, {
      headers: { authorization: `Bearer ${h.callers.assess.apiKey}` },
    });
    expect((await rejected(res, 405))[0]!.code).toBe('E_METHOD_NOT_ALLOWED');
    expect(res.headers.get('allow')).toBe('POST');
  });

  it('401 with WWW-Authenticate: Bearer comes before validation', async () => {
    const res = await fetch(`${h.api.url}/v1/score`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"nonsense": true}',
    });
    expect((await rejected(res, 401))[0]!.code).toBe('E_UNAUTHENTICATED');
    expect(res.headers.get('www-authenticate')).toBe('Bearer');
  });

  describe('context_id', () => {
    const saved = {
      sector: 'remittance',
      geography: { operating_countries: ['GB'] },
      collection_point: { moment: 'payment' },
      risk_posture: 'balanced',
    };

    it('an unknown context_id alone is a 422 on context_id, reported with the other violations', async () => {
      const errors = await rejected(
        await h.callers.assess.score({ subject: { phone_number: '+447911123456' }, context_id: 'nope' }),
        422,
      );
      expect(fields(errors)).toEqual(['E_UNKNOWN_CONTEXT context_id']);
    });

    it('a context saved with the admin CLI is applied and labelled; only its organisation sees it', async () => {
      const out = await admin(
        'context',
        'set',
        '--org',
        h.callers.assess.orgId,
        '--id',
        'gb-payments',
        '--json',
        JSON.stringify(saved),
      );
      expect(out).toMatchObject({ context_id: 'gb-payments', context: saved });
      // A hosting-free foreign mobile: outside GB, so the saved context elevates the band. The
      // change reaches every node's copy of the organisation through pub/sub within a second.
      const res = await waitFor('the saved context on the API node', async () => {
        const r = await h.callers.assess.score({
          subject: { phone_number: '+4915112345678' },
          context_id: 'gb-payments',
        });
        return r.status === 200 ? r : undefined;
      });
      const body = ScoreResponse.parse(await res.json());
      expect(body.context_applied).toMatchObject({ context_id: 'gb-payments', effect: 'band_elevated' });

      const other = await h.callers.bureau.score({
        subject: { phone_number: '+4915112345678' },
        context_id: 'gb-payments',
      });
      expect(fields(await rejected(other, 422))).toEqual(['E_UNKNOWN_CONTEXT context_id']);
    });

    it('with an inline context too, the inline one is applied and context_id labels it', async () => {
      const res = await h.callers.assess.score({
        subject: { phone_number: '+4915112345678' },
        context_id: 'never-saved',
        context: { sector: 'retail', geography: { operating_countries: ['DE'] }, collection_point: {} },
      });
      expect(res.status).toBe(200);
      const body = ScoreResponse.parse(await res.json());
      expect(body.context_applied).toMatchObject({ context_id: 'never-saved', effect: 'none' });
    });

    it('the admin CLI refuses an invalid context', async () => {
      await expect(
        admin('context', 'set', '--org', h.callers.assess.orgId, '--id', 'bad', '--json', '{"sector":"x"}'),
      ).rejects.toThrow(/geography/);
    });
  });
});
