import type pg from 'pg';
import { isRetryableTransactionError, translateError } from './errors.js';
import type { Query } from './executor.js';

/** The first try and up to three retries. */
const MAX_ATTEMPTS = 4;

type Attempt<T> = { ok: true; value: T } | { ok: false; error: unknown; retryable: boolean };

/** A client checked out for one transaction, with what we learnt about it while it ran. */
class TransactionSession {
  /** The database reported a serialization failure or a deadlock: the whole transaction may be retried. */
  retryable = false;
  /** The connection failed (or the transaction could not be ended): it must not go back to the pool. */
  broken: Error | undefined;
  private ended = false;

  constructor(private readonly client: pg.PoolClient) {
    client.on('error', this.onClientError);
  }

  private readonly onClientError = (error: Error): void => {
    this.broken ??= error;
  };

  readonly query: Query = async (text, values) => {
    // A leaked `tx` must never run statements on a client that already serves another transaction.
    if (this.ended) throw new Error('This transaction has already ended');
    try {
      return await this.client.query(text, values);
    } catch (error) {
      if (isRetryableTransactionError(error)) this.retryable = true;
      throw translateError(error);
    }
  };

  async rollback(): Promise<void> {
    try {
      await this.client.query('ROLLBACK');
    } catch (error) {
      // The transaction is in doubt (e.g. the connection died): destroy the client rather than reuse it.
      this.broken ??= error instanceof Error ? error : new Error(String(error));
    }
  }

  release(): void {
    this.ended = true;
    this.client.removeListener('error', this.onClientError);
    this.client.release(this.broken);
  }
}

const attempt = async <T>(pool: pg.Pool, work: (query: Query) => Promise<T>): Promise<Attempt<T>> => {
  let client: pg.PoolClient;
  try {
    client = await pool.connect();
  } catch (error) {
    return { ok: false, error: translateError(error), retryable: false };
  }
  const session = new TransactionSession(client);
  try {
    await session.query('BEGIN');
    const value = await work(session.query);
    await session.query('COMMIT');
    return { ok: true, value };
  } catch (error) {
    await session.rollback();
    return { ok: false, error, retryable: session.retryable };
  } finally {
    session.release();
  }
};

/** A short random pause so that the two sides of a deadlock do not collide again at once. */
const pause = (attemptNumber: number): Promise<void> =>
  new Promise((resolve) => setTimeout(resolve, Math.random() * 10 * attemptNumber));

/**
 * Runs `work` in one transaction on one checked-out client. On a serialization failure or a deadlock the
 * whole `work` runs again (it is pure database access by contract, so repeating it is safe). Any other
 * error rolls back and is rethrown as it was.
 */
export const runTransaction = async <T>(pool: pg.Pool, work: (query: Query) => Promise<T>): Promise<T> => {
  for (let attemptNumber = 1; ; attemptNumber++) {
    const outcome = await attempt(pool, work);
    if (outcome.ok) return outcome.value;
    if (!outcome.retryable || attemptNumber >= MAX_ATTEMPTS) throw outcome.error;
    await pause(attemptNumber);
  }
};
