import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { quote } from '../../shared/clients/sql.ts';
import { cfg, clickhouse, orgWithKey, scoreCall } from '../../infra/harness/fixtures.ts';
import { startNode, type InProcessNode } from '../helpers/in-process.ts';
import { startSink, type Service } from '../../infra/harness/processes.ts';
import { sinkGroupAtEnd } from '../../infra/harness/sink-group.ts';
import { waitFor } from '../../infra/harness/wait.ts';

/**
 * What a hostile caller can put in a string, end to end: every free-text field of every endpoint
 * gets each string of the corpus. Each answer must be a 4xx, or a 200 whose row reaches ClickHouse
 * holding the request exactly as sent; and ordinary scores another organisation sends afterwards
 * must all arrive (one refused insert must not stall the audit pipeline for every tenant).
 */

const EMOJI = '\u{1F600}'; // 4 bytes in UTF-8, 2 UTF-16 code units, 1 code point

/** Strings every field gets; `max` is the field's documented maximum length. */
function corpus(max: number): [string, string][] {
  return [
    ['lone high surrogate', 'x\ud800'],
    ['lone low surrogate', '\udc00y'],
    ['reversed surrogate pair', '\ude00\ud83d'],
    ['NUL', 'a\u0000b'],
    ['C0 controls', '\u0001\u0007\u001b[31m'],
    ['CR LF', 'a\r\nb'],
    ['DEL and C1', '\u007f\u0085\u009b'],
    ['bidi override', '\u202egnp.exe'],
    ['bidi isolate', '\u2066x\u2069'],
    ['noncharacter U+FFFF', 'x\uffff'],
    ['noncharacter U+FFFE', '\ufffe'],
    ['noncharacter U+FDD0', '\ufdd0'],
    ['noncharacter U+10FFFF', '\u{10FFFF}'],
    ['4-byte emoji at max length', EMOJI.repeat(max)],
    ['4-byte emoji over max length', EMOJI.repeat(max + 1)],
    ['accented at max length', '\u00e9'.repeat(max)],
    ['SQL quote', "x' OR 1=1 --"],
    ['SQL statement', "'); DROP TABLE frs.scores; --"],
    ['backslashes', '\\\\\\'],
    ['JSON metacharacters', '"}],{"a":[\\u0000'],
    ['markup', '<script>alert(1)</script>'],
    ['plain', 'ordinary-reference-42'],
  ];
}

const PHONE = '+447911123456';
const CONTEXT = { sector: 'remittance', geography: {}, collection_point: {} };

interface Field {
  name: string;
  max: number;
  body: (s: string) => Record<string, unknown>;
}

/** Every free-text field of POST /v1/score, each placed so that only it varies. */
const FIELDS: Field[] = [
  {
    name: 'client_reference',
    max: 256,
    body: (s) => ({ subject: { phone_number: PHONE }, client_reference: s }),
  },
  {
    name: 'context_id',
    max: 128,
    body: (s) => ({ subject: { phone_number: PHONE }, context_id: s, context: CONTEXT }),
  },
  {
    name: 'context.sector',
    max: 64,
    body: (s) => ({ subject: { phone_number: PHONE }, context: { ...CONTEXT, sector: s } }),
  },
  {
    name: 'context.action_policy (key)',
    max: 64,
    body: (s) => ({
      subject: { phone_number: PHONE },
      context: { ...CONTEXT, action_policy: { [s]: 'review' } },
    }),
  },
  {
    name: 'context.action_policy (value)',
    max: 256,
    body: (s) => ({ subject: { phone_number: PHONE }, context: { ...CONTEXT, action_policy: { high: s } } }),
  },
  {
    name: 'options.shadow_version',
    max: 32,
    body: (s) => ({ subject: { phone_number: PHONE }, options: { shadow_version: s } }),
  },
  { name: 'subject.phone_number', max: 16, body: (s) => ({ subject: { phone_number: s } }) },
  { name: 'subject.ip_address', max: 64, body: (s) => ({ subject: { ip_address: s } }) },
];

