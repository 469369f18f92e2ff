// Load for `npm run bench`: either closed-loop saturation (MODE=saturate, VUS) or an open
// constant arrival rate (MODE=rate, RATE) against one target kind (KIND=hello|score).
import http from 'k6/http';
import { SharedArray } from 'k6/data';

const urls = __ENV.BASE_URLS.split(',');
const kind = __ENV.KIND;
const key = __ENV.API_KEY;
const subjects = kind === 'score' ? new SharedArray('s', () => JSON.parse(open(__ENV.SUBJECTS_FILE))) : [];
const duration = __ENV.DURATION || '10s';

export const options = {
  discardResponseBodies: true,
  summaryTrendStats: ['med', 'p(99)', 'max'],
  scenarios:
    __ENV.MODE === 'saturate'
      ? { load: { executor: 'constant-vus', vus: Number(__ENV.VUS || 64), duration } }
      : {
          load: {
            executor: 'constant-arrival-rate',
            rate: Number(__ENV.RATE),
            timeUnit: '1s',
            duration,
            preAllocatedVUs: 64,
            maxVUs: 400,
          },
        },
};

// Each VU starts at its own random place in the population, so concurrent requests are not for
// the same subject in lockstep (which would flatter any cache along the path).
let n = Math.floor(Math.random() * 1_000_000);
const runId = `${Date.now()}-${Math.floor(Math.random() * 1e9)}`;
export default function () {
  n += 1;
  const url = urls[n % urls.length];
  if (kind === 'hello') {
    http.get(url);
    return;
  }
  // IDEMPOTENCY=1: every request carries a key of its own (what the idempotent answer costs).
  const idempotency = __ENV.IDEMPOTENCY === '1' ? { 'Idempotency-Key': `${runId}-${__VU}-${__ITER}` } : {};
  http.post(`${url}/v1/score`, JSON.stringify({ subject: subjects[n % subjects.length] }), {
    headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json', ...idempotency },
  });
}
