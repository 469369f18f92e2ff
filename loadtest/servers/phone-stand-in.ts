/**
 * A Twilio Lookup v2 stand-in for benches: `GET /v2/PhoneNumbers/{number}` answers, after
 * DELAY_MS (default 120), the documented shape of an ordinary mobile (shared fixtures of the
 * adapters' contract tests) with each package asked. A process, not a server inside the bench,
 * because the bench blocks its own event loop while k6 runs. Prints its URL once listening.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { twilio } from '../../shared/capabilities/phone-live-lookup/fixtures.ts';

const delayMs = Number(process.env.DELAY_MS ?? 120);

function answer(e164: string, asked: readonly string[]): object {
  const parts: Record<string, unknown> = {
    line_type_intelligence: twilio.lineType(e164, 'mobile').line_type_intelligence,
    sim_swap: twilio.simSwap(e164, null, 'PT336H', false).sim_swap,
    call_forwarding: twilio.forwarding(e164, false).call_forwarding,
    live_activity: twilio.liveActivity(e164, false, true).live_activity,
  };
  const body: Record<string, unknown> = { ...twilio.lineType(e164), line_type_intelligence: null };
  for (const pkg of asked) if (pkg in parts) body[pkg] = parts[pkg];
  return body;
}

const server = createServer((req, res) => {
  const url = new URL(req.url ?? '/', 'http://x');
  const m = /^\/v2\/PhoneNumbers\/([^/]+)$/.exec(url.pathname);
  req.resume();
  if (!m) {
    res.writeHead(404, { 'content-type': 'application/json' }).end('{"code":20404,"status":404}');
    return;
  }
  const body = answer(decodeURIComponent(m[1]!), (url.searchParams.get('Fields') ?? '').split(','));
  setTimeout(() => {
    if (!res.destroyed) res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  }, delayMs);
});
server.listen(0, '127.0.0.1', () =>
  console.log(`http://127.0.0.1:${(server.address() as AddressInfo).port}`),
);
process.on('SIGTERM', () => server.close(() => process.exit(0)));
