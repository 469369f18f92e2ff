/**
 * An API node built from config: every client it creates is registered in one `Resources`
 * registry and closed exactly once, in phases (stop accepting and drain requests, flush the audit
 * buffer, then the clients), within a deadline. `main.ts` only wires signals to `start`/`stop`;
 * tests build nodes in-process on port 0.
 */
import { once } from 'node:events';
import type { Server } from 'node:http';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { Counter, Gauge } from 'prom-client';
import { ScoreHistory } from '../../shared/audit/history.ts';
import { capabilityModels } from '../../shared/capabilities/model.ts';
import { configuredCapabilities } from '../../shared/capabilities/registry.ts';
import { ledgerVotesKey } from '../../shared/capabilities/ledger-votes.ts';
import { SubjectKeys } from '../../shared/capabilities/subject-key.ts';
import { PhoneLookup } from './capabilities/phone-lookup.ts';
import { providerClient } from './capabilities/phone-provider.ts';
import { SnapshotStore } from '../../shared/capabilities/store.ts';
import { prepareOperatorSpace } from '../../shared/capabilities/ip-tor-exit/operator-space.ts';
import { CorrectionStore } from '../../shared/capabilities/corrections.ts';
import { clusterReplicas, createClickHouse } from '../../shared/clients/clickhouse.ts';
import { createKafka, kafkaSecurity, OUTCOMES_TOPIC } from '../../shared/clients/kafka.ts';
import { createRedis, durableRedis, type RedisClient, type RedisTarget } from '../../shared/clients/redis.ts';
import type { Config } from '../../shared/config.ts';
import { createTimedServer } from '../../shared/http-server.ts';
import { Resources, type Service } from '../../shared/lifecycle.ts';
import type { Logger } from '../../shared/logger.ts';
import { OrgStore } from '../../shared/orgs/store.ts';
import { OrgListStore } from '../../shared/orgs/lists-store.ts';
import { OrgLists } from './org-lists.ts';
import { buildApp, type AppDeps } from './app.ts';
import { deploymentTopology } from './topology.ts';
import { AuditJournal } from './audit-journal.ts';
import { AuditPublisher, type DurableLane } from './audit-publisher.ts';
import { Authenticator } from './auth.ts';
import { capabilityHealth, phoneLookupHealth } from './capabilities/health.ts';
import { LedgerLookup } from './capabilities/ledger-lookup.ts';
import { SnapshotCache } from './capabilities/snapshot-cache.ts';
import { Controls, NO_CONTROLS, type AdmissionControl } from './controls/controls.ts';
import { CreditJournal } from './controls/credit-journal.ts';
import { ExplainCache } from '../../shared/audit/explain-cache.ts';
import { HistoryLookups } from '../../shared/audit/history-lookups.ts';
import { CallerBudget } from './http/caller-budget.ts';
import { logClientErrors } from '../../shared/http-client-errors.ts';
import { KeyUsage } from './key-usage.ts';
import { drainHttpServer } from './http/drain.ts';
import { ApiMetrics } from './metrics.ts';
import { OutcomeRecorder } from './outcome-recorder.ts';
import { RecentScores } from './recent-scores.ts';
import { registerRedisMemory } from './redis-memory.ts';
import { Scorer } from './scorer.ts';
import { warmUpScorePath } from './warm-up.ts';
import { retry } from '../../shared/retry.ts';
import type { Express } from 'express';
import { VersionFollower } from './version-follower.ts';

/**
 * How long requests already received may take to be answered once stopping begins; the audit
 * buffer's flush (5 s at most) follows, well inside an orchestrator's usual 30 s grace.
 */
const DRAIN_GRACE_MS = 10_000;
/** The whole stop, whatever is unreachable: drain, flush, close. */
export const API_STOP_DEADLINE_MS = 20_000;

export interface ApiNodeHandle extends Service {
  /** The bound port (useful with PORT=0) and base URL, known once `start` resolved. */
  readonly port: number;
  readonly url: string;
}

export interface ApiNodeOptions {
  /** The clock of rate windows and credit periods; tests inject one so a burst falls in one window. */
  now?: () => number;
}

