/**
 * An open Activity page, as far as the portal can tell: polls `/activity/live` as the page script
 * does, every WATCH_INTERVAL_MS (default 500) with the session cookie COOKIE, until
 * SIGTERM. Run beside `bench:system` so the portal's cost per score is measured with a page open;
 * its own CPU is not counted. Exits 1 at the first answer that is not 200, so the bench refuses
 * the step.
 */
import { setTimeout as sleep } from 'node:timers/promises';

const url = `${process.env.PORTAL_URL}/activity/live`;
const cookie = process.env.COOKIE ?? '';
const interval = Number(process.env.WATCH_INTERVAL_MS ?? 500);
let polls = 0;
let seq: number | undefined;
let stopping = false;
process.on('SIGTERM', () => (stopping = true));

// As the page script asks: the rows since the list count it has, the usage panel every 4th poll.
while (!stopping) {
  const started = Date.now();
  const query = new URLSearchParams({
    ...(seq !== undefined && { seq: String(seq) }),
    ...(polls % 4 === 0 && { usage: '1' }),
  });
  const res = await fetch(`${url}?${query}`, { headers: { cookie } });
  if (res.status !== 200) {
    console.error(`[watcher] /activity/live answered ${res.status} after ${polls} polls`);
    process.exit(1);
  }
  seq = ((await res.json()) as { seq: number }).seq;
  polls++;
  await sleep(Math.max(0, interval - (Date.now() - started)));
}
console.log(JSON.stringify({ polls }));
