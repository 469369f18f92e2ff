import { describe, expect, it } from 'vitest';
import {
  ClickHouseRowError,
  CountRow,
  OutcomeSubjectsRow,
  readRows,
  ScoredDayRow,
  StoredScoreRow,
} from './rows.ts';

/** A result set as the client returns it for JSONEachRow: the parsed rows, unchecked. */
const answer = (rows: unknown) => ({ json: async () => rows });

const stored = {
  score_id: 'sc_0195f3a2b4c07000800000000000abcd',
  org_id: 'org_0123456789abcdef',
  scored_at_ms: '1767225600123',
  request_json: '{}',
  response_json: '{}',
  evidence_json: '{}',
};

describe('readRows', () => {
  it('reads UInt64 columns, quoted or not, as numbers', async () => {
    const [row] = await readRows(answer([stored]), StoredScoreRow);
    expect(row!.scored_at_ms).toBe(1_767_225_600_123);
    expect(await readRows(answer([{ n: 7 }, { n: '8' }]), CountRow)).toEqual([{ n: 7 }, { n: 8 }]);
  });

  it('fails at the boundary, naming the shape and the column, when a column is renamed', async () => {
    const { evidence_json: _renamed, ...rest } = stored;
    const read = readRows(answer([stored, { ...rest, evidence: '{}' }]), StoredScoreRow);
    await expect(read).rejects.toThrow(ClickHouseRowError);
    await expect(read).rejects.toThrow(
      /row 1 does not match stored score \(scores\): evidence_json: .*expected string/,
    );
  });

  it('fails on a value of the wrong kind, without writing the value (rows hold personal data)', async () => {
    const row = { org_id: 'org_0123456789abcdef', phone_number: 447400123456, ip_address: '81.2.69.160' };
    const read = readRows(answer([row]), OutcomeSubjectsRow);
    await expect(read).rejects.toThrow(/phone_number/);
    await expect(read).rejects.not.toThrow(/447400123456|81\.2\.69\.160/);
  });

  it('checks the derived columns of a query too', async () => {
    const row = { org_id: 'org_0123456789abcdef', subject: 'ip:81.2.69.160', day: '2026-11-25', first: '17' };
    expect(await readRows(answer([row]), ScoredDayRow)).toEqual([{ ...row, first: 17 }]);
    await expect(readRows(answer([{ ...row, day: '25/11/2026' }]), ScoredDayRow)).rejects.toThrow(/day/);
  });

  it('fails when ClickHouse answers something other than rows', async () => {
    await expect(readRows(answer({ data: [] }), CountRow)).rejects.toThrow(/no rows for count/);
  });
});
