/**
 * Which stage of a scoring request a CPU-profile frame belongs to (loadtest/profile-stages.ts).
 * A sample's stage is decided by its call stack: first the `enclosing` rules against every frame
 * (work done on behalf of the challenger is the challenger's, whatever engine code it runs), then
 * the innermost frame matching any other rule. So zod's parsing under validation.ts is validation,
 * while ioredis or kafkajs code is the I/O clients' even when the controls or the publisher called
 * it, and Node's own code (a socket write, the HTTP parser, events) is Node's whoever called it. `line` rules split one function's own time by source line (JSON.stringify is a builtin and
 * has no frame of its own: its time is its caller's, on the line that calls it).
 */
export interface StageRule {
  stage: string;
  /** Matched against the frame's script URL (file:///…/services/api/auth.ts, node:net, …). */
  url: RegExp;
  /** Matched against the function name, when given. */
  fn?: RegExp;
  /** Only the function's own time on the line containing this text (positionTicks). */
  line?: string;
  /** Decides the stage wherever on the stack the frame is, before innermost matching. */
  enclosing?: boolean;
}

const project = (path: string) => new RegExp(`/${path.replace(/[.]/g, '\\.')}`);
const pkg = (name: string) => new RegExp(`/node_modules/${name}/`);

export const STAGE_RULES: StageRule[] = [
  { stage: 'challenger', url: project('services/api/scorer.ts'), fn: /^scoreChallenger$/, enclosing: true },
  {
    stage: 'response serialization',
    url: project('services/api/scorer.ts'),
    line: 'JSON.stringify(response)',
  },
  { stage: 'validation (body read, JSON parse, schema)', url: project('services/api/http/json-body.ts') },
  { stage: 'validation (body read, JSON parse, schema)', url: project('services/api/score-request.ts') },
  { stage: 'validation (body read, JSON parse, schema)', url: project('shared/contract/') },
  { stage: 'authentication', url: project('services/api/auth.ts') },
  { stage: 'authentication', url: project('services/api/key-usage.ts') },
  { stage: 'authentication', url: project('shared/sha256.ts') },
  { stage: 'controls (rate, credits, idempotency; caller budget)', url: project('services/api/controls/') },
  {
    stage: 'controls (rate, credits, idempotency; caller budget)',
    url: project('services/api/http/caller-budget.ts'),
  },
  { stage: 'controls (rate, credits, idempotency; caller budget)', url: project('shared/second-window.ts') },
  { stage: 'evidence (resolution, capabilities, ledger lookup)', url: project('shared/scoring/evidence.ts') },
  { stage: 'evidence (resolution, capabilities, ledger lookup)', url: project('shared/resolution/') },
  { stage: 'evidence (resolution, capabilities, ledger lookup)', url: project('shared/capabilities/') },
  { stage: 'evidence (resolution, capabilities, ledger lookup)', url: project('services/api/capabilities/') },
  { stage: 'evidence (resolution, capabilities, ledger lookup)', url: pkg('libphonenumber-js') },
  { stage: 'evidence (resolution, capabilities, ledger lookup)', url: pkg('ipaddr.js') },
  {
    stage: 'evidence (resolution, capabilities, ledger lookup)',
    url: project('services/api/scorer.ts'),
    fn: /^(sources|reputation)$/,
  },
  { stage: 'scoring (engine, shaping)', url: project('shared/scoring/') },
  { stage: 'scoring (engine, shaping)', url: project('services/api/scorer.ts') },
  { stage: 'scoring (engine, shaping)', url: project('shared/ids.ts') },
  { stage: 'audit encoding', url: project('shared/audit/record.ts') },
  { stage: 'explain copy', url: project('shared/audit/explain-cache.ts') },
  { stage: 'recent-score index (for outcomes)', url: project('services/api/recent-scores.ts') },
  { stage: 'publisher (Kafka batches, gzip, journal race)', url: project('services/api/audit-') },
  {
    stage: 'publisher (Kafka batches, gzip, journal race)',
    url: project('services/api/sticky-partitioner.ts'),
  },
  { stage: 'publisher (Kafka batches, gzip, journal race)', url: project('shared/clients/kafka.ts') },
  { stage: 'metrics and logging', url: project('services/api/metrics.ts') },
  { stage: 'metrics and logging', url: project('services/api/http/request-id.ts') },
  { stage: 'metrics and logging', url: project('shared/logger.ts') },
  { stage: 'metrics and logging', url: pkg('prom-client') },
  { stage: 'metrics and logging', url: pkg('pino') },
  { stage: 'route and error handling (routes/, http/, app.ts)', url: project('services/api/') },
  { stage: 'I/O clients: ioredis', url: pkg('ioredis') },
  { stage: 'I/O clients: ioredis', url: pkg('@ioredis') },
  { stage: 'I/O clients: ioredis', url: pkg('redis-parser') },
  { stage: 'I/O clients: ioredis', url: pkg('denque') },
  { stage: 'I/O clients: ioredis', url: pkg('cluster-key-slot') },
  { stage: 'I/O clients: kafkajs', url: pkg('kafkajs') },
  { stage: 'I/O clients: express and its router', url: pkg('express') },
  { stage: 'I/O clients: express and its router', url: pkg('router') },
  {
    stage: 'I/O clients: express and its router',
    url: /\/node_modules\/(send|finalhandler|on-finished|content-type|type-is|mime-types|debug|parseurl|path-to-regexp|statuses|http-errors|depd|vary|accepts|negotiator|encodeurl|escape-html|qs|fresh|range-parser|etag|cookie|cookie-signature|proxy-addr|forwarded|merge-descriptors|utils-merge)\//,
  },
  { stage: 'I/O clients: opossum (breakers)', url: pkg('opossum') },
  // Node's JavaScript (node:…) and native frames without a script (a writev, a crypto digest).
  { stage: 'node internals: HTTP, streams, sockets, timers, events', url: /^(node:|$)/ },
];

/** Samples no rule claims, by what their stack holds. */
export const GC_STAGE = 'node internals: GC';
export const NODE_STAGE = 'node internals: HTTP, streams, sockets, timers, events';
export const OTHER_STAGE = 'other';
