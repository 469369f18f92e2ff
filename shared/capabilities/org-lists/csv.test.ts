import { describe, expect, it } from 'vitest';
import { listCsv, parseListCsv, parseListCsvCooperative } from './csv.ts';
import { MAX_LIST_ENTRIES, type ListEntry } from './types.ts';

const now = new Date('2026-12-01T12:00:00Z');
const HEADER = 'kind,value,effect,reason,expires_at';

/** `n` distinct good lines: numbers, prefixes, addresses, ranges and ASes in turn. */
function goodLines(n: number): string[] {
  const lines: string[] = [];
  for (let i = 0; i < n; i++) {
    const [a, b] = [(i >> 8) & 0xff, i & 0xff];
    const value = [
      `+4477${String(i).padStart(8, '0')}`,
      `+1${String(i).padStart(9, '0')}`,
      `10.${(i >> 16) & 0xff}.${a}.${b}`,
      `2001:db8:${(i >> 16).toString(16)}:${(i & 0xffff).toString(16)}::/64`,
      `AS${64512 + i}`,
    ][i % 5];
    const kind = ['phone', 'phone_prefix', 'ip', 'cidr', 'asn'][i % 5];
    lines.push(`${kind},${value},${i % 2 ? 'allow' : 'deny'},bulk ${i},`);
  }
  return lines;
}

describe('parseListCsv', () => {
  it('reads every kind, quoting and an optional expiry', () => {
    const text = [
      HEADER,
      'phone,+447700900123,deny,"chargebacks, twice",2027-01-31T00:00:00Z',
      'phone_prefix,+4477009,allow,"the ""test"" range",',
      'ip,::ffff:198.51.100.7,deny,abuse,',
      'cidr,2001:db8::/32,allow,"office\r\n',
    ].join('\r\n');
    const broken = parseListCsv(text, now);
    expect(broken).toEqual({
      ok: false,
      errors: [{ line: 5, error: 'a quoted field is not closed' }],
      count: 1,
    });
    const result = parseListCsv(text.replace('"office\r\n', 'office,\r\nasn,AS64500,deny,hosting,\r\n'), now);
    expect(result).toEqual({
      ok: true,
      entries: [
        {
          kind: 'phone',
          value: '+447700900123',
          effect: 'deny',
          reason: 'chargebacks, twice',
          expires_at: '2027-01-31T00:00:00.000Z',
        },
        { kind: 'phone_prefix', value: '+4477009', effect: 'allow', reason: 'the "test" range' },
        { kind: 'ip', value: '198.51.100.7', effect: 'deny', reason: 'abuse' },
        { kind: 'cidr', value: '2001:db8::/32', effect: 'allow', reason: 'office' },
        { kind: 'asn', value: 'AS64500', effect: 'deny', reason: 'hosting' },
      ],
    });
  });

  it('names each bad line by its number, the header being line 1', () => {
    const text = [
      HEADER,
      'ip,198.51.100.7,deny,ok,',
      'cidr,198.51.100.1/24,deny,host bits,',
      '',
      'ip,198.51.100.8,deny,past,2026-01-01T00:00:00Z',
      'ip,198.51.100.7,allow,again,',
      'ip,"198.51.100.9",deny,x"y,',
      'ip,198.51.100.10,deny,too few',
      'ip,"198.51.100.11"x,deny,r,',
      'ip,198.51.100.12,deny,"a multi',
      'line reason",',
      'phone,+447700900123,deny,after,',
    ].join('\n');
    const result = parseListCsv(text, now);
    expect(result).toEqual({
      ok: false,
      count: 7,
      errors: [
        { line: 3, error: expect.stringMatching(/host bits set: the network is 198\.51\.100\.0\/24/) },
        { line: 5, error: 'expires_at: must be in the future' },
        { line: 6, error: 'duplicate of line 2: one entry per kind and value' },
        { line: 7, error: 'a quote in a field that is not quoted' },
        { line: 8, error: expect.stringMatching(/^expected 5 fields .*found 4$/) },
        { line: 9, error: 'a closing quote must be followed by a comma or the end of the line' },
        { line: 10, error: expect.stringMatching(/^reason: must not contain control/) },
      ],
    });
  });

  it.each([
    ['', 'empty'],
    ['kind,value,effect,reason\nip,198.51.100.7,deny,r', 'a column short'],
    ['Kind,Value,Effect,Reason,Expires_at\n', 'in other case'],
    ['ip,198.51.100.7,deny,r,\n', 'missing'],
  ])('refuses a header that is %s', (text) => {
    const result = parseListCsv(text, now);
    expect(result).toMatchObject({
      ok: false,
      count: 1,
      errors: [{ line: 1, error: expect.stringMatching(/^the first line must be/) }],
    });
  });

  it('takes a byte order mark and no line at all after the header', () => {
    expect(parseListCsv(`\ufeff${HEADER}\r\n`, now)).toEqual({ ok: true, entries: [] });
  });

  it('applies 100,000 lines whole, and refuses them whole for one bad line, naming the first hundred', () => {
    const lines = goodLines(MAX_LIST_ENTRIES);
    const good = parseListCsv([HEADER, ...lines].join('\n'), now);
    expect(good.ok && good.entries.length).toBe(MAX_LIST_ENTRIES);

    const oneBad = [...lines];
    oneBad[54_320] = 'ip,10.0.0.256,deny,typo,';
    const refused = parseListCsv([HEADER, ...oneBad].join('\n'), now);
    expect(refused).toEqual({
      ok: false,
      count: 1,
      errors: [{ line: 54_322, error: expect.stringMatching(/not a dotted-quad/) }],
    });
    expect(refused).not.toHaveProperty('entries');

    const manyBad = lines.map((l, i) => (i % 1000 === 999 ? l.replace(/,(allow|deny),/, ',block,') : l));
    const report = parseListCsv([HEADER, ...manyBad].join('\n'), now);
    expect(report.ok).toBe(false);
    if (report.ok) return;
    expect(report.count).toBe(100);
    expect(report.errors).toHaveLength(100);
    const worse = parseListCsv([HEADER, ...lines.map((l, i) => (i % 500 === 0 ? 'x' : l))].join('\n'), now);
    expect(!worse.ok && [worse.count, worse.errors.length, worse.errors[100 - 1]!.line]).toEqual([
      200, 100, 49_502,
    ]);
  }, 60_000);

  it('reads a hostile 10 MB upload in time proportional to its size: no commas, or one line of fields', () => {
    // Before the comma search was bounded by the line, each of these cost the square of its size
    // (hours); linear, each takes well under a second.
    const noCommas = parseListCsv(`${HEADER}\n${'x\n'.repeat(5_000_000)}`, now);
    expect(!noCommas.ok && noCommas.count).toBe(5_000_000);
    const oneLine = parseListCsv(`${HEADER}\n${','.repeat(10_000_000)}`, now);
    expect(!oneLine.ok && oneLine.count).toBe(1);
  }, 20_000);

  it('refuses more than MAX_LIST_ENTRIES entries', () => {
    const lines = goodLines(MAX_LIST_ENTRIES + 2);
    const result = parseListCsv([HEADER, ...lines].join('\n'), now);
    expect(result).toEqual({
      ok: false,
      count: 2,
      errors: [
        { line: MAX_LIST_ENTRIES + 2, error: `more than ${MAX_LIST_ENTRIES} entries` },
        { line: MAX_LIST_ENTRIES + 3, error: `more than ${MAX_LIST_ENTRIES} entries` },
      ],
    });
  }, 60_000);
});

