import { useEffect, useState } from 'preact/hooks';
import { ApiError } from './api';

export interface Loaded<T> {
  readonly data: T | undefined;
  readonly error: string | null;
  readonly reload: () => void;
}

/** Loads what `load` fetches whenever a dependency changes; the last answer stays shown meanwhile. */
export function useLoad<T>(load: (signal: AbortSignal) => Promise<T>, deps: readonly unknown[]): Loaded<T> {
  const [data, setData] = useState<T | undefined>(undefined);
  const [error, setError] = useState<string | null>(null);
  const [tick, setTick] = useState(0);
  useEffect(() => {
    const controller = new AbortController();
    load(controller.signal)
      .then((value) => {
        if (controller.signal.aborted) return;
        setData(value);
        setError(null);
      })
      .catch((caught: unknown) => {
        if (controller.signal.aborted) return;
        setError(caught instanceof ApiError ? caught.detail : String(caught));
      });
    return () => controller.abort();
  }, [...deps, tick]);
  return { data, error, reload: () => setTick((t) => t + 1) };
}
