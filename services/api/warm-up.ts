import { getCountries, getExampleNumber, type CountryCode } from 'libphonenumber-js/max';
import examples from 'libphonenumber-js/mobile/examples';
import { CHANNELS, MOMENTS } from '../../shared/vocabulary/scoring-input.ts';
import { TIERS } from '../../shared/vocabulary/score-terms.ts';
import type { Org } from '../../shared/orgs/store.ts';
import type { Principal } from './auth.ts';
import { validateScoreRequest } from '../../shared/contract/validation.ts';
import { checkScoreRequest } from './score-request.ts';
import type { Scorer } from './scorer.ts';

/** Enough calls for V8 to optimise the score path's functions (measured: see docs/performance.md). */
export const WARM_UP_CALLS = 600;

/**
 * Synthetic request bodies spread like real traffic: numbers of every country (each loads its
 * own numbering metadata), IPv4 and IPv6 addresses in many blocks, phone only, IP only, both,
 * with and without explanations.
 */
export function warmUpBodies(count: number): string[] {
  const countries = getCountries();
  const bodies: string[] = [];
  for (let i = 0; i < count; i++) {
    const country = countries[(i * 7) % countries.length] as CountryCode;
    const phone = getExampleNumber(country, examples)?.number;
    const ip =
      i % 5 === 4
        ? `2001:db8:${((i * 131) % 65536).toString(16)}::${(i % 97).toString(16)}`
        : `${1 + ((i * 37) % 222)}.${(i * 91) % 256}.${(i * 13) % 256}.${1 + (i % 254)}`;
    const subject =
      i % 3 === 0 || !phone
        ? { ip_address: ip }
        : i % 3 === 1
          ? { phone_number: phone }
          : { phone_number: phone, ip_address: ip };
    const context = {
      sector: 'remittance',
      geography: { operating_countries: ['GB', 'FR'], diaspora_corridors: ['NG'] },
      collection_point: { channel: CHANNELS[i % CHANNELS.length], moment: MOMENTS[i % MOMENTS.length] },
    };
    bodies.push(
      JSON.stringify({
        subject,
        ...(i % 2 === 0 ? { context } : {}),
        options: { explain: i % 4 !== 0 },
        client_reference: `warm-up-${i}`,
      }),
    );
  }
  return bodies;
}

/**
 * Runs the score path `calls` times before the node reports ready, so its first real requests
 * do not pay for V8 compiling it (a fresh node's first seconds were 15-30x its steady p99):
 * parse, validation, number and address resolution, engine, shaping and serialization over the
 * loaded snapshots, for each tier. `scorer` must be one whose records go nowhere. Yields to the
 * event loop between slices, so /livez keeps answering.
 */
export async function warmUpScorePath(
  scorer: Scorer,
  calls = WARM_UP_CALLS,
): Promise<{ calls: number; ms: number }> {
  const started = performance.now();
  const bodies = warmUpBodies(Math.min(calls, 200));
  const principals: Principal[] = TIERS.map((tier) => ({
    keyId: 'warm-up',
    org: warmUpOrg(tier),
  }));
  for (let i = 0; i < calls; i++) {
    const principal = principals[i % principals.length]!;
    const t0 = performance.now();
    // The schema pass as the route runs it, then the checks beyond it.
    const validated = validateScoreRequest(JSON.parse(bodies[i % bodies.length]!), undefined);
    if (!validated.ok) throw new Error(`a warm-up body is invalid: ${JSON.stringify(validated.errors)}`);
    const checked = checkScoreRequest(validated.request, undefined, principal.org);
    await scorer.score(checked, principal, t0).durable;
    if (i % 50 === 49) await new Promise((r) => setImmediate(r));
  }
  return { calls, ms: Math.round(performance.now() - started) };
}

function warmUpOrg(tier: Org['tier']): Org {
  return {
    org_id: 'org_warmup',
    name: 'warm-up',
    tier,
    rate_rps: 1,
    credits: 0,
    overdraft: 0,
    entitlements: [],
    contexts: {},
    created_at: new Date(0).toISOString(),
  };
}
