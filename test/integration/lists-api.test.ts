/**
 * `/v1/lists` over HTTP against an API node (in the test process, as the API's Redis user) on the
 * shared Redis: authentication, one organisation's list invisible to another's keys, the round
 * trip of add, list, filter, page, download, remove and replace, Idempotency-Key replays, every
 * refusal a clear 4xx that changes nothing, a 100,000-line CSV refused whole (naming its first 100
 * bad lines and their count) and applied whole without them, and the body limits.
 */
import { once } from 'node:events';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OrgListStore } from '../../shared/orgs/lists-store.ts';
import { OrgStore } from '../../shared/orgs/store.ts';
import { orgWithKey, redis } from '../../infra/harness/fixtures.ts';
import { startNode, type InProcessNode } from '../helpers/in-process.ts';

type Org = Awaited<ReturnType<typeof orgWithKey>>;
interface Entry {
  kind: string;
  value: string;
  effect: string;
  reason: string;
  expires_at?: string;
  added_by: string;
  added_at: string;
}
interface Page {
  entries: Entry[];
  total: number;
  next_cursor?: string;
}
interface Errors {
  errors: { code: string; message: string; field?: string }[];
}

const HEADER = 'kind,value,effect,reason,expires_at';
const YEAR_AHEAD = new Date(Date.now() + 365 * 86_400_000).toISOString();