/**
 * Percent-encodes a string for a path, a lone surrogate as its three WTF-8 bytes (encodeURIComponent
 * refuses those), so the server sees exactly the hostile bytes.
 */
function pathSegment(s: string): string {
  let out = '';
  for (const ch of s) {
    const u = ch.charCodeAt(0);
    if (ch.length === 1 && u >= 0xd800 && u <= 0xdfff) {
      out += [0xed, 0xa0 | ((u >> 6) & 0x1f), 0x80 | (u & 0x3f)]
        .map((b) => `%${b.toString(16).toUpperCase()}`)
        .join('');
    } else out += encodeURIComponent(ch);
  }
  return out;
}

interface Stored {
  score_id: string;
  client_reference: string;
  request_json: string;
}

describe('hostile strings in every free-text field, end to end', () => {
  let api: InProcessNode;
  let sink: Service;
  const ch = clickhouse();

  beforeAll(async () => {
    sink = startSink(await sinkGroupAtEnd());
    api = await startNode();
  });

  afterAll(async () => {
    await api?.stop();
    await sink?.stop();
    await ch.close();
  });

  async function rows(ids: string[]): Promise<Map<string, Stored>> {
    const out = new Map<string, Stored>();
    for (let i = 0; i < ids.length; i += 200) {
      const chunk = ids.slice(i, i + 200);
      const rs = await ch.query({
        query: `SELECT score_id, client_reference, request_json FROM ${cfg.CLICKHOUSE_DATABASE}.scores
                WHERE score_id IN (${chunk.map(quote).join(',')})`,
        format: 'JSONEachRow',
      });
      for (const r of await rs.json<Stored>()) out.set(r.score_id, r);
    }
    return out;
  }

  it('stores the request as sent: no default written in, no key dropped', async () => {
    const caller = await orgWithKey('assess', { rateRps: 1_000, credits: 1_000 });
    // Members in the order the request is stored in (a fixed one), an options object
    // without `explain` (absent means true, and used to be stored as `explain: true`), and map
    // keys that are near a reserved name but not one.
    const sent =
      '{"subject":{"phone_number":"+447911123456","ip_address":"81.2.69.142"},' +
      '"context":{"sector":"remittance","geography":{"operating_countries":["GB"]},"collection_point":{},' +
      '"action_policy":{"high":"review","proto":"x","__proto_":"y","Constructor":"z"}},' +
      '"options":{"max_latency_ms":1000},"client_reference":"as-sent"}';
    const res = await scoreCall(api.url, caller.apiKey, sent);
    expect(res.status).toBe(200);
    const { score_id } = (await res.json()) as { score_id: string };
    const explained = await fetch(`${api.url}/v1/explain/${score_id}`, {
      headers: { authorization: `Bearer ${caller.apiKey}` },
    });
    expect(explained.status).toBe(200);
    expect(JSON.stringify(((await explained.json()) as { request: unknown }).request)).toBe(sent);
    let stored: Stored | undefined;
    await waitFor(
      'the score in ClickHouse',
      async () => (stored = (await rows([score_id])).get(score_id)),
      90_000,
      500,
    );
    expect(stored!.request_json).toBe(sent);

    // A reserved name in the map is refused, never stored without its entry.
    const reserved = sent.replace('"high":"review"', '"__proto__":"review"');
    const refused = await scoreCall(api.url, caller.apiKey, reserved);
    expect(refused.status).toBe(422);
    expect(((await refused.json()) as { errors: { field: string }[] }).errors.map((e) => e.field)).toEqual([
      'context.action_policy.__proto__',
    ]);
  });

  it('answers 4xx or a 200 that is stored as sent, and the pipeline keeps flowing', async () => {
    // Bureau, so options.shadow_version reaches validation rather than the entitlement check.
    const hostile = await orgWithKey('bureau', { rateRps: 100_000, credits: 1_000_000 });
    const accepted = new Map<string, { label: string; request: unknown }>();
    const outcomes: string[] = [];
    for (const field of FIELDS) {
      for (const [label, s] of corpus(field.max)) {
        const request = field.body(s);
        const res = await scoreCall(api.url, hostile.apiKey, request);
        const text = await res.text();
        const what = `${field.name} / ${label}`;
        outcomes.push(`${res.status} ${what}`);
        if (res.status === 200) {
          const body = JSON.parse(text) as { score_id: string };
          accepted.set(body.score_id, { label: what, request });
        } else {
          // A refusal is a 4xx in the error shape, never a 5xx and never a rate limit here.
          expect(res.status, `${what}: ${text}`).toBeGreaterThanOrEqual(400);
          expect(res.status, `${what}: ${text}`).toBeLessThan(500);
          expect(res.status, what).not.toBe(429);
          expect((JSON.parse(text) as { errors: unknown[] }).errors.length).toBeGreaterThan(0);
        }
      }
    }

    // Bytes that are not UTF-8 (a stray Latin-1 byte, a surrogate encoded as CESU-8): 400, never a
    // silent U+FFFD that scores and stores something the caller did not send.
    for (const bytes of [[0xff], [0xed, 0xa0, 0x80], [0xc3]]) {
      const head = Buffer.from('{"subject":{"phone_number":"+447911123456"},"client_reference":"');
      const res = await scoreCall(
        api.url,
        hostile.apiKey,
        Buffer.concat([head, Buffer.from(bytes), Buffer.from('"}')]),
      );
      const text = await res.text();
      outcomes.push(`${res.status} body bytes ${Buffer.from(bytes).toString('hex')}`);
      expect(res.status, `${Buffer.from(bytes).toString('hex')}: ${text}`).toBe(400);
    }

    // The one free-text field of GET /v1/explain is its path: a 4xx whatever it holds.
    for (const [label, s] of corpus(40)) {
      const res = await fetch(`${api.url}/v1/explain/${pathSegment(s)}`, {
        headers: { authorization: `Bearer ${hostile.apiKey}` },
      });
      await res.arrayBuffer();
      expect([400, 404], `explain path / ${label}`).toContain(res.status);
    }

    // Then an ordinary tenant scores; every one of its scores must reach ClickHouse.
    const other = await orgWithKey('assess', { rateRps: 100_000, credits: 1_000_000 });
    const ordinary: string[] = [];
    for (let i = 0; i < 60; i++) {
      const res = await scoreCall(api.url, other.apiKey, {
        subject: { phone_number: PHONE, ip_address: '81.2.69.142' },
        client_reference: `ordinary-${i}`,
      });
      expect(res.status).toBe(200);
      ordinary.push(((await res.json()) as { score_id: string }).score_id);
    }

    const expected = [...accepted.keys(), ...ordinary];
    let found = new Map<string, Stored>();
    try {
      await waitFor(
        'every accepted score in ClickHouse',
        async () => {
          found = await rows(expected);
          return found.size === expected.length;
        },
        90_000,
        500,
      );
    } catch (err) {
      const missingHostile = [...accepted].filter(([id]) => !found.has(id)).map(([, a]) => a.label);
      const missingOrdinary = ordinary.filter((id) => !found.has(id)).length;
      throw new Error(
        `${String(err)}\nordinary scores of the other organisation stored: ` +
          `${ordinary.length - missingOrdinary} of ${ordinary.length}\n` +
          `accepted hostile scores missing: ${missingHostile.join('; ') || 'none'}\n` +
          `answers:\n${outcomes.join('\n')}`,
        { cause: err },
      );
    }
    // Stored as sent: the request read back from ClickHouse is the request the caller made.
    for (const [id, a] of accepted) {
      expect(JSON.parse(found.get(id)!.request_json), a.label).toEqual(a.request);
    }
  });
});
