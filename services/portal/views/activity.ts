import { BANDS } from '../../../shared/contract/response.ts';
import type { Explanation } from '../../../shared/audit/explain.ts';
import type { Org } from '../../../shared/orgs/store.ts';
import type { ScoreSummary } from '../activity.ts';
import { html, type SafeHtml } from '../html.ts';
import type { Session } from '../sessions.ts';
import { num, when } from './format.ts';
import { layout } from './layout.ts';
import { maskExplanation, maskSubjectValue } from './subject-mask.ts';

function subjectCell(s: ScoreSummary['subject'], reveal: boolean): SafeHtml {
  const parts = (['phone_number', 'ip_address'] as const)
    .filter((k) => s[k])
    .map((k) => html`<span class="subj">${reveal ? s[k] : maskSubjectValue(k, s[k]!)}</span>`);
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

export function activityRows(scores: ScoreSummary[], f: ActivityFilter): SafeHtml {
  if (scores.length === 0)
    return html`<tr>
      <td colspan="8" class="muted">
        No scores yet${f.band ? ` in band ${f.band}` : ''}. New ones appear here as they happen.
      </td>
    </tr>`;
  const q = f.reveal ? '?reveal=1' : '';
  return html`${scores.map(
    (s) =>
      html`<tr data-score-id="${s.score_id}" class="band-${s.band}">
        <td>${when(s.at)}</td>
        <td>
          <a href="/scores/${s.score_id}${q}"><code>${s.score_id}</code></a>
        </td>
        <td>${subjectCell(s.subject, f.reveal)}</td>
        <td class="num">${s.score}</td>
        <td><span class="band band-${s.band}">${s.band}</span></td>
        <td>${s.action}</td>
        <td>${s.factor ?? html`<span class="muted">—</span>`}</td>
        <td>${s.degraded.length ? s.degraded.join(', ') : html`<span class="muted">none</span>`}</td>
      </tr>`,
  )}`;
}

export interface Usage {
  org: Org;
  today: { total: number; bands: Record<string, number> };
  credits: { period: string; used: number };
}

export function usagePanel(u: Usage): SafeHtml {
  const { org, today, credits } = u;
  const remaining = org.credits - credits.used;
  const graceUsed = Math.max(0, credits.used - org.credits);
  return html`<dl class="usage">
    <div>
      <dt>Scores today (UTC)</dt>
      <dd id="usage-today">${num(today.total)}</dd>
    </div>
    <div>
      <dt>Band mix today</dt>
      <dd id="usage-bands">
        ${BANDS.map((b) => html`<span class="band band-${b}">${b} ${num(today.bands[b] ?? 0)}</span> `)}
      </dd>
    </div>
    <div>
      <dt>Credits ${credits.period}</dt>
      <dd id="usage-credits">
        ${num(credits.used)} used of ${num(org.credits)}
        (${remaining >= 0 ? `${num(remaining)} left` : `${num(graceUsed)} of ${num(org.overdraft)} grace used`};
        grace ${num(org.overdraft)})
      </dd>
    </div>
    <div>
      <dt>Rate limit</dt>
      <dd id="usage-rate">${org.rate_rps} requests/s (tier ${org.tier})</dd>
    </div>
  </dl>`;
}

export function activityPage(
  session: Session & { orgName?: string },
  scores: ScoreSummary[],
  usage: Usage,
  f: ActivityFilter,
  live: boolean,
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
      ${live ? '' : html`<p class="warning">The live feed is not connected to the score stream yet; new scores appear once it is.</p>`}
      <div class="live-bar">
        <p id="live-status" role="status">
          ${live ? 'Live: new scores appear as they happen.' : 'Waiting for the score stream.'}
        </p>
        <button type="button" id="live-toggle" aria-pressed="false" hidden>Pause updates</button>
      </div>
      <table id="activity" data-live="/activity/live${q ? `?${q}` : ''}">
        <thead>
          <tr>
            <th>Time</th>
            <th>Score id</th>
            <th>Subject</th>
            <th>Score</th>
            <th>Band</th>
            <th>Action</th>
            <th>Primary factor</th>
            <th>Degraded sources</th>
          </tr>
        </thead>
        <tbody>
          ${activityRows(scores, f)}
        </tbody>
      </table>`,
    session,
  );
}

const pretty = (v: unknown) => JSON.stringify(v, null, 2);

/** One score's record; its subject masked everywhere on the page unless revealed. */
export function explainPage(
  session: Session & { orgName?: string },
  record: Explanation,
  reveal: boolean,
): SafeHtml {
  const e = reveal ? record : maskExplanation(record);
  const r = e.response as { score?: number; band?: string; recommended_action?: string };
  return layout(
    `Score ${e.score_id}`,
    html`<p>
        <a href="/activity${reveal ? '?reveal=1' : ''}">← Activity</a> ·
        <a href="/scores/${e.score_id}${reveal ? '' : '?reveal=1'}"
          >${reveal ? 'Mask subject' : 'Reveal subject'}</a
        >
      </p>
      <dl class="usage" id="explain-summary">
        <div>
          <dt>Score</dt>
          <dd>${r.score}</dd>
        </div>
        <div>
          <dt>Band</dt>
          <dd><span class="band band-${r.band}">${r.band}</span></dd>
        </div>
        <div>
          <dt>Action</dt>
          <dd>${r.recommended_action}</dd>
        </div>
        <div>
          <dt>Scored at</dt>
          <dd>${e.scored_at}</dd>
        </div>
        <div>
          <dt>Score version</dt>
          <dd>${e.score_version}</dd>
        </div>
        <div>
          <dt>Kept until</dt>
          <dd>${e.retained_until}</dd>
        </div>
      </dl>
      <p class="hint">The same record as <code>GET /v1/explain/${e.score_id}</code>.</p>
      <h2>Evidence</h2>
      <pre id="explain-evidence">${pretty(e.evidence)}</pre>
      <h2>Response as returned</h2>
      <pre id="explain-response">${pretty(e.response)}</pre>
      <h2>Request as sent</h2>
      <pre id="explain-request">${pretty(e.request)}</pre>`,
    session,
  );
}