describe('/v1/lists', () => {
  let api: InProcessNode;
  let a: Org;
  let b: Org;
  const r = redis();
  const store = new OrgListStore(r);

  beforeAll(async () => {
    api = await startNode();
    // Rates far above what the file sends: these tests are about the lists, not the limiter.
    [a, b] = await Promise.all([
      orgWithKey('verify', { rateRps: 1000 }),
      orgWithKey('bureau', { rateRps: 1000 }),
    ]);
  });

  afterAll(async () => {
    await api?.stop();
    r.disconnect();
  });

  const call = (org: Org | undefined, method: string, path: string, init: RequestInit = {}) =>
    fetch(`${api.url}${path}`, {
      method,
      ...init,
      headers: { ...(org ? { authorization: `Bearer ${org.apiKey}` } : {}), ...(init.headers ?? {}) },
    });
  const postJson = (org: Org, path: string, body: unknown, headers: Record<string, string> = {}) =>
    call(org, 'POST', path, {
      headers: { 'content-type': 'application/json', ...headers },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
  const putCsv = (org: Org, csv: string, headers: Record<string, string> = {}) =>
    call(org, 'PUT', '/v1/lists', { headers: { 'content-type': 'text/csv', ...headers }, body: csv });
  const page = async (org: Org, query = '') => {
    const res = await call(org, 'GET', `/v1/lists${query}`);
    expect(res.status, await res.clone().text()).toBe(200);
    return (await res.json()) as Page;
  };
  const codes = async (res: Response) => ((await res.json()) as Errors).errors.map((e) => [e.code, e.field]);

  it('refuses every operation without a valid key, and never shows one organisation another’s list', async () => {
    for (const [method, path] of [
      ['GET', '/v1/lists'],
      ['GET', '/v1/lists.csv'],
      ['POST', '/v1/lists/entries'],
      ['POST', '/v1/lists/entries/remove'],
      ['PUT', '/v1/lists'],
    ] as const) {
      const res = await call(undefined, method, path);
      expect(res.status, `${method} ${path}`).toBe(401);
      expect(res.headers.get('www-authenticate')).toBe('Bearer');
      expect(await codes(res)).toEqual([['E_UNAUTHENTICATED', undefined]]);
    }

    const added = await postJson(a, '/v1/lists/entries', {
      entries: [{ kind: 'ip', value: '198.51.100.7', effect: 'deny', reason: 'org a only' }],
    });
    expect(added.status).toBe(200);
    expect((await page(b)).total).toBe(0);
    expect(await (await call(b, 'GET', '/v1/lists.csv')).text()).toBe(`${HEADER},added_by,added_at\r\n`);
    // B removing, or replacing its own list with nothing, leaves A's list as it was.
    const removed = await postJson(b, '/v1/lists/entries/remove', {
      entries: [{ kind: 'ip', value: '198.51.100.7' }],
    });
    expect(await removed.json()).toMatchObject({ removed: 0 });
    expect((await putCsv(b, `${HEADER}\r\n`)).status).toBe(200);
    expect((await page(a)).entries.map((e) => e.value)).toContain('198.51.100.7');
  });

  it('adds, lists, filters, pages, downloads, removes and replaces: a round trip, never billed', async () => {
    const org = await orgWithKey('verify', { rateRps: 1000 });
    const res = await postJson(org, '/v1/lists/entries', {
      entries: [
        { kind: 'phone', value: '+447911123456', effect: 'allow', reason: 'our call centre' },
        { kind: 'phone_prefix', value: '+4479111', effect: 'deny', reason: 'range, "quoted"' },
        { kind: 'ip', value: '::ffff:192.0.2.1', effect: 'deny', reason: 'mapped: read as IPv4' },
        { kind: 'cidr', value: '2001:db8::/32', effect: 'allow', reason: 'our v6', expires_at: YEAR_AHEAD },
        { kind: 'asn', value: 'as64500', effect: 'deny', reason: '=HYPERLINK("x")' },
      ],
    });
    expect(res.status, await res.clone().text()).toBe(200);
    expect(res.headers.get('x-ratelimit-limit')).toBe('1000');
    expect(res.headers.get('x-credits-remaining')).toBeNull();
    const { added, version } = (await res.json()) as { added: number; version: number };
    expect(added).toBe(5);
    expect(version).toBeGreaterThan(0);

    const all = await page(org);
    expect(all.total).toBe(5);
    expect(all.entries.map((e) => `${e.kind} ${e.value}`)).toEqual([
      'phone +447911123456',
      'phone_prefix +4479111',
      'ip 192.0.2.1',
      'cidr 2001:db8::/32',
      'asn AS64500',
    ]);
    for (const e of all.entries) {
      expect(e.added_by).toBe(`key:${org.keyId}`);
      expect(Date.parse(e.added_at)).toBeGreaterThan(Date.now() - 60_000);
    }
    expect(all.entries[3]!.expires_at).toBe(YEAR_AHEAD);

    // Filters, and pages of one entry each, followed by cursor to the end.
    expect((await page(org, '?effect=allow')).entries.map((e) => e.kind)).toEqual(['phone', 'cidr']);
    expect((await page(org, '?kind=asn&effect=deny')).entries.map((e) => e.value)).toEqual(['AS64500']);
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const p = await page(org, `?limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      expect(p.total).toBe(5);
      seen.push(...p.entries.map((e) => e.value));
      cursor = p.next_cursor;
    } while (cursor);
    expect(seen).toEqual(all.entries.map((e) => e.value));

    // The download is a CSV the replace takes back unchanged.
    const csv = await call(org, 'GET', '/v1/lists.csv');
    expect(csv.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(csv.headers.get('content-disposition')).toBe('attachment; filename="lists.csv"');
    const text = await csv.text();
    expect(text.split('\r\n')[0]).toBe(`${HEADER},added_by,added_at`);
    expect(text).toContain('"range, ""quoted"""');
    expect(text).toContain(`'=HYPERLINK`);
    const again = await putCsv(org, text);
    expect(await again.json()).toMatchObject({ before: 5, after: 5 });
    expect((await page(org)).entries.map((e) => [e.kind, e.value, e.effect, e.reason])).toEqual(
      all.entries.map((e) => [e.kind, e.value, e.effect, e.reason]),
    );

    // Remove names an entry by kind and value, in any form the add reads.
    const removed = await postJson(org, '/v1/lists/entries/remove', {
      entries: [
        { kind: 'ip', value: '::ffff:192.0.2.1' },
        { kind: 'phone', value: '+15550000000' },
      ],
    });
    expect(removed.status).toBe(200);
    expect(await removed.json()).toMatchObject({ removed: 1 });
    expect((await page(org)).entries.map((e) => e.value)).not.toContain('192.0.2.1');

    const replaced = await putCsv(org, `${HEADER}\r\nasn,AS65000,deny,"a, b",\r\n`);
    expect(replaced.status).toBe(200);
    expect(await replaced.json()).toMatchObject({ before: 4, after: 1 });
    expect((await page(org)).entries.map((e) => [e.value, e.reason, e.added_by])).toEqual([
      ['AS65000', 'a, b', `key:${org.keyId}`],
    ]);
    // Not one credit for all of it.
    const rc = redis();
    try {
      expect((await new OrgStore(rc).creditsUsed(org.orgId)).used).toBe(0);
    } finally {
      rc.disconnect();
    }
  });

  it('replays an Idempotency-Key: the first 200 again, no second change; another body is 409', async () => {
    const org = await orgWithKey('verify', { rateRps: 1000 });
    const body = { entries: [{ kind: 'cidr', value: '203.0.113.0/24', effect: 'deny', reason: 'once' }] };
    const key = `lists-${Date.now()}`;
    const first = await postJson(org, '/v1/lists/entries', body, { 'idempotency-key': key });
    expect(first.status).toBe(200);
    const firstBody = await first.text();
    const version = await store.version(org.orgId);
    const replay = await postJson(org, '/v1/lists/entries', body, { 'idempotency-key': key });
    expect(replay.status).toBe(200);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(await replay.text()).toBe(firstBody);
    expect(await store.version(org.orgId)).toBe(version);
    const other = await postJson(
      org,
      '/v1/lists/entries',
      { entries: [{ ...body.entries[0]!, reason: 'twice' }] },
      { 'idempotency-key': key },
    );
    expect(other.status).toBe(409);
    expect(await codes(other)).toEqual([['E_IDEMPOTENCY_MISMATCH', 'Idempotency-Key']]);

    // A CSV replace too: the body as sent is what the key is bound to.
    const csv = `${HEADER}\r\nip,192.0.2.9,allow,replayed,\r\n`;
    const put = await putCsv(org, csv, { 'idempotency-key': `${key}-csv` });
    expect(await put.json()).toMatchObject({ before: 1, after: 1 });
    const putVersion = await store.version(org.orgId);
    const putAgain = await putCsv(org, csv, { 'idempotency-key': `${key}-csv` });
    expect(putAgain.headers.get('idempotent-replayed')).toBe('true');
    expect(await putAgain.json()).toMatchObject({ before: 1, after: 1 });
    expect(await store.version(org.orgId)).toBe(putVersion);
  });

  it('refuses bad input with a clear 4xx and changes nothing', async () => {
    const org = await orgWithKey('verify', { rateRps: 1000 });
    const good = { kind: 'ip', value: '192.0.2.1', effect: 'deny', reason: 'ok' };
    expect((await postJson(org, '/v1/lists/entries', { entries: [good] })).status).toBe(200);
    const version = await store.version(org.orgId);
    const refused = async (res: Promise<Response>, status: number, expected: (string | undefined)[][]) => {
      const got = await res;
      expect(got.status).toBe(status);
      expect(await codes(got)).toEqual(expected);
    };

    await refused(
      postJson(org, '/v1/lists/entries', {
        entries: [good, { ...good, kind: 'cidr', value: '10.0.0.1/8' }, { ...good, value: 'nope' }],
      }),
      422,
      [
        ['E_INVALID_LIST_ENTRY', 'entries.1'],
        ['E_INVALID_LIST_ENTRY', 'entries.2'],
      ],
    );
    await refused(
      postJson(org, '/v1/lists/entries', { entries: [good, { ...good, value: '::ffff:192.0.2.1' }] }),
      422,
      [['E_INVALID_LIST_ENTRY', 'entries.1']],
    );
    await refused(postJson(org, '/v1/lists/entries', { entries: [{ ...good, kind: 'url' }] }), 422, [
      ['E_VALIDATION', 'entries.0.kind'],
    ]);
    await refused(postJson(org, '/v1/lists/entries', { entries: [{ ...good, note: 1 }] }), 422, [
      ['E_UNKNOWN_FIELD', 'entries.0.note'],
    ]);
    await refused(
      postJson(org, '/v1/lists/entries', { entries: [{ ...good, expires_at: '2001-01-01T00:00:00Z' }] }),
      422,
      [['E_INVALID_LIST_ENTRY', 'entries.0']],
    );
    const many = Array.from({ length: 1001 }, (_, i) => ({ ...good, value: `10.0.${i >> 8}.${i & 255}` }));
    await refused(postJson(org, '/v1/lists/entries', { entries: many }), 422, [['E_VALIDATION', 'entries']]);
    await refused(postJson(org, '/v1/lists/entries', '{"entries": ['), 400, [
      ['E_MALFORMED_JSON', undefined],
    ]);
    await refused(
      postJson(org, '/v1/lists/entries/remove', { entries: [{ kind: 'asn', value: 'AS0' }] }),
      422,
      [['E_INVALID_LIST_ENTRY', 'entries.0']],
    );
    await refused(putCsv(org, 'kind,value\r\nip,192.0.2.1\r\n'), 422, [
      ['E_LIST_REFUSED', undefined],
      ['E_INVALID_LIST_ENTRY', 'line.1'],
    ]);
    await refused(
      call(org, 'PUT', '/v1/lists', { headers: { 'content-type': 'application/json' }, body: '{}' }),
      415,
      [['E_UNSUPPORTED_MEDIA_TYPE', undefined]],
    );
    await refused(
      call(org, 'PUT', '/v1/lists', {
        headers: { 'content-type': 'text/csv' },
        body: Buffer.from([0x6b, 0xff, 0x0a]),
      }),
      400,
      [['E_BAD_REQUEST', undefined]],
    );
    await refused(putCsv(org, `${HEADER}\r\n`, { 'idempotency-key': ' ' }), 422, [
      ['E_INVALID_IDEMPOTENCY_KEY', 'Idempotency-Key'],
    ]);
    await refused(call(org, 'GET', '/v1/lists?limit=0'), 422, [['E_VALIDATION', 'limit']]);
    await refused(call(org, 'GET', '/v1/lists?kind=url&x=1'), 422, [
      ['E_VALIDATION', 'kind'],
      ['E_UNKNOWN_FIELD', 'x'],
    ]);
    await refused(call(org, 'DELETE', '/v1/lists'), 405, [['E_METHOD_NOT_ALLOWED', undefined]]);

    expect(await store.version(org.orgId)).toBe(version);
    expect((await page(org)).entries.map((e) => e.value)).toEqual(['192.0.2.1']);
  });

  it('refuses a 100,000-line CSV whole for its bad lines, naming the first 100 and the count; applies it whole without them', async () => {
    const org = await orgWithKey('verify', { rateRps: 1000 });
    expect(
      (
        await postJson(org, '/v1/lists/entries', {
          entries: [{ kind: 'asn', value: 'AS1', effect: 'deny', reason: 'kept until replaced' }],
        })
      ).status,
    ).toBe(200);
    const version = await store.version(org.orgId);
    const good = Array.from(
      { length: 100_000 },
      (_, i) => `ip,10.${i >> 16}.${(i >> 8) & 255}.${i & 255},deny,bulk import,`,
    );
    // Every 600th line made bad (an address that is not one): 166 of them, spread through the file.
    const bad = good.map((line, i) => (i % 600 === 599 ? line.replace(/\.\d+,deny/, '.999,deny') : line));
    const badLines = bad.flatMap((line, i) => (line.includes('.999,') ? [i + 2] : []));
    expect(badLines).toHaveLength(166);

    const refused = await putCsv(org, [HEADER, ...bad].join('\r\n'));
    expect(refused.status).toBe(422);
    expect(refused.headers.get('x-invalid-lines')).toBe('166');
    const { errors } = (await refused.json()) as Errors;
    expect(errors[0]).toMatchObject({ code: 'E_LIST_REFUSED' });
    expect(errors[0]!.message).toContain('166 bad lines');
    expect(errors.slice(1).map((e) => e.field)).toEqual(badLines.slice(0, 100).map((n) => `line.${n}`));
    expect(errors[1]!.code).toBe('E_INVALID_LIST_ENTRY');
    expect(await store.version(org.orgId)).toBe(version);

    // One bad line is enough to refuse the whole file.
    const one = [...good];
    one[54_321] = 'ip,10.0.0.1/32,deny,bulk import,';
    const oneRefused = await putCsv(org, [HEADER, ...one].join('\r\n'));
    expect(oneRefused.headers.get('x-invalid-lines')).toBe('1');
    expect(((await oneRefused.json()) as Errors).errors.map((e) => e.field)).toEqual([
      undefined,
      'line.54323',
    ]);
    expect((await page(org)).entries.map((e) => e.value)).toEqual(['AS1']);

    const started = Date.now();
    const applied = await putCsv(org, [HEADER, ...good].join('\r\n'));
    expect(applied.status, await applied.clone().text()).toBe(200);
    expect(await applied.json()).toMatchObject({ before: 1, after: 100_000 });
    console.log(`[lists] 100,000-line CSV replaced in ${Date.now() - started} ms`);
    const first = await page(org, '?limit=1000');
    expect(first.total).toBe(100_000);
    expect(first.entries[0]!.value).toBe('10.0.0.0');
    const second = await page(org, `?limit=1000&cursor=${first.next_cursor}`);
    expect(second.entries[0]!.value).not.toBe(first.entries.at(-1)!.value);
    // A 100,001st entry does not fit, whichever way it comes.
    const full = await postJson(org, '/v1/lists/entries', {
      entries: [{ kind: 'asn', value: 'AS2', effect: 'deny', reason: 'one too many' }],
    });
    expect(full.status).toBe(422);
    expect(await codes(full)).toEqual([['E_LIST_FULL', undefined]]);
    const tooMany = await putCsv(org, [HEADER, ...good, 'asn,AS2,deny,one too many,'].join('\r\n'));
    expect(tooMany.status).toBe(422);
    expect(tooMany.headers.get('x-invalid-lines')).toBe('1');
    expect((await page(org)).total).toBe(100_000);
  });

  it('refuses a CSV past 10 MiB (413, the connection closed) and a JSON body past 1 MiB, changing nothing', async () => {
    const org = await orgWithKey('verify', { rateRps: 1000 });
    const version = await store.version(org.orgId);
    // Declared too large: refused before a byte of the body is read.
    const declared = await rawRequest(
      `PUT /v1/lists HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${org.apiKey}\r\n` +
        `Content-Type: text/csv\r\nContent-Length: ${10 * 1024 * 1024 + 1}\r\n\r\n${HEADER}\r\n`,
    );
    expect(declared).toMatch(/^HTTP\/1\.1 413/);
    expect(declared).toMatch(/connection: close/i);
    expect(declared).toContain('E_PAYLOAD_TOO_LARGE');
    // Chunked, with no length to go by: refused once the bytes read pass the limit.
    const chunk = `ip,10.0.0.1,deny,${'x'.repeat(190)},\r\n`.repeat(5000);
    const streamed = await rawRequest(
      `PUT /v1/lists HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${org.apiKey}\r\n` +
        'Content-Type: text/csv\r\nTransfer-Encoding: chunked\r\n\r\n',
      `${Buffer.byteLength(chunk).toString(16)}\r\n${chunk}\r\n`,
    );
    expect(streamed).toMatch(/^HTTP\/1\.1 413/);
    const json = JSON.stringify({
      entries: Array.from({ length: 1000 }, (_, i) => ({
        kind: 'ip',
        value: `10.1.${i >> 8}.${i & 255}`,
        effect: 'deny',
        reason: 'y'.repeat(200),
        expires_at: YEAR_AHEAD,
      })),
    });
    expect(json.length).toBeLessThan(1 << 20);
    expect((await postJson(org, '/v1/lists/entries', json)).status).toBe(200);
    const tooBig = await postJson(
      org,
      '/v1/lists/entries',
      json.replace(/"deny"/g, `"deny"${' '.repeat(900)}`),
    );
    expect(tooBig.status).toBe(413);
    expect(await store.version(org.orgId)).toBe(version + 1);
  });

  /** Writes `head`, then `chunk` over and over until the node answers; what it answered. */
  async function rawRequest(head: string, chunk?: string): Promise<string> {
    const socket = connect(api.port, '127.0.0.1');
    await once(socket, 'connect');
    let got = '';
    socket.on('data', (d: Buffer) => (got += d.toString('utf8')));
    socket.on('error', () => undefined);
    const closed = once(socket, 'close');
    socket.write(head);
    if (chunk) {
      // 11 MiB at most: past 10 MiB the node must have answered and closed.
      for (let sent = 0; sent < 11 << 20 && !socket.destroyed && got === ''; sent += chunk.length) {
        if (!socket.write(chunk)) await Promise.race([once(socket, 'drain'), closed]);
      }
    }
    await closed;
    return got;
  }
});
