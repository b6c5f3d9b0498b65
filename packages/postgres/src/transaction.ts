import type pg from 'pg';
import { isRetryableTransactionError, translateError } from './errors.js';
import type { Query } from './executor.js';
import { inlineParameters } from './literals.js';

/** The first try and up to three retries. */
const MAX_ATTEMPTS = 4;

type Attempt<T> = { ok: true; value: T } | { ok: false; error: unknown; retryable: boolean };

/**
 * What a transaction's work runs statements with: `query` sends a statement and waits for its answer;
 * `defer` keeps a write whose answer nobody reads, to send it with the next `query` or the COMMIT.
 */
export interface TransactionStatements {
  readonly query: Query;
  defer(text: string, values: readonly unknown[]): void;
}

/**
 * A client checked out for one transaction, with what we learnt about it while it ran.
 *
 * Round trips: `BEGIN` is not sent on its own but with the transaction's first statement, and writes
 * nobody reads the answer of (`defer`) wait for the next statement or the COMMIT: statements sent
 * together go as one simple-protocol message (`BEGIN; INSERT …; SELECT … FOR UPDATE`), their parameters
 * written in as literals (`literals.ts`), and Postgres runs them in order and answers once. A statement
 * sent alone keeps the extended protocol with parameters. An error in a message ends it: the statements
 * after the failing one do not run, the transaction is aborted, and the error is reported by the call
 * that sent the message (a deferred write's error by the next statement or the COMMIT, so by
 * `withTransaction` at the latest).
 */
class TransactionSession implements TransactionStatements {
  /** The database reported a serialization failure or a deadlock: the whole transaction may be retried. */
  retryable = false;
  /** The connection failed (or the transaction could not be ended): it must not go back to the pool. */
  broken: Error | undefined;
  private ended = false;
  /** Statements not sent yet, parameters written in; BEGIN first until something is sent. */
  private pending: string[] = ['BEGIN'];
  /** Whether BEGIN has been sent (so there is a transaction to end). */
  private begun = false;
  /** The first statement error: the transaction is aborted, and a COMMIT would only roll it back. */
  private failure: unknown;

  constructor(private readonly client: pg.PoolClient) {
    client.on('error', this.onClientError);
  }

  private readonly onClientError = (error: Error): void => {
    this.broken ??= error;
  };

  private assertOpen(): void {
    // A leaked `tx` must never run statements on a client that already serves another transaction.
    if (this.ended) throw new Error('This transaction has already ended');
  }

  readonly query: Query = async <R extends pg.QueryResultRow>(text: string, values?: unknown[]) => {
    this.assertOpen();
    const batch = this.pending;
    this.pending = [];
    this.begun = true;
    try {
      if (batch.length === 0) return await this.client.query<R>(text, values);
      batch.push(values === undefined ? text : inlineParameters(text, values));
      const results = (await this.client.query<R>(batch.join(';\n'))) as unknown as
        | pg.QueryResult<R>
        | pg.QueryResult<R>[];
      // Several statements answer with one result each: the caller's is the last.
      return Array.isArray(results) ? results[results.length - 1]! : results;
    } catch (error) {
      if (isRetryableTransactionError(error)) this.retryable = true;
      const translated = translateError(error);
      this.failure ??= translated;
      throw translated;
    }
  };

  readonly defer = (text: string, values: readonly unknown[]): void => {
    this.assertOpen();
    this.pending.push(inlineParameters(text, values));
  };

  async commit(): Promise<void> {
    // `work` swallowed a statement's error: Postgres would answer COMMIT with a silent ROLLBACK.
    if (this.failure !== undefined) throw this.failure;
    // Nothing sent and nothing to send: there is no transaction to commit.
    if (!this.begun && this.pending.length === 1) return;
    await this.query('COMMIT');
  }

  async rollback(): Promise<void> {
    this.pending = [];
    if (!this.begun) return; // BEGIN never left: nothing to undo
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

const attempt = async <T>(
  pool: pg.Pool,
  work: (statements: TransactionStatements) => Promise<T>,
): Promise<Attempt<T>> => {
  let client: pg.PoolClient;
  try {
    client = await pool.connect();
  } catch (error) {
    return { ok: false, error: translateError(error), retryable: false };
  }
  const session = new TransactionSession(client);
  try {
    const value = await work(session);
    await session.commit();
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
export const runTransaction = async <T>(
  pool: pg.Pool,
  work: (statements: TransactionStatements) => Promise<T>,
): Promise<T> => {
  for (let attemptNumber = 1; ; attemptNumber++) {
    const outcome = await attempt(pool, work);
    if (outcome.ok) return outcome.value;
    if (!outcome.retryable || attemptNumber >= MAX_ATTEMPTS) throw outcome.error;
    await pause(attemptNumber);
  }
};
