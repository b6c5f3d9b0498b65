/**
 * Webhook delivery's reach to the network (extensions §7), implemented at the edge (the server: DNS,
 * address classification, HTTP). The core decides what to send and when; the transport decides whether
 * a host may be called, and calls it.
 */

/** Whether a URL's host may be called now: every address it resolves to is allowed. */
export type TargetCheck = { readonly allowed: true } | { readonly allowed: false; readonly reason: string };

export interface WebhookPost {
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
  readonly timeoutMs: number;
}

/** An answer: its status; or why there was none (refused target, connection error, timeout). */
export type WebhookPostResult = { readonly status: number } | { readonly error: string };

export interface WebhookTransport {
  /** Resolves the host and checks every address (loopback, private, link-local, metadata… are refused). */
  checkTarget(url: string): Promise<TargetCheck>;
  /**
   * POSTs once: resolves and checks the host again (a later DNS answer may differ), connects to the
   * checked address (no second lookup), follows no redirect, gives up after `timeoutMs`. Never throws.
   */
  post(request: WebhookPost): Promise<WebhookPostResult>;
}
