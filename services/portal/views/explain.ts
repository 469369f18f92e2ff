import type { Explanation } from '../../../shared/audit/explain.ts';
import { ExplainResponse, type ComponentResult } from '../../../shared/contract/response.ts';
import { COMPONENT_KEYS, REASON_CODES } from '../../../shared/scoring/reason-codes.ts';
import { BENIGN_EXCLUSIONS } from '../../../shared/vocabulary/benign-exclusions.ts';
import { html, type SafeHtml } from '../html.ts';
import type { Session } from '../sessions.ts';
import { bandBadge } from './band.ts';
import { when } from './format.ts';
import { layout } from './layout.ts';
import { maskExplanation } from './subject-mask.ts';

/** What each recommended action asks of the caller, in words. */
const ACTION_WORDS: Record<string, string> = {
  allow: 'Allow: let it proceed.',
  watch: 'Watch: let it proceed, keep an eye on it.',
  investigate: 'Investigate: have someone look before relying on it.',
  step_up_auth: 'Step up: ask for stronger authentication.',
  challenge: 'Challenge: verify the person before going on.',
  block: 'Block: do not proceed.',
};

/** Verdicts in words, so a row reads without knowing the contract's vocabulary. */
const VERDICT_WORDS: Record<string, string> = {
  clean: 'clean (argues against fraud)',
  neutral: 'neutral',
  elevated: 'elevated risk',
  adverse: 'adverse (strong risk)',
  no_match: 'no match',
  unavailable: 'unavailable (no answer)',
};

const lookup = (registry: Readonly<Record<string, string>>, key: string | undefined) =>
  key === undefined ? undefined : registry[key];

const RESOLUTION_LABELS: Record<string, string> = {
  e164: 'Number',
  valid: 'Valid number',
  country_code: 'Country',
  ndc: 'Range (NDC)',
  operator: 'Operator',
  line_type: 'Line type',
  allocated: 'Allocated range',
  asn: 'Autonomous system',
  as_name: 'AS name',
  as_type: 'AS type',
  continent: 'Continent',
  hosting: 'Hosting network',
  vpn: 'VPN',
  proxy: 'Proxy',
  tor: 'Tor exit',
  bogon: 'Reserved address',
};

/**
 * The AS number and name come from @ip-location-db/asn (RouteViews, DB-IP and the NRO, CC BY
 * 4.0): DB-IP asks for a link to it on every page that shows results of its data, and CC BY
 * asks for credit to each source (infra/feeds/NOTICE).
 */
export function asDataAttribution(ip: Record<string, unknown> | undefined): SafeHtml {
  if (!ip || (ip.asn === undefined && ip.as_name === undefined)) return html``;
  return html`<p class="hint" id="explain-as-attribution">
    AS data: <a href="https://db-ip.com">IP Geolocation by DB-IP</a>,
    <a href="https://www.routeviews.org/">RouteViews</a> and the <a href="https://www.nro.net/">NRO</a>, under
    <a href="https://creativecommons.org/licenses/by/4.0/">CC BY 4.0</a>, modified (merged and classified by
    this service).
  </p>`;
}

const shown = (v: unknown) => (typeof v === 'boolean' ? (v ? 'yes' : 'no') : String(v));

function resolutionList(title: string, id: string, r: Record<string, unknown> | undefined): SafeHtml {
  if (!r || Object.keys(r).length === 0) return html``;
  return html`<div class="resolution">
    <h3>${title}</h3>
    <dl id="${id}">
      ${Object.entries(r).map(
        ([k, v]) =>
          html`<div>
            <dt>${RESOLUTION_LABELS[k] ?? k}</dt>
            <dd>${shown(v)}</dd>
          </div>`,
      )}
    </dl>
  </div>`;
}

function componentRow(c: ComponentResult): SafeHtml {
  const meaning = lookup(REASON_CODES, c.detail);
  return html`<tr data-component="${c.component}" class="verdict-${c.verdict}">
    <th scope="row">
      ${c.component}
      <span class="hint block">${lookup(COMPONENT_KEYS, c.component) ?? ''}</span>
    </th>
    <td>${VERDICT_WORDS[c.verdict] ?? c.verdict}</td>
    <td class="num">${c.contribution > 0 ? `+${c.contribution}` : c.contribution}</td>
    <td>
      ${meaning ?? html`<span class="muted">—</span>`}
      ${c.detail ? html`<code class="block">${c.detail}</code>` : ''}
    </td>
  </tr>`;
}

const pretty = (v: unknown) => JSON.stringify(v, null, 2);

/** The response fields the page reads; the stored response is shown as returned. */
interface StoredResponse {
  score?: number;
  band?: string;
  recommended_action?: string;
  coverage?: string;
  degraded_sources?: string[];
  context_applied?: { effect: string; reason?: string; context_id?: string };
}

type Evidence = ExplainResponse['evidence'];

