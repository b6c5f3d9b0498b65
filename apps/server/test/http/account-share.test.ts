import { type ClientRequest, request } from 'node:http';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AccountShare } from '../../src/http/account-share.js';
import { HttpHarness, type TestAccount } from '../support/http-harness.js';

/**
 * Issue 34, "fair share": the requests of one account that run at once are bounded (so are the store
 * connections it holds), the rest wait in that account's own queue, past it `429`; another account
 * never waits behind them. Held change reads are not counted.
 */

/** Resolves once `check` holds, polling (the server's state, not a clock, decides). */
async function until(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 500; i++) {
    if (check()) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`never: ${what}`);
}

describe('AccountShare', () => {
  it('runs `running` requests of an account, queues `waiting` in order, refuses past them', async () => {
    const share = new AccountShare({ running: 2, waiting: 2 });
    const first = await share.enter('a');
    const second = await share.enter('a');
    const order: string[] = [];
    const third = share.enter('a').then((leave) => {
      order.push('third');
      return leave;
    });
    const fourth = share.enter('a').then((leave) => {
      order.push('fourth');
      return leave;
    });
    expect(share.heldBy('a')).toEqual({ running: 2, waiting: 2 });
    await expect(share.enter('a')).rejects.toMatchObject({ code: 'RATE_LIMITED', retryAfterSeconds: 1 });
    // Another account is not behind a's queue.
    const other = await share.enter('b');
    first();
    first(); // a second call gives nothing back twice
    const leaveThird = await third;
    expect(share.heldBy('a')).toEqual({ running: 2, waiting: 1 });
    second();
    const leaveFourth = await fourth;
    expect(order).toEqual(['third', 'fourth']);
    for (const leave of [leaveThird, leaveFourth, other]) leave();
    expect(share.size).toBe(0);
  });

  it('lets a waiting request whose client went away leave the queue', async () => {
    const share = new AccountShare({ running: 1, waiting: 1 });
    const leave = await share.enter('a');
    const gone = new AbortController();
    const waiting = share.enter('a', gone.signal);
    gone.abort(new Error('gone'));
    await expect(waiting).rejects.toThrow('gone');
    expect(share.heldBy('a')).toEqual({ running: 1, waiting: 0 });
    leave();
    expect(share.size).toBe(0);
  });

  it('keeps to its bounds and forgets idle accounts, for any sequence of arrivals, leaves and aborts (model)', async () => {
    const op = fc.oneof(
      fc.record({ kind: fc.constant('enter' as const), account: fc.constantFrom('a', 'b') }),
      fc.record({ kind: fc.constant('leave' as const), pick: fc.nat() }),
      fc.record({ kind: fc.constant('abort' as const), pick: fc.nat() }),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.array(op, { maxLength: 60 }),
        fc.integer({ min: 1, max: 3 }),
        async (ops, running) => {
          const waitingMax = 2;
          const share = new AccountShare({ running, waiting: waitingMax });
          const granted: Array<{ account: string; leave: () => void }> = [];
          const pending: Array<{ account: string; abort: AbortController }> = [];
          const model = new Map<string, { running: number; waiting: number }>();
          const at = (account: string) => model.get(account) ?? { running: 0, waiting: 0 };
          const settle = () => new Promise((resolve) => setImmediate(resolve));
          for (const step of ops) {
            if (step.kind === 'enter') {
              const now = at(step.account);
              const abort = new AbortController();
              const entry = { account: step.account, abort };
              const refused = now.running >= running && now.waiting >= waitingMax;
              const promise = share.enter(step.account, abort.signal);
              if (refused) {
                await expect(promise).rejects.toMatchObject({ code: 'RATE_LIMITED' });
                continue;
              }
              pending.push(entry);
              void promise.then(
                (leave) => {
                  pending.splice(pending.indexOf(entry), 1);
                  granted.push({ account: step.account, leave });
                },
                () => pending.splice(pending.indexOf(entry), 1),
              );
              model.set(
                step.account,
                now.running < running
                  ? { ...now, running: now.running + 1 }
                  : { ...now, waiting: now.waiting + 1 },
              );
            } else if (step.kind === 'leave' && granted.length > 0) {
              const [done] = granted.splice(step.pick % granted.length, 1);
              done!.leave();
              const now = at(done!.account);
              model.set(
                done!.account,
                now.waiting > 0 ? { ...now, waiting: now.waiting - 1 } : { ...now, running: now.running - 1 },
              );
            } else if (step.kind === 'abort' && pending.length > 0) {
              // After each step settles, \`pending\` holds exactly the requests still waiting.
              const victim = pending[step.pick % pending.length]!;
              victim.abort.abort(new Error('gone'));
              const now = at(victim.account);
              model.set(victim.account, { ...now, waiting: now.waiting - 1 });
            }
            await settle();
            for (const account of ['a', 'b']) {
              expect(share.heldBy(account)).toEqual(at(account));
              expect(share.heldBy(account).running).toBeLessThanOrEqual(running);
              expect(share.heldBy(account).waiting).toBeLessThanOrEqual(waitingMax);
            }
          }
          for (const { leave } of granted.splice(0)) leave();
          for (const p of pending.splice(0)) p.abort.abort(new Error('end'));
          await settle();
          for (const { leave } of granted.splice(0)) leave();
          await settle();
          for (const { leave } of granted.splice(0)) leave();
          expect(share.size).toBe(0);
        },
      ),
      { numRuns: 100 },
    );
  });
});

