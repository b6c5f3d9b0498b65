import { describe, expect, it } from 'vitest';
import {
  changeEventView,
  isEventFilter,
  matchesEventFilters,
  newWebhookSecret,
  signWebhook,
  webhookPayload,
} from '../../src/index.js';

// The published vectors of Standard Webhooks (libraries/javascript/src/webhook.test.ts, "sign function
// works", and the same id, payload and secret its other tests sign).
const VECTOR = {
  secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  id: 'msg_p5jXN8AQM9LWM0D4loKWxJek',
  timestampSeconds: 1614265330,
  body: '{"test": 2432232314}',
  signature: 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
};

describe('Standard Webhooks signing', () => {
  it('matches the published signature vector', () => {
    expect(signWebhook(VECTOR)).toBe(VECTOR.signature);
  });

  it('keys with the decoded secret, with or without its prefix, and signs id, timestamp and body', () => {
    expect(signWebhook({ ...VECTOR, secret: VECTOR.secret.slice('whsec_'.length) })).toBe(VECTOR.signature);
    expect(signWebhook({ ...VECTOR, id: 'msg_other' })).not.toBe(VECTOR.signature);
    expect(signWebhook({ ...VECTOR, timestampSeconds: VECTOR.timestampSeconds + 1 })).not.toBe(
      VECTOR.signature,
    );
    expect(signWebhook({ ...VECTOR, body: '{"test": 2432232315}' })).not.toBe(VECTOR.signature);
  });

  it('makes whsec_ secrets of 24 random bytes that differ', () => {
    const a = newWebhookSecret(24);
    const b = newWebhookSecret(24);
    expect(a).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    expect(Buffer.from(a.slice(6), 'base64')).toHaveLength(24);
    expect(a).not.toBe(b);
  });
});

describe('event filters and the payload', () => {
  it('knows types and families, nothing else', () => {
    for (const good of ['file.created', 'file.*', 'project.*', '*', 'project.deleted'])
      expect(isEventFilter(good)).toBe(true);
    for (const bad of ['file', 'file.', 'files.*', 'file.exploded', '', '**'])
      expect(isEventFilter(bad)).toBe(false);
  });

  it('matches an event by type or family; no filter matches all', () => {
    expect(matchesEventFilters([], 'project.deleted')).toBe(true);
    expect(matchesEventFilters(['file.*'], 'file.moved')).toBe(true);
    expect(matchesEventFilters(['file.*'], 'project.created')).toBe(false);
    expect(matchesEventFilters(['project.deleted', 'file.created'], 'file.created')).toBe(true);
    expect(matchesEventFilters(['project.deleted'], 'project.updated')).toBe(false);
  });

  it('shows an event as §7 says, inside {type, timestamp, data}', () => {
    const event = {
      accountId: 'acc',
      seq: 42,
      type: 'file.moved' as const,
      projectId: 'p',
      filename: 'b.md',
      from: 'a.md',
      revision: 3,
      etag: '"x"',
      sizeBytes: 10,
      sha256: 'f'.repeat(64),
      changesetId: null,
      at: Date.UTC(2026, 0, 2, 3, 4, 5, 6),
    };
    const data = {
      seq: 42,
      type: 'file.moved',
      project_id: 'p',
      filename: 'b.md',
      from: 'a.md',
      revision: 3,
      etag: '"x"',
      size_bytes: 10,
      sha256: 'f'.repeat(64),
      changeset_id: null,
      date: '2026-01-02T03:04:05.006Z',
    };
    expect(changeEventView(event)).toEqual(data);
    expect(JSON.parse(webhookPayload(event))).toEqual({
      type: 'file.moved',
      timestamp: '2026-01-02T03:04:05.006Z',
      data,
    });
    expect(Object.keys(changeEventView(event))).not.toContain('accountId');
  });
});
