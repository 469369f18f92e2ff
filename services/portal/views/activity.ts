import { BANDS } from '../../../shared/vocabulary/score-terms.ts';
import type { Org } from '../../../shared/orgs/store.ts';
import type { ScoreSummary } from '../../../shared/portal/activity.ts';
import type { DayUsage } from '../activity.ts';
import { creditsBar, hourlyChart } from './usage-chart.ts';
import { html, type SafeHtml } from '../html.ts';
import type { Session } from '../sessions.ts';
import { num, when } from './format.ts';
import { layout } from './layout.ts';
import { maskSubjectValue } from '../../../shared/portal/subject-mask.ts';
import { bandBadge } from './band.ts';

/**
 * The subject as stored (masked) unless `clear` has it revealed. Masking is applied again at
 * render: it leaves a masked value as it is, and masks any entry written before the feed stored
 * subjects masked.
 */
function subjectCell(s: ScoreSummary['subject'], clear: ScoreSummary['subject'] | undefined): SafeHtml {
  const shown = clear ?? s;
  const parts = (['phone_number', 'ip_address'] as const)
    .filter((k) => shown[k])
    .map((k) => html`<span class="subj">${clear ? shown[k] : maskSubjectValue(k, shown[k]!)}</span>`);
  return html`${parts.length ? parts : html`<span class="muted">—</span>`}`;
}

export interface ActivityFilter {
  band?: string;
  reveal: boolean;
}

export const filterQuery = (f: ActivityFilter) =>
  new URLSearchParams({
    ...(f.band ? { band: f.band } : {}),
    ...(f.reveal ? { reveal: '1' } : {}),
  }).toString();

/** `revealed`: the subjects in clear by score id, when the filter asks to reveal them. */
export function activityRows(
  scores: ScoreSummary[],
  f: ActivityFilter,
  revealed: ReadonlyMap<string, ScoreSummary['subject']> = new Map(),
): SafeHtml {
  if (scores.length === 0)
    return html`<tr>
      <td colspan="8" class="muted">
        No scores yet${f.band ? ` in band ${f.band}` : ''}. New ones appear here as they happen.
        ${f.band ? '' : html`To make one, create a key on the <a href="/keys">Keys</a> page and call the API with it.`}
      </td>
    </tr>`;
  const q = f.reveal ? '?reveal=1' : '';
  return html`${scores.map(
    (s) =>
      html`<tr data-score-id="${s.score_id}" data-at="${s.at}" class="band-${s.band}">
        <td>${when(s.at)}</td>
        <td>
          <a href="/scores/${s.score_id}${q}"><code>${s.score_id}</code></a>
        </td>
        <td>${subjectCell(s.subject, f.reveal ? revealed.get(s.score_id) : undefined)}</td>
        <td class="num">${s.score}</td>
        <td>${bandBadge(s.band)}</td>
        <td>${s.action}</td>
        <td>${s.factor ?? html`<span class="muted">—</span>`}</td>
        <td>${s.degraded.length ? s.degraded.join(', ') : html`<span class="muted">none</span>`}</td>
      </tr>`,
  )}`;
}

export interface Usage {
  org: Org;
  today: DayUsage;
  credits: { period: string; used: number };
  /** Live phone lookups counted against the monthly cap; only for an organisation that opted in. */
  phoneLookups?: { period: string; used: number };
}

/** The month's phone lookups against the cap, or nothing for an organisation without one. */
function phoneLookupsItem(cap: number | undefined, lookups: Usage['phoneLookups']): SafeHtml | '' {
  if (!cap || !lookups) return '';
  const left = cap - lookups.used;
  return html`<div>
    <dt>Phone lookups ${lookups.period}</dt>
    <dd id="usage-phone-lookups">
      ${num(lookups.used)} used of ${num(cap)}
      (${left > 0 ? `${num(left)} left` : 'cap reached: scores go on without the live lookup until next month'})
    </dd>
  </div>`;
}

export function usagePanel(u: Usage): SafeHtml {
  const { org, today, credits } = u;
  const remaining = org.credits - credits.used;
  const graceUsed = Math.max(0, credits.used - org.credits);
  return html`<dl class="usage">
    <div class="usage-chart">
      <dt>Scores per hour today (UTC)</dt>
      <dd>${hourlyChart(today)}</dd>
    </div>
    <div>
      <dt>Scores today (UTC)</dt>
      <dd id="usage-today">${num(today.total)}</dd>
    </div>
    <div>
      <dt>Band mix today</dt>
      <dd id="usage-bands">${BANDS.map((b) => html`${bandBadge(b)} ${num(today.bands[b] ?? 0)} `)}</dd>
    </div>
    <div>
      <dt>Credits ${credits.period}</dt>
      <dd id="usage-credits">
        ${num(credits.used)} used of ${num(org.credits)}
        (${remaining >= 0 ? `${num(remaining)} left` : `${num(graceUsed)} of ${num(org.overdraft)} grace used`};
        grace ${num(org.overdraft)}) ${creditsBar(credits.used, org.credits, org.overdraft)}
      </dd>
    </div>
    ${phoneLookupsItem(org.phone_lookup_cap, u.phoneLookups)}
    <div>
      <dt>Rate limit</dt>
      <dd id="usage-rate">${org.rate_rps} requests/s (tier ${org.tier})</dd>
    </div>
  </dl>`;
}

export function activityPage(
  session: Session & { orgName?: string },
  { scores, seq }: { scores: ScoreSummary[]; seq: number },
  usage: Usage,
  f: ActivityFilter,
  live: boolean,
  revealed: ReadonlyMap<string, ScoreSummary['subject']> = new Map(),
): SafeHtml {
  const q = filterQuery(f);
  return layout(
    'Activity',
    html`<section id="usage" class="card">${usagePanel(usage)}</section>
      <form method="get" action="/activity" class="inline-form" id="filter">
        <label
          >Band
          <select name="band">
            <option value="">all</option>
            ${BANDS.map((b) => html`<option value="${b}" ${f.band === b ? html`selected` : ''}>${b}</option>`)}
          </select></label
        >
        <label
          ><input type="checkbox" name="reveal" value="1" ${f.reveal ? html`checked` : ''} /> Reveal
          subjects</label
        >
        <button type="submit">Apply</button>
      </form>
      ${
        live
          ? ''
          : html`<p class="warning">
              The audit pipeline has not reported for a while; new scores appear once it is back.
            </p>`
      }
      <div class="live-bar">
        <p id="live-status" role="status">
          ${live ? 'Live: new scores appear as they happen.' : 'Waiting for the audit pipeline.'}
        </p>
        <button type="button" id="live-toggle" aria-pressed="false" hidden>Pause updates</button>
      </div>
      <div class="table-scroll" tabindex="0" role="region" aria-label="Scores (scrolls sideways)">
        <table id="activity" data-live="/activity/live${q ? `?${q}` : ''}" data-seq="${seq}">
          <thead>
            <tr>
              <th scope="col">Time</th>
              <th scope="col">Score id</th>
              <th scope="col">Subject</th>
              <th scope="col">Score</th>
              <th scope="col">Band</th>
              <th scope="col">Action</th>
              <th scope="col">Primary factor</th>
              <th scope="col">Degraded sources</th>
            </tr>
          </thead>
          <tbody>
            ${activityRows(scores, f, revealed)}
          </tbody>
        </table>
      </div>`,
    session,
  );
}
