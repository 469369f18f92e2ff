/**
 * The runtime flags an API node starts with: `node ${API_NODE_FLAGS} services/api/main.ts`.
 * V8 reads them only at start-up, so they live on the command line of every launcher: the
 * Dockerfile, docker-compose.yml and package.json's `api` script carry them literally (a test
 * checks they match this list); the local stack, the test harness and the benches take them from
 * here.
 *
 * - `--v8-pool-size=1`: one V8 helper thread, not Node's four. API nodes share their cores with
 *   each other and with the clients' servers; four helpers per node take turns with the main
 *   thread, and requests wait behind their time slices. One is enough for concurrent and parallel
 *   marking, which keep a full collection's final pause short (never `--single-threaded-gc`,
 *   which turns them off).
 * - `--max-semi-space-size=16`: a young generation of at most 2 x 16 MiB. V8 grows it to 2 x 64
 *   MiB on a busy node, and a scavenge of that took up to 34 ms.
 *
 * Measured in docs/deployment.md ("An API node's runtime flags").
 */
export const API_NODE_FLAGS: readonly string[] = ['--v8-pool-size=1', '--max-semi-space-size=16'];

/** The node arguments to start `entry` with: the API node's flags for the API, none for the rest. */
export function runtimeFlagsFor(entry: string): readonly string[] {
  return entry.endsWith('services/api/main.ts') ? API_NODE_FLAGS : [];
}
