import type { Clock } from '../ports/runtime.js';
import type { TargetCheck, WebhookPost, WebhookPostResult, WebhookTransport } from '../ports/webhooks.js';

/** A TEST DOUBLE of the webhook transport: records every post and answers what `respond` says. */
export class TransportDouble implements WebhookTransport {
  readonly posts: WebhookPost[] = [];
  respond: (post: WebhookPost) => Promise<WebhookPostResult> | WebhookPostResult = () => ({ status: 200 });
  check: (url: string) => TargetCheck = () => ({ allowed: true });
  /** The most posts in flight at once to one URL. */
  maxInFlight = 0;
  private readonly inFlight = new Map<string, number>();

  async checkTarget(url: string): Promise<TargetCheck> {
    return this.check(url);
  }

  async post(post: WebhookPost): Promise<WebhookPostResult> {
    this.posts.push(post);
    const now = (this.inFlight.get(post.url) ?? 0) + 1;
    this.inFlight.set(post.url, now);
    this.maxInFlight = Math.max(this.maxInFlight, now);
    try {
      return await this.respond(post);
    } finally {
      this.inFlight.set(post.url, (this.inFlight.get(post.url) ?? 1) - 1);
    }
  }

  /** The event `seq` of each post, in order (from its `webhook-id`). */
  seqs(url?: string): number[] {
    return this.posts
      .filter((p) => url === undefined || p.url === url)
      .map((p) => Number(p.headers['webhook-id']?.split('_').at(-1)));
  }
}

/** A clock tests move by hand. */
export class ManualClock implements Clock {
  constructor(public time: number) {}
  now(): number {
    return this.time;
  }
  advance(ms: number): void {
    this.time += ms;
  }
}
