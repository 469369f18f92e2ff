import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { orgWithKey } from '../../infra/harness/fixtures.ts';
import { startHarness, type Harness } from './harness.ts';

const FILE = new URL('../../requests.http', import.meta.url);

interface HttpRequest {
  title: string;
  name?: string;
  expect: number;
  repeat: boolean;
  method: string;
  url: string;
  headers: [string, string][];
  body?: string;
}

/** The subset of the .http format the collection uses: `###` blocks, `# @name`, `# expect:`. */
function parseCollection(text: string): { vars: Record<string, string>; requests: HttpRequest[] } {
  const [head, ...blocks] = text.split(/^###/m);
  const vars: Record<string, string> = {};
  for (const m of head!.matchAll(/^@(\w+)\s*=\s*(.*)$/gm)) vars[m[1]!] = m[2]!.trim();
  const requests = blocks.map((block) => {
    const lines = block.split('\n');
    const title = lines.shift()!.trim();
    const comments = lines.filter((l) => l.startsWith('#'));
    const rest = lines.filter((l) => !l.startsWith('#'));
    while (rest[0]?.trim() === '') rest.shift();
    const [method, url] = rest.shift()!.trim().split(/\s+/) as [string, string];
    const headers: [string, string][] = [];
    while (rest.length && rest[0]!.trim() !== '') {
      const line = rest.shift()!;
      const i = line.indexOf(':');
      headers.push([line.slice(0, i).trim(), line.slice(i + 1).trim()]);
    }
    const body = rest.join('\n').trim();
    const expectLine = comments.map((c) => /^# expect: (\d{3})( \(repeat\))?/.exec(c)).find(Boolean);
    if (!expectLine) throw new Error(`requests.http: "${title}" says no "# expect:"`);
    const name = comments.map((c) => /^# @name (\w+)/.exec(c)?.[1]).find(Boolean);
    return {
      title,
      ...(name ? { name } : {}),
      expect: Number(expectLine[1]),
      repeat: Boolean(expectLine[2]),
      method,
      url,
      headers,
      ...(body ? { body } : {}),
    };
  });
  return { vars, requests };
}

/**
 * Sends every request of requests.http, in order, to a real API node with keys made for the run,
 * and checks each answers with the status its `# expect:` line gives: the collection a newcomer
 * tries by hand cannot go stale.
 */
describe('requests.http against a running API node', () => {
  let h: Harness;
  const vars: Record<string, string> = {};
  beforeAll(async () => {
    h = await startHarness();
    vars.base = h.api.url;
    vars.key_verify = h.callers.verify.apiKey;
    vars.key_assess = h.callers.assess.apiKey;
    vars.key_bureau = h.callers.bureau.apiKey;
    vars.key_broke = (await orgWithKey('assess', { credits: 0, overdraft: 0 })).apiKey;
    vars.key_slow = (await orgWithKey('assess', { rateRps: 1 })).apiKey;
    // A well-formed key no organisation has (the 401 case).
    vars.unknown_key_prefix = 'frs_live_';
    vars.unknown_key_secret = '0'.repeat(32);
  });
  afterAll(async () => {
    await h?.stop();
  });

  it('every request answers with the status it expects', async () => {
    const { vars: fileVars, requests } = parseCollection(readFileSync(FILE, 'utf8'));
    expect(Object.keys(fileVars).sort()).toEqual(Object.keys(vars).sort());
    expect(requests.length).toBeGreaterThan(20);
    const named: Record<string, { headers: Record<string, string>; body: unknown }> = {};
    const timestamp = String(Math.floor(Date.now() / 1000));
    const expand = (s: string) =>
      s.replace(/\{\{([^}]+)\}\}/g, (_all, ref: string) => {
        if (ref === '$timestamp') return timestamp;
        const response = /^(\w+)\.response\.body\.\$\.(\w+)$/.exec(ref);
        if (response) return String((named[response[1]!]!.body as Record<string, unknown>)[response[2]!]);
        const header = /^(\w+)\.request\.headers\.([\w-]+)$/.exec(ref);
        if (header) return named[header[1]!]!.headers[header[2]!.toLowerCase()]!;
        if (!(ref in vars)) throw new Error(`requests.http: unknown variable ${ref}`);
        return vars[ref]!;
      });

    const seen: string[] = [];
    for (const r of requests) {
      const headers = Object.fromEntries(r.headers.map(([k, v]) => [k.toLowerCase(), expand(v)]));
      const send = () =>
        fetch(expand(r.url), {
          method: r.method,
          headers,
          ...(r.body !== undefined ? { body: expand(r.body) } : {}),
        });
      let res = await send();
      for (let i = 0; r.repeat && res.status !== r.expect && i < 20; i++) res = await send();
      const text = await res.text();
      seen.push(`${res.status} ${r.title}`);
      expect(res.status, `${r.title}: ${text.slice(0, 500)}`).toBe(r.expect);
      expect(res.headers.get('x-request-id')).toBeTruthy();
      if (r.name) {
        named[r.name] = {
          headers,
          body: res.headers.get('content-type')?.includes('json') ? JSON.parse(text) : text,
        };
      }
    }
    console.log(seen.join('\n'));
  });
});
