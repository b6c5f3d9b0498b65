import { describe, expect, it } from 'vitest';
import { runWithHarness } from './harness.js';

function recordingHarness(cleanupError?: Error) {
  const events: string[] = [];
  const open = async () => {
    events.push('open');
    return {
      cleanup: async () => {
        events.push('cleanup');
        if (cleanupError) throw cleanupError;
      },
    };
  };
  return { events, open };
}

describe('runWithHarness', () => {
  it('opens, runs the body, then cleans up', async () => {
    const { events, open } = recordingHarness();
    await runWithHarness(open, async () => {
      events.push('body');
    });
    expect(events).toEqual(['open', 'body', 'cleanup']);
  });

  it('cleans up after a failing body and rethrows the same error', async () => {
    const { events, open } = recordingHarness();
    const failure = new Error('assertion failed');
    await expect(
      runWithHarness(open, async () => {
        throw failure;
      }),
    ).rejects.toBe(failure);
    expect(events).toEqual(['open', 'cleanup']);
  });

  it("reports the body's failure rather than a cleanup failure", async () => {
    const { open } = recordingHarness(new Error('cleanup failed'));
    const failure = new Error('assertion failed');
    await expect(
      runWithHarness(open, async () => {
        throw failure;
      }),
    ).rejects.toBe(failure);
  });

  it('reports a cleanup failure after a passing body', async () => {
    const cleanupError = new Error('cleanup failed');
    const { open } = recordingHarness(cleanupError);
    await expect(runWithHarness(open, async () => {})).rejects.toBe(cleanupError);
  });
});