export function createApiNode(cfg: Config, baseLog: Logger, opts: ApiNodeOptions = {}): ApiNodeHandle {
  const nodeId = cfg.NODE_ID ?? `${hostname()}:${process.pid}`;
  const log = baseLog.child({ node: nodeId });
  const resources = new Resources();
  let server: Server | undefined;
  let stopping = false;

  const handle: ApiNodeHandle = {
    async start() {
      const node: NodeParts = { cfg, log, nodeId, resources, opts, stopping: () => stopping };
      server = await listen(node, await buildNodeApp(node));
      log.info({ port: handle.port }, 'api listening');
    },
    async stop() {
      stopping = true;
      return resources.closeAll(log, Date.now() + API_STOP_DEADLINE_MS);
    },
    get port() {
      const addr = server?.address();
      if (!addr || typeof addr === 'string') throw new Error('api node is not listening');
      return addr.port;
    },
    get url() {
      return `http://127.0.0.1:${handle.port}`;
    },
  };
  return handle;
}

/** What every part of a node is built with; whatever it creates is registered in `resources`. */
interface NodeParts {
  cfg: Config;
  log: Logger;
  nodeId: string;
  resources: Resources;
  opts: ApiNodeOptions;
  stopping: () => boolean;
}

/** Builds every client, worker and store of the node (each registered to be closed) and its app. */
async function buildNodeApp(node: NodeParts): Promise<Express> {
  const { cfg, log, nodeId, resources } = node;
  const clients = redisClients(node);
  const ch = resources.add('clients', 'clickhouse', createClickHouse(cfg.CLICKHOUSE_URL), (c) => c.close());
  // The metrics are built once the publishers they read exist; the scores publisher reports to
  // them from then on.
  const late: { metrics?: ApiMetrics } = {};
  const { audit, outcomesAudit } = await auditPublishers(node, (lane, ms) =>
    late.metrics?.auditDurable(lane, ms),
  );
  const explainCache = new ExplainCache(clients.explain, log, undefined, cfg.EXPLAIN_COPIES_PER_ORG_S);
  // What an outcome by score_id needs of every fresh score, apart from the capped explain copies.
  const recentScores = new RecentScores(clients.explain, log);
  const { capabilities, ledger, snapshots, snapshotsLoaded, versions } = capabilityReaders(node, clients);
  const health = () => capabilityHealth(capabilities, snapshots);
  const metrics = (late.metrics = new ApiMetrics({
    capabilities: health,
    auditDepth: () => audit.depth,
    audit: () => audit.counters(),
    publisherStates: () => ({ scores: audit.state, outcomes: outcomesAudit.state }),
    // Skipped copies: the cache server down or stalled, or the organisation over its share.
    explainCopiesSkipped: () => explainCache.failed + explainCache.overShare,
    recentScoresSkipped: () => recentScores.skipped,
  }));
  registerRedisMemory(metrics.registry, { durable: clients.bg, explain: clients.explain });
  const auth = authentication(node, clients);
  const lists = orgLists(node, clients, metrics);
  const phoneLookup = phoneLookupOf(node, clients.hot, metrics);
  const scorerDeps = {
    nodeId,
    snapshots,
    capabilities,
    ledger,
    versions: () => versions.current,
    ...(phoneLookup ? { phoneLookup } : {}),
    lists,
  };
  // No cold node in rotation: /readyz waits until the score path ran over the loaded snapshots.
  const warmedUp = warmUp(
    log,
    snapshotsLoaded,
    new Scorer({ ...scorerDeps, publish: async () => undefined }),
  );
  const history = new ScoreHistory(ch, cfg.CLICKHOUSE_DATABASE, clusterReplicas(cfg, resources));
  // Explain and outcome reports share the bound on ClickHouse lookups of cache misses.
  const lookups = new HistoryLookups(
    cfg.EXPLAIN_LOOKUPS_MAX,
    Math.max(1, Math.ceil(cfg.EXPLAIN_LOOKUPS_MAX / 2)),
  );
  return appOf(cfg, {
    log,
    auth,
    budget: new CallerBudget({
      addressErrorsPerSecond: cfg.ADDRESS_ERRORS_PER_S,
      nodeCount: cfg.CONTROLS_NODE_COUNT,
    }),
    lookups,
    controls: await admissionControls(node, clients.hot, metrics),
    scorer: new Scorer({
      ...scorerDeps,
      remember: (orgId, scoreId, entry) => recentScores.put(orgId, scoreId, entry),
      publish: (scoreId, recordJson, orgId) => {
        explainCache.put(orgId, scoreId, recordJson);
        return audit.publish(scoreId, recordJson);
      },
    }),
    history,
    recent: explainCache,
    // /v1/lists: on the background connection, which waits out a blip rather than failing fast.
    listStore: new OrgListStore(clients.bg),
    outcomes: new OutcomeRecorder({
      nodeId,
      publish: (outcomeId, recordJson) => outcomesAudit.publish(outcomeId, recordJson),
      history,
      lookups,
      index: recentScores,
      copies: explainCache,
    }),
    ready: () => auth.ready && snapshots.ready && lists.ready && warmedUp(),
    capabilities: health,
    phoneLookup: () => phoneLookupHealth(phoneLookup),
    topology: deploymentTopology(cfg, clients.hot),
    metrics,
    versions: () => versions.current,
  });
}

