import { describe, expect, it } from 'vitest';
import { clusterSteps, singleSteps } from './cluster-ddl.ts';
import { loadMigrations } from './migrate.ts';

const t = { cluster: 'frs', database: 'd' };

describe('clusterSteps', () => {
  it('makes a table Replicated behind a Distributed one sharded by its id, without column comments', () => {
    const [local, dist] = clusterSteps(
      `CREATE TABLE IF NOT EXISTS d.scored_subjects
(
    org_id String COMMENT 'the org''s id, \\'quoted\\'',
    subject String COMMENT 'x'
)
ENGINE = ReplacingMergeTree(keep)
ORDER BY (org_id, subject)`,
      t,
    );
    expect(local!.sql).toEqual([
      `CREATE TABLE IF NOT EXISTS d.scored_subjects_local
(
    org_id String,
    subject String
)
ENGINE = ReplicatedReplacingMergeTree('/clickhouse/tables/{shard}/d/scored_subjects_local', '{replica}', keep)
ORDER BY (org_id, subject)`,
    ]);
    expect(local!.done).toMatch(/system\.tables WHERE database = 'd' AND name = 'scored_subjects_local'/);
    expect(dist!.sql).toEqual([
      'DROP TABLE IF EXISTS d.scored_subjects',
      'CREATE TABLE IF NOT EXISTS d.scored_subjects AS d.scored_subjects_local\n' +
        'ENGINE = Distributed(frs, d, scored_subjects_local, cityHash64(org_id, subject))',
    ]);
    // Done only when the Distributed table has every column of the local one.
    expect(dist!.done).toMatch(/table = 'scored_subjects_local' AND name NOT IN/);
  });

  it('never runs ON CLUSTER: each host is asked for itself', async () => {
    for (const m of await loadMigrations('d'))
      for (const s of m.statements)
        for (const step of clusterSteps(s.sql, t)) expect(step.sql.join('\n')).not.toMatch(/ON CLUSTER/);
  });

  it('adds a column on one replica per group, checked in system.columns, then rebuilds the Distributed table', () => {
    const [add, dist] = clusterSteps(`ALTER TABLE d.scores\n    ADD COLUMN raw_risk Float64 COMMENT 'r'`, t);
    expect(add).toEqual({
      what: 'column scores_local.raw_risk',
      sql: ['ALTER TABLE d.scores_local ADD COLUMN raw_risk Float64'],
      done: expect.stringMatching(/system\.columns .* table = 'scores_local' AND name = 'raw_risk'/),
      replicated: { database: 'd', table: 'scores_local' },
    });
    expect(dist!.what).toBe('Distributed table scores');
    // A TTL only on the local table, and with nothing to check it is run once per replica group.
    expect(clusterSteps('ALTER TABLE d.scores MODIFY TTL scored_at + INTERVAL 13 MONTH', t)).toEqual([
      {
        what: 'TTL of scores_local',
        sql: ['ALTER TABLE d.scores_local MODIFY TTL scored_at + INTERVAL 13 MONTH'],
        replicated: { database: 'd', table: 'scores_local' },
      },
    ]);
  });

  it('refuses what it has no cluster form or check for, rather than running it on one node', () => {
    expect(() =>
      clusterSteps('CREATE TABLE IF NOT EXISTS d.new (a UInt8) ENGINE = MergeTree ORDER BY a', t),
    ).toThrow(/no sharding key for table new/);
    expect(() => clusterSteps('OPTIMIZE TABLE d.scores FINAL', t)).toThrow(/no cluster form/);
    expect(() => clusterSteps('ALTER TABLE d.scores DROP COLUMN x', t)).toThrow(/no check for this ALTER/);
  });

  it('has a cluster form and a single-server form with a check for every migration', async () => {
    for (const m of await loadMigrations('d'))
      for (const s of m.statements) {
        expect(clusterSteps(s.sql, t).length).toBeGreaterThan(0);
        const [single] = singleSteps(s.sql);
        expect(single!.sql).toEqual([s.sql]);
        // Only a TTL goes without a check (repeating it changes nothing).
        if (!single!.done) expect(s.sql).toMatch(/MODIFY TTL/);
      }
  });
});