describe('listCsv', () => {
  const entries: ListEntry[] = [
    {
      kind: 'cidr',
      value: '2001:db8::/32',
      effect: 'allow',
      reason: 'office, "HQ"',
      added_by: 'user:ana@example.com',
      added_at: '2026-11-30T10:00:00.000Z',
    },
    {
      kind: 'phone',
      value: '+447700900123',
      effect: 'deny',
      reason: '=HYPERLINK("http://x")',
      expires_at: '2027-01-31T00:00:00.000Z',
      added_by: 'key:k_1',
      added_at: '2026-11-30T10:00:00.000Z',
    },
    {
      kind: 'asn',
      value: 'AS64500',
      effect: 'deny',
      reason: "'quoted",
      added_by: 'operator:ops',
      added_at: '2026-11-30T10:00:00.000Z',
    },
  ];

  it('writes a file an upload reads back to the same entries', () => {
    const text = listCsv(entries);
    expect(text.split('\r\n')[0]).toBe(`${HEADER},added_by,added_at`);
    const result = parseListCsv(text, now);
    expect(result).toEqual({
      ok: true,
      entries: entries.map(({ added_by: _by, added_at: _at, ...e }) => e),
    });
  });

  it('keeps a spreadsheet from running a reason as a formula', () => {
    const line = listCsv(entries).split('\r\n')[2];
    expect(line).toBe(
      `phone,+447700900123,deny,"'=HYPERLINK(""http://x"")",2027-01-31T00:00:00.000Z,key:k_1,2026-11-30T10:00:00.000Z`,
    );
  });
});

describe('parseListCsvCooperative', () => {
  /**
   * The longest stall of the loop while `work` runs: of each interval between two runs of a 1 ms
   * ticker, the CPU time this thread spent in it. Unit files run in parallel, so the wall-clock
   * gap would count the time the machine gave to the others as well.
   */
  async function longestStall(work: () => Promise<unknown>): Promise<number> {
    const cpuMs = () => {
      const { user, system } = process.threadCpuUsage();
      return (user + system) / 1000;
    };
    let last = cpuMs();
    let longest = 0;
    let ticked = () => {};
    const ticker = setInterval(() => {
      const at = cpuMs();
      longest = Math.max(longest, at - last);
      last = at;
      ticked();
    }, 1);
    try {
      await work();
      await new Promise<void>((resolve) => (ticked = resolve));
    } finally {
      clearInterval(ticker);
    }
    return longest;
  }

  it('gives exactly what parseListCsv gives on 100,000 lines, good or bad, with no long stall', async () => {
    const lines = goodLines(MAX_LIST_ENTRIES);
    const oneBad = lines.map((l, i) => (i === 54_320 ? 'ip,10.0.0.256,deny,typo,' : l));
    const files = [
      lines,
      oneBad,
      lines.map((l, i) => (i % 500 === 0 ? 'x' : l)),
      goodLines(MAX_LIST_ENTRIES + 2),
    ].map((ls) => [HEADER, ...ls].join('\n'));
    for (const text of files) {
      let result: unknown;
      const stall = await longestStall(async () => (result = await parseListCsvCooperative(text, now)));
      console.info(`parseListCsvCooperative: longest stall ${stall.toFixed(1)} ms`);
      expect(result).toEqual(parseListCsv(text, now));
      // One go is 600-1,100 ms. What is left is mostly young-generation collections of the
      // entries being kept (20-45 ms on a loaded 2-core machine), not the parse.
      expect(stall).toBeLessThan(60);
    }
  }, 120_000);
});