/**
 * The live phone lookup when the operator configured a provider with its credentials (else none:
 * nothing is ever called). On the hot connection: its cache read and cap count are fail-fast.
 */
function phoneLookupOf({ cfg, log, resources }: NodeParts, redis: RedisClient, metrics: ApiMetrics) {
  const provider = providerClient(cfg);
  if (!provider) return undefined;
  return resources.add(
    'workers',
    'phone lookup breaker',
    new PhoneLookup({
      redis,
      prefix: cfg.CAPABILITY_KEY_PREFIX,
      subjectKeys: SubjectKeys.fromConfig(cfg),
      provider,
      ceilingMs: cfg.PHONE_LOOKUP_TIMEOUT_MS,
      resetMs: cfg.PHONE_LOOKUP_BREAKER_RESET_MS,
      registers: [metrics.registry],
      log,
    }),
    (p) => p.shutdown(),
  );
}

/** The app, with the metrics token when one is configured. */
function appOf(cfg: Config, deps: Omit<AppDeps, 'metricsToken'>): Express {
  return buildApp({ ...deps, ...(cfg.METRICS_TOKEN ? { metricsToken: cfg.METRICS_TOKEN } : {}) });
}

type RedisClients = ReturnType<typeof redisClients>;

/**
 * The node's Redis connections. The hot path (key reads, the controls script) fails fast and
 * degrades; background work (the key replica, pub/sub) may wait and retry. One server, a Sentinel
 * group or a cluster, as configured (docs/scale-out.md).
 */
function redisClients({ cfg, log, nodeId, resources }: NodeParts) {
  const client = (name: string, target: RedisTarget, failFast: boolean) =>
    resources.add(
      'clients',
      name,
      createRedis(target, { connectionName: `frs-api-${name}-${nodeId}`, failFast, log }),
      (r) => r.disconnect(),
    );
  const durable = durableRedis(cfg);
  const hot = client('hot', durable, true);
  return {
    hot,
    bg: client('bg', durable, false),
    sub: client('sub', durable, false),
    // Snapshots load on connections of their own: a 20 MB read must not queue behind or ahead of
    // the hot path's commands, and a subscribed connection can do nothing else.
    snapshots: client('snap', durable, false),
    snapshotSub: client('snapsub', durable, false),
    // The organisations' lists load on a connection of their own too (100,000 entries in slices),
    // and follow their announcements on another.
    lists: client('lists', durable, false),
    listsSub: client('listsub', durable, false),
    // Explain copies and the recent-score index go to a cache server of their own: disposable,
    // memory-bounded, never persisted.
    explain: resources.add(
      'clients',
      'explain',
      createRedis(cfg.EXPLAIN_REDIS_URL, {
        connectionName: `frs-api-explain-${nodeId}`,
        failFast: true,
        log,
      }),
      (r) => r.disconnect(),
    ),
    // The live ledger: fail fast, so an outage costs a request at most the breaker's timeout. On
    // the main Redis it shares the hot connection, whose auto-pipeline then sends a request's
    // lookup and controls script in one write (a socket write per request less).
    ledger: cfg.LEDGER_REDIS_URL ? client('ledger', { url: cfg.LEDGER_REDIS_URL }, true) : hot,
  };
}

/**
 * One journal directory per node, stable across restarts (NODE_ID, else the port), so a
 * restarted node replays what it spilled before.
 */
const nodeDirOf = (cfg: Config) => (cfg.NODE_ID ?? `port-${cfg.PORT}`).replace(/[^\w.-]/g, '_');

