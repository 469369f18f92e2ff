import { clusterAnswers, clusterUrls, stopClickHouseCluster } from '../helpers/ch-cluster.ts';

/**
 * The cluster project's last word on the local ClickHouse cluster: it notes whether the cluster
 * answered before the run and, when the run is over, stops it if it did not. A file's afterAll
 * that timed out (a hung ON CLUSTER statement) never reaches its own release, and a cluster left
 * running holds the ports `node test/cluster/start-cluster.ts` needs next and three gigabytes.
 * A cluster that was up before the run is someone's: it is left running.
 */
export default async function setup(): Promise<() => Promise<void>> {
  const urls = await clusterUrls();
  const wasUp = await clusterAnswers(urls);
  return async () => {
    if (!wasUp) await stopClickHouseCluster();
  };
}
