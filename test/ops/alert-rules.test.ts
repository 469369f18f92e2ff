/**
 * The alert rules and the Grafana dashboard refer to real things: every expression parses as
 * PromQL (Prometheus's own grammar), and every metric it names is exported by the service its
 * `job` matcher scrapes, as read from the /metrics of the three services started here.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { redis } from '../../infra/harness/fixtures.ts';
import { unlinkPrefix } from '../../infra/harness/feed-server.ts';
import { parseExposition } from '../helpers/metrics.ts';
import { freePort, spawnService, waitFor, type Service } from '../../infra/harness/processes.ts';
import { exportedSeries, parsePromQL } from './promql.ts';

const PROMETHEUS = 'infra/ops/prometheus/prometheus.yml';
const ALERTS = 'infra/ops/prometheus/alerts.yml';
const DASHBOARD = 'infra/ops/grafana/dashboards/frs.json';

/** Series Prometheus itself writes for every target; not exported by any service. */
const SCRAPE_SERIES = new Set(['up']);

/** Grafana's interval variables, replaced by a value of the same kind before parsing. */
const GRAFANA_VARS: Record<string, string> = { $__rate_interval: '5m', $__interval: '1m', $__range: '1h' };

interface Rule {
  alert: string;
  expr: string;
}

const rules = (): Rule[] =>
  (parse(readFileSync(ALERTS, 'utf8')) as { groups: { rules: Rule[] }[] }).groups.flatMap((g) => g.rules);

const panelExprs = (): { title: string; expr: string }[] => {
  const dash = JSON.parse(readFileSync(DASHBOARD, 'utf8')) as {
    panels: { title: string; targets?: { expr: string }[] }[];
  };
  return dash.panels.flatMap((p) => (p.targets ?? []).map((t) => ({ title: p.title, expr: t.expr })));
};

const scrapeJobs = (): string[] =>
  (parse(readFileSync(PROMETHEUS, 'utf8')) as { scrape_configs: { job_name: string }[] }).scrape_configs.map(
    (c) => c.job_name,
  );

describe('PromQL checker', () => {
  it('finds syntax errors and the metric names of selectors', () => {
    expect(parsePromQL('rate(foo[5m]').errors).not.toEqual([]);
    expect(parsePromQL('sum(rate(foo{job="a"}[5m])) by (x) > 1 +').errors).not.toEqual([]);
    const ok = parsePromQL(
      'histogram_quantile(0.99, sum by (le) (rate(x_bucket{job="a",s=~"5.."}[5m]))) > y',
    );
    expect(ok.errors).toEqual([]);
    expect(ok.selectors).toEqual([
      { metric: 'x_bucket', equals: { job: 'a' } },
      { metric: 'y', equals: {} },
    ]);
  });
});

describe('alert rules and dashboard against the services', () => {
  // Its own queue and snapshots, where the services' Redis users may go (frs-<name>, frs:cap:<name>).
  const prefix = `frs-rules-it-${process.pid}`;
  const capPrefix = `frs:cap:rules-it-${process.pid}`;
  const services: Service[] = [];
  /** job name of prometheus.yml -> series that service exports. */
  const exported = new Map<string, Set<string>>();

  async function start(job: string, entry: string, portVar: string, env: Record<string, string>) {
    const port = await freePort();
    const svc = spawnService(entry, { ...env, [portVar]: String(port) });
    services.push(svc);
    const url = `http://127.0.0.1:${port}/metrics`;
    const text = await waitFor(
      `${entry} /metrics`,
      async () => {
        if (svc.proc.exitCode !== null) throw new Error(`${entry} exited: ${svc.output()}`);
        const res = await fetch(url);
        return res.ok ? res.text() : undefined;
      },
      90_000,
      250,
    );
    exported.set(job, exportedSeries(parseExposition(text).types));
  }

  beforeAll(async () => {
    // /metrics answers as soon as each process listens; nothing needs to be ready.
    await Promise.all([
      start('frs-api', 'services/api/main.ts', 'PORT', {
        CAPABILITY_KEY_PREFIX: capPrefix,
        NODE_ID: `rules-${randomUUID()}`,
      }),
      start('frs-audit-sink', 'services/audit-sink/main.ts', 'AUDIT_SINK_METRICS_PORT', {
        AUDIT_SINK_GROUP: `frs-test-rules-${randomUUID()}`,
      }),
      start('frs-refresher', 'services/refresher/main.ts', 'REFRESHER_METRICS_PORT', {
        CAPABILITY_KEY_PREFIX: capPrefix,
        BULLMQ_PREFIX: prefix,
      }),
    ]);
  });

  afterAll(async () => {
    await Promise.all(services.map((s) => s.stop('SIGKILL')));
    const r = redis();
    await unlinkPrefix(r, prefix);
    await unlinkPrefix(r, capPrefix);
    r.disconnect();
  });

  it('scrapes a job for every service and nothing else', () => {
    expect(scrapeJobs().sort()).toEqual([...exported.keys()].sort());
  });

  /** Problems of one expression: syntax, unknown jobs, metrics its job's service does not export. */
  function problems(expr: string): string[] {
    const { errors, selectors } = parsePromQL(expr);
    const out = [...errors];
    const all = new Set([...exported.values()].flatMap((s) => [...s]));
    for (const { metric, equals } of selectors) {
      if (!metric) {
        out.push('a selector without a metric name');
        continue;
      }
      if (SCRAPE_SERIES.has(metric)) continue;
      const job = equals.job;
      if (job !== undefined) {
        const series = exported.get(job);
        if (!series) out.push(`job "${job}" is not scraped by ${PROMETHEUS}`);
        else if (!series.has(metric)) out.push(`${metric} is not exported by ${job}`);
      } else if (!all.has(metric)) out.push(`${metric} is not exported by any service`);
    }
    return out;
  }

  it('every alert rule parses and names only exported metrics', () => {
    const found = rules();
    expect(found.length).toBeGreaterThanOrEqual(10);
    const bad = found
      .map((r) => ({ alert: r.alert, problems: problems(r.expr) }))
      .filter((r) => r.problems.length);
    expect(bad).toEqual([]);
  });

  it('every dashboard panel parses and names only exported metrics', () => {
    const exprs = panelExprs();
    expect(exprs.length).toBeGreaterThanOrEqual(15);
    const bad = exprs
      .map(({ title, expr }) => {
        const concrete = expr.replace(/\$__\w+/g, (v) => GRAFANA_VARS[v] ?? v);
        return { title, problems: problems(concrete) };
      })
      .filter((p) => p.problems.length);
    expect(bad).toEqual([]);
  });

  it('the rules cover what an operator pages on', () => {
    const text = rules()
      .map((r) => r.expr)
      .join('\n');
    for (const needed of [
      'status=~"5.."',
      'histogram_quantile(0.99',
      'status="429"',
      'status="402"',
      'frs_capability_status',
      'frs_capability_data_stale',
      'frs_audit_records_spilled_total',
      'frs_audit_records_dropped_total',
      'frs_sink_consumer_lag_records',
      'frs_refresher_consecutive_failures',
    ]) {
      expect(text, needed).toContain(needed);
    }
  });
});