/** The publishers of scores and of outcomes, started (their journals replayed). */
async function auditPublishers(
  { cfg, log, nodeId, resources }: NodeParts,
  onDurable: (lane: DurableLane, ms: number) => void,
) {
  const kafka = createKafka(cfg.KAFKA_BROKERS, `frs-api-${nodeId}`, kafkaSecurity(cfg));
  const nodeDir = nodeDirOf(cfg);
  // Small segments: a replayed segment is read and parsed in one go on the event loop, so its
  // size bounds the pause a replay can add to requests: a 4 MiB segment took 6-55 ms on a loaded
  // dev machine, so 64 MiB would stall requests for tenths of a second; 1 MiB is ~330 records.
  const audit = resources.add(
    'drain',
    'audit publisher',
    new AuditPublisher(
      kafka,
      new AuditJournal({
        dir: join(cfg.AUDIT_JOURNAL_DIR, nodeDir),
        segmentBytes: 1 << 20,
        maxBytes: 2 * 1024 ** 3,
      }),
      log,
      { onDurable },
    ),
    (a) => a.close(),
  );
  // Outcomes go through a publisher of their own (same guarantees), journalling under outcomes/.
  const outcomesAudit = resources.add(
    'drain',
    'outcome publisher',
    new AuditPublisher(
      kafka,
      new AuditJournal({
        dir: join(cfg.AUDIT_JOURNAL_DIR, 'outcomes', nodeDir),
        segmentBytes: 1 << 20,
        maxBytes: 256 * 1024 ** 2,
      }),
      log,
      { topic: OUTCOMES_TOPIC },
    ),
    (a) => a.close(),
  );
  await Promise.all([audit.start(), outcomesAudit.start()]);
  return { audit, outcomesAudit };
}

/** The capabilities the node serves: snapshots, the live ledger behind its breaker, score versions. */
function capabilityReaders({ cfg, log, resources }: NodeParts, clients: RedisClients) {
  const store = new SnapshotStore(clients.snapshots, cfg.CAPABILITY_KEY_PREFIX, clients.ledger);
  const ledger = resources.add(
    'workers',
    'ledger breaker',
    new LedgerLookup({
      redis: clients.ledger,
      key: (version) => store.ledgerKey(version),
      votesKey: (subjectKey) => ledgerVotesKey(cfg.CAPABILITY_KEY_PREFIX, subjectKey),
      subjectKeys: SubjectKeys.fromConfig(cfg),
      // The version the snapshot cache (below) last learned.
      version: () => snapshots.current.ledgerVersion,
      timeoutMs: cfg.LEDGER_TIMEOUT_MS,
      resetMs: cfg.LEDGER_BREAKER_RESET_MS,
    }),
    (l) => l.shutdown(),
  );
  const capabilities = capabilityModels(configuredCapabilities(cfg), { breaker: () => ledger.state });
  const velocityNaming = SubjectKeys.fromConfig(cfg);
  const snapshots = resources.add(
    'workers',
    'snapshot cache',
    new SnapshotCache({
      store,
      subscriber: clients.snapshotSub,
      capabilities,
      corrections: new CorrectionStore(clients.snapshots, cfg.CAPABILITY_KEY_PREFIX),
      pollMs: cfg.CAPABILITY_POLL_S * 1000,
      log,
      // The Tor-operator space of a new exit list or routing table, built before either is served.
      prepare: async ({ data }) => {
        if (data.ip_tor_exit) await prepareOperatorSpace(data.ip_tor_exit, data.ip_network_type?.networks);
        // Velocity's table names subjects by the ledger's keyed digest: the node's secret reads it.
        if (data.network_velocity) data.network_velocity.naming = velocityNaming;
      },
    }),
    (s) => s.stop(),
  );
  // Not awaited: the node listens (and answers /livez) while loading; /readyz waits for it.
  const snapshotsLoaded = snapshots.start();
  // Default and challenger versions follow the admin CLI; the snapshot subscriber filters channels.
  const versions = resources.add(
    'workers',
    'score version follower',
    new VersionFollower({
      redis: clients.bg,
      subscriber: clients.snapshotSub,
      key: cfg.SCORE_VERSION_KEY,
      ...(cfg.SCORE_CHALLENGER ? { configuredChallenger: cfg.SCORE_CHALLENGER } : {}),
      pollMs: cfg.CAPABILITY_POLL_S * 1000,
      log,
    }),
    (v) => v.stop(),
  );
  void versions.start();
  return { capabilities, ledger, snapshots, snapshotsLoaded, versions };
}

/**
 * Every organisation's allow/deny lists in memory, followed by announcement and poll. Not awaited:
 * /readyz waits for the first load (at most READY_WITHIN_MS, then unloaded lists are degraded).
 */
