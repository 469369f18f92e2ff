import { describe, expect, it } from 'vitest';
import { clusterStatements } from './cluster-ddl.ts';
import { loadMigrations } from './migrate.ts';

const t = { cluster: 'frs', database: 'd' };

describe('clusterStatements', () => {
  it('makes a table Replicated behind a Distributed one sharded by its id, without column comments', () => {
    const [local, dist] = clusterStatements(
      `CREATE TABLE IF NOT EXISTS d.scored_subjects
(
    org_id String COMMENT 'the org''s id, \\'quoted\\'',
    subject String COMMENT 'x'
)
ENGINE = ReplacingMergeTree(keep)
ORDER BY (org_id, subject)`,
      t,
    );
    expect(local).toBe(`CREATE TABLE IF NOT EXISTS d.scored_subjects_local ON CLUSTER frs
(
    org_id String,
    subject String
)
ENGINE = ReplicatedReplacingMergeTree('/clickhouse/tables/{shard}/d/scored_subjects_local', '{replica}', keep)
ORDER BY (org_id, subject)`);
    expect(dist).toBe(
      'CREATE TABLE IF NOT EXISTS d.scored_subjects ON CLUSTER frs AS d.scored_subjects_local\n' +
        'ENGINE = Distributed(frs, d, scored_subjects_local, cityHash64(org_id, subject))',
    );
  });

  it('alters the local table and rebuilds the Distributed one over it; a TTL only on the local table', () => {
    expect(clusterStatements(`ALTER TABLE d.scores\n    ADD COLUMN raw_risk Float64 COMMENT 'r'`, t)).toEqual(
      [
        'ALTER TABLE d.scores_local ON CLUSTER frs ADD COLUMN raw_risk Float64',
        'DROP TABLE IF EXISTS d.scores ON CLUSTER frs',
        expect.stringMatching(/^CREATE TABLE IF NOT EXISTS d.scores ON CLUSTER frs AS d.scores_local\n/),
      ],
    );
    expect(clusterStatements('ALTER TABLE d.scores MODIFY TTL scored_at + INTERVAL 13 MONTH', t)).toEqual([
      'ALTER TABLE d.scores_local ON CLUSTER frs MODIFY TTL scored_at + INTERVAL 13 MONTH',
    ]);
  });

  it('refuses what it has no cluster form for, rather than running it on one node', () => {
    expect(() =>
      clusterStatements('CREATE TABLE IF NOT EXISTS d.new (a UInt8) ENGINE = MergeTree ORDER BY a', t),
    ).toThrow(/no sharding key for table new/);
    expect(() => clusterStatements('OPTIMIZE TABLE d.scores FINAL', t)).toThrow(/no cluster form/);
  });

  it('has a cluster form for every migration', async () => {
    for (const m of await loadMigrations('d'))
      for (const s of m.statements) expect(clusterStatements(s.sql, t).length).toBeGreaterThan(0);
  });
});
