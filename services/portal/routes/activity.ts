import { Router, type Request, type Response } from 'express';
import {
  findExplanation,
  HistoryUnavailableError,
  type ExplainSources,
} from '../../../shared/audit/explain.ts';
import { BANDS } from '../../../shared/vocabulary/score-terms.ts';
import type { OrgStore } from '../../../shared/orgs/store.ts';
import { ACTIVITY_ROWS, type ActivityStore } from '../activity.ts';
import type { SubjectReveal } from '../subject-reveal.ts';
import {
  activityPage,
  activityRows,
  usagePanel,
  type ActivityFilter,
  type Usage,
} from '../views/activity.ts';
import { explainPage } from '../views/explain.ts';
import { messagePage } from '../views/layout.ts';
import { sessionOf } from './guard.ts';

export interface ActivityRouteDeps {
  orgs: OrgStore;
  activity: ActivityStore;
  /** The same lookup as GET /v1/explain: the Redis copy, then ClickHouse history. */
  explain: ExplainSources;
  /** The shown rows' subjects in clear, for "Reveal subjects" (the feed keeps them masked). */
  reveal: Pick<SubjectReveal, 'subjects'>;
}

/** The list count a polling page has seen (`?seq=`), or undefined for the whole list. */
function seqOf(req: Request): number | undefined {
  const raw = typeof req.query.seq === 'string' ? req.query.seq : '';
  return /^\d{1,15}$/.test(raw) ? Number(raw) : undefined;
}

function filterOf(req: Request): ActivityFilter {
  const band = typeof req.query.band === 'string' ? req.query.band : '';
  return {
    band: (BANDS as readonly string[]).includes(band) ? band : undefined,
    reveal: req.query.reveal === '1',
  };
}

async function usage(deps: ActivityRouteDeps, orgId: string): Promise<Usage | null> {
  const org = await deps.orgs.getOrg(orgId);
  if (!org) return null;
  const [today, credits, phoneLookups] = await Promise.all([
    deps.activity.today(orgId),
    deps.orgs.creditsUsed(orgId),
    // Only an organisation that opted in has lookups to show; nothing is read for the others.
    org.phone_lookup_cap ? deps.activity.phoneLookupsUsed(orgId) : undefined,
  ]);
  return { org, today, credits, ...(phoneLookups && { phoneLookups }) };
}

const gone = (res: Response) =>
  res
    .status(404)
    .type('html')
    .send(messagePage('Organisation not found', 'Your organisation no longer exists.').value);

/**
 * What the page and its live refresh both show: the filtered recent scores (their subjects in
 * clear when revealed) and, unless `withUsage` is false, the usage. Null, after answering 404,
 * when the organisation is gone.
 */
async function shown(
  deps: ActivityRouteDeps,
  req: Request,
  res: Response,
  { seq, withUsage = true }: { seq?: number; withUsage?: boolean } = {},
) {
  const session = sessionOf(res);
  const f = filterOf(req);
  const [recent, u, live] = await Promise.all([
    deps.activity.read(session.org_id, { band: f.band, seq }),
    withUsage ? usage(deps, session.org_id) : undefined,
    deps.activity.live(),
  ]);
  if (u === null) {
    gone(res);
    return null;
  }
  const { scores } = recent;
  const clear =
    f.reveal && scores.length > 0
      ? await deps.reveal.subjects(
          session.org_id,
          scores.map((s) => s.score_id),
        )
      : undefined;
  return { session, f, scores, u, clear, live, seq: recent.seq, full: recent.full };
}

async function page(deps: ActivityRouteDeps, req: Request, res: Response) {
  const v = await shown(deps, req, res);
  if (v?.u)
    res
      .type('html')
      .send(activityPage(v.session, { scores: v.scores, seq: v.seq }, v.u, v.f, v.live, v.clear).value);
}

/**
 * What the page's script polls twice a second, as HTML: the rows pushed since the list count it
 * has (`seq`; all of them when `full`), and with `usage=1` the usage panel (the script asks every
 * 2 s: an hourly chart needs no more, and rendering it was most of a poll's cost). The script
 * inserts the rows where their time puts them and keeps the newest `limit`.
 */
async function live(deps: ActivityRouteDeps, req: Request, res: Response) {
  const v = await shown(deps, req, res, { seq: seqOf(req), withUsage: req.query.usage === '1' });
  if (v)
    res.json({
      seq: v.seq,
      full: v.full,
      limit: ACTIVITY_ROWS,
      rows: v.full || v.scores.length > 0 ? activityRows(v.scores, v.f, v.clear).value : '',
      ...(v.u && { usage: usagePanel(v.u).value }),
      live: v.live,
    });
}

async function explainScore(deps: ActivityRouteDeps, req: Request, res: Response) {
  const session = sessionOf(res);
  try {
    const found = await findExplanation(deps.explain, session.org_id, String(req.params.scoreId));
    if (!found)
      return res
        .status(404)
        .type('html')
        .send(
          messagePage(
            'Score not found',
            'Your organisation has no such score (or it is past retention).',
            session,
          ).value,
        );
    res.type('html').send(explainPage(session, found, req.query.reveal === '1').value);
  } catch (err) {
    if (!(err instanceof HistoryUnavailableError)) throw err;
    res
      .status(503)
      .set('Retry-After', '5')
      .type('html')
      .send(
        messagePage('History unavailable', 'Score history is unavailable right now; retry shortly.', session)
          .value,
      );
  }
}

/** The Activity page, its live refresh, and the explain view of one score. */
export function activityRoutes(deps: ActivityRouteDeps): Router {
  const router = Router();
  router.get('/', (_req, res) => res.redirect(303, '/activity'));
  router.get('/activity', (req, res) => page(deps, req, res));
  router.get('/activity/live', (req, res) => live(deps, req, res));
  router.get('/scores/:scoreId', (req, res) => explainScore(deps, req, res));
  return router;
}