function orgLists({ log, resources }: NodeParts, clients: RedisClients, metrics: ApiMetrics): OrgLists {
  const lists = resources.add(
    'workers',
    'org lists',
    new OrgLists({
      store: new OrgListStore(clients.lists),
      subscriber: clients.listsSub,
      log,
      registers: [metrics.registry],
    }),
    (l) => l.stop(),
  );
  void lists.start();
  return lists;
}

/** API keys from the in-memory replica, and their last-used times written off the request path. */
function authentication({ cfg, log, resources, stopping }: NodeParts, clients: RedisClients): Authenticator {
  // Keys' last-used times, written at most once per KEY_USAGE_FLUSH_S.
  const keyUsage = resources.add('drain', 'key usage', new KeyUsage(clients.bg, log), (u) => u.stop());
  keyUsage.start(cfg.KEY_USAGE_FLUSH_S * 1000);
  const auth = new Authenticator(
    { store: new OrgStore(clients.hot), replicaStore: new OrgStore(clients.bg) },
    log,
    {
      onUse: (p) => keyUsage.touch(p.org.org_id, p.keyId),
    },
  );
  // Until the key replica is loaded the node is not ready: it could not tell keys apart if Redis
  // went down. Retried in the background so a node started during an outage becomes ready later.
  void retry(
    async () => {
      await auth.follow(clients.sub);
      return await auth.load();
    },
    {
      firstMs: 1_000,
      keepGoing: () => !stopping(),
      onFailure: (err) => log.warn({ err }, 'api key replica not loaded yet; retrying'),
    },
  );
  return auth;
}

/** Runs the score path once the snapshots are loaded; the answer says whether that happened. */
function warmUp(log: Logger, snapshotsLoaded: Promise<unknown>, scorer: Scorer): () => boolean {
  let warmedUp = false;
  void snapshotsLoaded
    .then(() => warmUpScorePath(scorer))
    .then(
      (w) => log.info(w, 'score path warmed up'),
      (err: unknown) => log.warn({ err }, 'score path warm-up failed'),
    )
    .finally(() => (warmedUp = true));
  return () => warmedUp;
}

/** Rate limits, credits and idempotency (CONTROLS=on), with the credits an earlier run left settled. */
async function admissionControls(
  { cfg, log, resources, opts }: NodeParts,
  redis: RedisClients['hot'],
  metrics: ApiMetrics,
): Promise<AdmissionControl> {
  const unreplicated = new Counter({
    name: 'frs_controls_unreplicated_total',
    help: 'Admissions answered although WAIT did not confirm REDIS_WAIT_REPLICAS replicas held them in time',
    registers: [metrics.registry],
  });
  if (cfg.CONTROLS !== 'on') return NO_CONTROLS;
  // Local admissions (Redis slow or unreachable) on disk before their 200 leaves, per node like
  // the audit journal: a node started again with its NODE_ID settles what it left.
  const creditJournal = resources.add(
    'drain',
    'credit journal',
    new CreditJournal(join(cfg.AUDIT_JOURNAL_DIR, 'credits', nodeDirOf(cfg))),
    (j) => j.close(),
  );
  const leftUnsettled = await creditJournal.open();
  const controls = new Controls({
    journal: creditJournal,
    redis,
    log,
    nodeCount: cfg.CONTROLS_NODE_COUNT,
    idempotencyEntriesPerDay: cfg.IDEMPOTENCY_ENTRIES_PER_DAY,
    now: opts.now,
    waitReplicas: cfg.REDIS_WAIT_REPLICAS,
    waitTimeoutMs: cfg.REDIS_WAIT_TIMEOUT_MS,
    onUnreplicated: () => unreplicated.inc(),
  });
  if (leftUnsettled) await controls.recover(leftUnsettled);
  new Gauge({
    name: 'frs_controls_unsettled_credits',
    help: 'Credits this node billed locally (Redis unreachable or slow) that Redis does not hold yet',
    registers: [metrics.registry],
    collect() {
      this.set(controls.unsettledCredits);
    },
  });
  return controls;
}

async function listen({ cfg, log, resources }: NodeParts, app: Express): Promise<Server> {
  const listening = createTimedServer(cfg, app).listen(cfg.PORT, cfg.HOST);
  logClientErrors(listening, log);
  const server = resources.add('intake', 'http server', listening, (s) => drainHttpServer(s, DRAIN_GRACE_MS));
  await once(listening, 'listening');
  return server;
}
