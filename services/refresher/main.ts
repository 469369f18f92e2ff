/** Entry point of the refresher: signals in, `createRefresher` does the rest. */
import { runService } from '../../shared/run-service.ts';
import { createRefresher, REFRESHER_STOP_DEADLINE_MS } from './service.ts';

runService('refresher', REFRESHER_STOP_DEADLINE_MS, createRefresher);
