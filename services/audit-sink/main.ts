/** Entry point of the audit sink: signals in, `createAuditSink` does the rest. */
import { runService } from '../../shared/run-service.ts';
import { createAuditSink, SINK_STOP_DEADLINE_MS } from './service.ts';

runService('audit-sink', SINK_STOP_DEADLINE_MS, createAuditSink);
