import { useEffect, useState } from 'preact/hooks';
import { errorText } from './api';

export interface Loaded<T> {
  readonly data: T | undefined;
  readonly error: string | null;
  /** A load is under way (the data shown may be the previous answer). */
  readonly loading: boolean;
  readonly reload: () => void;
}

/** Loads what `load` fetches whenever a dependency changes; the last answer stays shown meanwhile. */
export function useLoad<T>(load: (signal: AbortSignal) => Promise<T>, deps: readonly unknown[]): Loaded<T> {
  const [data, setData] = useState<T | undefined>(undefined);
  const [error, setError] = useState<string | null>(null);
  const [tick, setTick] = useState(0);
  const [loading, setLoading] = useState(true);
  useEffect(() => {
    const controller = new AbortController();
    setLoading(true);
    load(controller.signal)
      .then((value) => {
        if (controller.signal.aborted) return;
        setData(value);
        setError(null);
      })
      .catch((caught: unknown) => {
        if (controller.signal.aborted) return;
        setError(errorText(caught));
      })
      .finally(() => {
        if (!controller.signal.aborted) setLoading(false);
      });
    return () => controller.abort();
  }, [...deps, tick]);
  return { data, error, loading, reload: () => setTick((t) => t + 1) };
}