describe('the account share over HTTP', () => {
  let h: HttpHarness;
  let alice: TestAccount;
  let bob: TestAccount;
  let share: AccountShare;
  const open: ClientRequest[] = [];

  beforeAll(async () => {
    share = new AccountShare({ running: 2, waiting: 1 });
    h = await HttpHarness.start({ app: { accountShare: share } });
    alice = await h.account('alice');
    bob = await h.account('bob');
  });
  afterAll(async () => {
    for (const req of open) req.destroy();
    await h?.close();
  });

  /** A request of `key` whose JSON body is half sent: it holds its running place until `finish`. */
  function halfSent(key: string): { finish(): Promise<number>; req: ClientRequest } {
    const body = JSON.stringify({ name: `p-${Math.random().toString(36).slice(2)}` });

    const req = request(`${h.url}/api/projects`, {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${key}`,
        'Content-Type': 'application/json',
        'Content-Length': String(body.length),
      },
    });
    const status = new Promise<number>((resolve, reject) => {
      req.on('response', (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
    });
    // A request the test destroys ends in an error nobody waits for.
    status.catch(() => {});
    req.write(body.slice(0, 5));
    open.push(req);
    return {
      req,
      finish: () => {
        req.end(body.slice(5));
        return status;
      },
    };
  }

  it('holds one account to its running places and queue, and never makes another account wait', async () => {
    const a1 = halfSent(alice.apiKey);
    const a2 = halfSent(alice.apiKey);
    await until(() => share.heldBy(alice.accountId).running === 2, 'two running');
    const a3 = h.fetch('/api/projects', { key: alice.apiKey });
    await until(() => share.heldBy(alice.accountId).waiting === 1, 'one waiting');

    const refused = await h.fetch('/api/projects', { key: alice.apiKey });
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(((await refused.json()) as { detail: string }).detail).toMatch(/Try again/);
    // MCP counts in the same share.
    const mcp = await h.fetch('/mcp', {
      method: 'POST',
      key: alice.apiKey,
      headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
    });
    expect(mcp.status).toBe(429);
    // Held change reads are not counted: alice's feed still answers.
    expect((await h.fetch('/api/changes', { key: alice.apiKey })).status).toBe(200);
    // Bob is not behind alice.
    expect((await h.fetch('/api/projects', { key: bob.apiKey })).status).toBe(200);

    expect(await a1.finish()).toBe(201);
    expect((await a3).status).toBe(200);
    // A client that goes away gives its place back.
    a2.req.destroy();
    await until(() => share.heldBy(alice.accountId).running === 0, 'all given back');
    expect(share.size).toBe(0);
  });
});
