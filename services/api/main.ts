/** Entry point of an API node: signals in, `createApiNode` does the rest. */
import { runService } from '../../shared/run-service.ts';
import { API_STOP_DEADLINE_MS, createApiNode } from './node.ts';

runService('api', API_STOP_DEADLINE_MS, (cfg, log) => createApiNode(cfg, log));