/** The answer in words: score and band, what to do, the main reason, coverage, context, outages. */
function outcomeCard(r: StoredResponse, primary: Evidence['primary_risk_factor']): SafeHtml {
  return html`<section class="card outcome" id="explain-outcome">
    <p class="big">
      Scored <strong id="explain-score">${r.score}</strong> of 100: ${bandBadge(r.band ?? 'unknown')}.
    </p>
    <p id="explain-action">
      ${ACTION_WORDS[r.recommended_action ?? ''] ?? r.recommended_action}
      <code>${r.recommended_action}</code>
    </p>
    ${
      primary
        ? html`<p id="explain-primary">
            Main reason: ${primary.narrative ?? lookup(REASON_CODES, primary.code) ?? primary.code}
            <code>${primary.code}</code>
          </p>`
        : ''
    }
    <p class="hint">
      The score ranks this subject's raw risk against the reference population (a percentile, not a
      probability).
      ${r.coverage ? html`Evidence coverage: ${r.coverage}${r.coverage === 'thin' ? ' (thin means unwatched, not clean)' : ''}.` : ''}
    </p>
    ${
      r.context_applied && r.context_applied.effect !== 'none'
        ? html`<p>
            Context ${r.context_applied.context_id ?? ''}:
            ${r.context_applied.effect.replace('_', ' ')}${r.context_applied.reason ? ` (${r.context_applied.reason})` : ''}.
          </p>`
        : ''
    }
    ${
      r.degraded_sources?.length
        ? html`<p class="warning">Sources that could not answer: ${r.degraded_sources.join(', ')}.</p>`
        : ''
    }
  </section>`;
}

function summaryList(e: Explanation): SafeHtml {
  return html`<dl class="usage" id="explain-summary">
    <div>
      <dt>Scored at</dt>
      <dd>${when(e.scored_at)}</dd>
    </div>
    <div>
      <dt>Score version</dt>
      <dd>${e.score_version}</dd>
    </div>
    <div>
      <dt>Kept until</dt>
      <dd>${when(e.retained_until)}</dd>
    </div>
  </dl>`;
}

function componentsTable(ev: Evidence | undefined): SafeHtml {
  return html`<h2>Components</h2>
    <div class="table-scroll" tabindex="0" role="region" aria-label="Components (scrolls sideways)">
      <table id="explain-components">
        <caption class="hint">
          Each component's verdict and the raw-risk points it added; the score ranks their sum.
        </caption>
        <thead>
          <tr>
            <th scope="col">Component</th>
            <th scope="col">Verdict</th>
            <th scope="col" class="num">Points</th>
            <th scope="col">What it means</th>
          </tr>
        </thead>
        <tbody>
          ${
            ev?.components.length
              ? ev.components.map(componentRow)
              : html`<tr>
                  <td colspan="4" class="muted">No components recorded.</td>
                </tr>`
          }
        </tbody>
      </table>
    </div>`;
}

/** The evidence beyond the components, each section only when the record has it. */
function evidenceSections(ev: Evidence | undefined): SafeHtml {
  return html`${
    ev?.subject
      ? html`<h2>Subject resolution</h2>
          <div class="resolutions">
            ${resolutionList('Phone number', 'explain-phone', ev.subject.phone_number)}
            ${resolutionList('IP address', 'explain-ip', ev.subject.ip_address)}
          </div>
          ${asDataAttribution(ev.subject.ip_address)}`
      : ''
  }
  ${
    ev?.benign_exclusions?.length
      ? html`<h2>Checked and not held against the subject</h2>
          <ul id="explain-benign">
            ${ev.benign_exclusions.map(
              (b) => html`<li>${lookup(BENIGN_EXCLUSIONS, b) ?? b} <code>${b}</code></li>`,
            )}
          </ul>`
      : ''
  }
  ${
    ev?.services?.length
      ? html`<h2>Named services</h2>
          <ul id="explain-services">
            ${ev.services.map((s) => html`<li><strong>${s.name}</strong> (read by ${s.component})</li>`)}
          </ul>`
      : ''
  }`;
}

function rawRecord(e: Explanation): SafeHtml {
  return html`<h2>Raw record</h2>
    <p class="hint">The same record as <code>GET /v1/explain/${e.score_id}</code>.</p>
    <details>
      <summary>Evidence (JSON)</summary>
      <pre id="explain-evidence" tabindex="0">${pretty(e.evidence)}</pre>
    </details>
    <details>
      <summary>Response as returned (JSON)</summary>
      <pre id="explain-response" tabindex="0">${pretty(e.response)}</pre>
    </details>
    <details>
      <summary>Request as sent (JSON)</summary>
      <pre id="explain-request" tabindex="0">${pretty(e.request)}</pre>
    </details>`;
}

/**
 * One score's record in words: the outcome, each component as a row explained from the reason-code
 * registry, the subject resolution, benign exclusions and named services; the raw record behind a
 * toggle. The subject is masked everywhere on the page unless revealed.
 */
export function explainPage(
  session: Session & { orgName?: string },
  record: Explanation,
  reveal: boolean,
): SafeHtml {
  const e = reveal ? record : maskExplanation(record);
  const parsed = ExplainResponse.shape.evidence.safeParse(e.evidence);
  const ev = parsed.success ? parsed.data : undefined;
  return layout(
    `Score ${e.score_id}`,
    html`<p class="actions">
        <a href="/activity${reveal ? '?reveal=1' : ''}">← Activity</a>
        <a href="/scores/${e.score_id}${reveal ? '' : '?reveal=1'}"
          >${reveal ? 'Mask subject' : 'Reveal subject'}</a
        >
      </p>
      ${outcomeCard(e.response as StoredResponse, ev?.primary_risk_factor)} ${summaryList(e)}
      ${componentsTable(ev)} ${evidenceSections(ev)} ${rawRecord(e)}`,
    session,
  );
}
