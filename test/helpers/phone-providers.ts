/**
 * Local stand-ins for Twilio Lookup v2 and Telesign Phone ID: HTTP servers answering in the
 * providers' documented shapes (shared/capabilities/phone-live-lookup/fixtures.ts), with the
 * behaviours a test sets per number: slow, 429, 5xx, malformed, no data. Each counts the lookups
 * it received per number, so a test can tell how many the service paid for.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  telesign,
  twilio,
  TELESIGN_NOT_PORTED,
} from '../../shared/capabilities/phone-live-lookup/fixtures.ts';

/** What a stand-in sends back: a status, a body (object as JSON, string as is), after a delay. */
export interface Reply {
  status?: number;
  body: object | string;
  delayMs?: number;
}

/** Answers a lookup of `e164` for the provider's `asked` packages (Twilio Fields, Telesign add-ons). */
export type Responder = (e164: string, asked: readonly string[]) => Reply | undefined;

export interface StandIn {
  url: string;
  /** Lookups received per number (E.164). */
  readonly calls: Map<string, number>;
  /** Sets what a number answers; undefined from it falls back to the ordinary answer. */
  respond(fn: Responder): void;
  close(): Promise<void>;
}

async function standIn(
  parse: (req: IncomingMessage, body: string) => { e164: string; asked: string[] } | undefined,
  ordinary: Responder,
): Promise<StandIn> {
  const calls = new Map<string, number>();
  let responder: Responder = () => undefined;
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const asked = parse(req, body);
      if (!asked) {
        res.writeHead(404, { 'content-type': 'application/json' }).end('{"code":20404,"status":404}');
        return;
      }
      calls.set(asked.e164, (calls.get(asked.e164) ?? 0) + 1);
      const reply = responder(asked.e164, asked.asked) ?? ordinary(asked.e164, asked.asked)!;
      const send = () => {
        if (res.destroyed) return;
        res
          .writeHead(reply.status ?? 200, { 'content-type': 'application/json' })
          .end(typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body));
      };
      if (reply.delayMs) setTimeout(send, reply.delayMs).unref();
      else send();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    respond: (fn) => (responder = fn),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const basicOk = (req: IncomingMessage, user: string) =>
  (req.headers.authorization ?? '').startsWith('Basic ') &&
  Buffer.from(req.headers.authorization!.slice(6), 'base64').toString().startsWith(`${user}:`);

/** Twilio Lookup v2: GET /v2/PhoneNumbers/{number}?Fields=..., Basic auth as `AC_TEST`. */
export function twilioStandIn(): Promise<StandIn> {
  return standIn(
    (req) => {
      const url = new URL(req.url ?? '/', 'http://x');
      const m = /^\/v2\/PhoneNumbers\/([^/]+)$/.exec(url.pathname);
      if (req.method !== 'GET' || !m || !basicOk(req, 'AC_TEST')) return undefined;
      return { e164: decodeURIComponent(m[1]!), asked: (url.searchParams.get('Fields') ?? '').split(',') };
    },
    (e164, asked) => ({ body: ordinaryTwilio(e164, asked) }),
  );
}

/** An ordinary mobile: no swap in 14 days, not forwarded, not ported; only the packages asked. */
export function ordinaryTwilio(e164: string, asked: readonly string[], over: Record<string, unknown> = {}) {
  const parts: Record<string, unknown> = {
    line_type_intelligence: twilio.lineType(e164, 'mobile').line_type_intelligence,
    sim_swap: twilio.simSwap(e164, null, 'PT336H', false).sim_swap,
    call_forwarding: twilio.forwarding(e164, false).call_forwarding,
    live_activity: twilio.liveActivity(e164, false, true).live_activity,
    ...over,
  };
  const body: Record<string, unknown> = { ...twilio.lineType(e164), line_type_intelligence: null };
  for (const pkg of asked) if (pkg in parts) body[pkg] = parts[pkg];
  return body;
}

/** Telesign Phone ID: POST /v1/phoneid/{number} with JSON add-ons, Basic auth as `CUST_TEST`. */
export function telesignStandIn(): Promise<StandIn> {
  return standIn(
    (req, body) => {
      const m = /^\/v1\/phoneid\/(\d+)$/.exec(req.url ?? '');
      if (req.method !== 'POST' || !m || !basicOk(req, 'CUST_TEST')) return undefined;
      const addons = (JSON.parse(body || '{}') as { addons?: Record<string, unknown> }).addons ?? {};
      return { e164: `+${m[1]!}`, asked: Object.keys(addons) };
    },
    (e164, asked) => ({ body: ordinaryTelesign(e164, asked) }),
  );
}

/** An ordinary mobile: SIM swap risk 1, not ported in 90 days. */
export function ordinaryTelesign(e164: string, asked: readonly string[], swapRisk = 1, portDate?: string) {
  let body = telesign.phoneId(e164);
  if (asked.includes('sim_swap')) body = telesign.simSwap(body, swapRisk);
  if (asked.includes('porting_history'))
    body = telesign.portingHistory(body, portDate ?? TELESIGN_NOT_PORTED);
  return body;
}

/** An API node's settings for a stand-in: each provider with the credentials its stand-in takes. */
export function providerNodeEnv(provider: 'twilio' | 'telesign', url: string, secret: string) {
  const common = { PHONE_LOOKUP_TIMEOUT_MS: '1000', PHONE_LOOKUP_BREAKER_RESET_MS: '1000' };
  return provider === 'twilio'
    ? {
        ...common,
        PHONE_LOOKUP_PROVIDER: 'twilio',
        TWILIO_ACCOUNT_SID: 'AC_TEST',
        TWILIO_AUTH_TOKEN: secret,
        TWILIO_LOOKUP_URL: url,
      }
    : {
        ...common,
        PHONE_LOOKUP_PROVIDER: 'telesign',
        TELESIGN_CUSTOMER_ID: 'CUST_TEST',
        TELESIGN_API_KEY: secret,
        TELESIGN_URL: url,
      };
}
