// The metrics of several workers, served as one by the cluster primary (prom-client's cluster support).
import { AggregatorRegistry, type PrometheusContentType, type Registry } from 'prom-client';

/**
 * The primary's registry: each scrape asks every connected worker for its metrics over the cluster's IPC
 * channel and answers their aggregate (counters and histograms summed; prom-client's rule per metric),
 * or fails after 5 s when a worker does not answer.
 */
class ClusterRegistry extends AggregatorRegistry<PrometheusContentType> {
  override metrics(): Promise<string> {
    return this.clusterMetrics();
  }
}

export function clusterRegistry(): Registry {
  return new ClusterRegistry();
}

/** In a worker: answer the primary's requests with this process's registry. */
export function answerPrimaryWith(registry: Registry): void {
  AggregatorRegistry.setRegistries([registry]);
  // Constructing one installs the worker's listener for the primary's requests (once per process).
  new AggregatorRegistry<PrometheusContentType>();
}
