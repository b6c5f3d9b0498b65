import * as v from 'valibot';
import { WEBHOOK_LIMITS } from '../defaults/webhooks.js';
import { InvalidInputError } from '../errors.js';
import { isEventFilter } from '../use-cases/webhooks/events.js';
import { issueAt, toValidationIssues } from './issues.js';
import { isJsonObject, UuidSchema } from './schemas.js';

const URL_MESSAGE = 'Value error, url must be an absolute http or https URL';
const URL_LENGTH_MESSAGE = `Value error, url must be at most ${WEBHOOK_LIMITS.urlMaxBytes} bytes`;
const EVENTS_MESSAGE = "Value error, an event type (e.g. 'file.created') or a family ('file.*')";

const isHttpUrl = (text: string): boolean => {
  if (!URL.canParse(text)) return false;
  const url = new URL(text);
  return (
    (url.protocol === 'http:' || url.protocol === 'https:') &&
    url.hostname !== '' &&
    // No credentials: neither a user nor a password (`http://:pw@host/` has only the latter).
    url.username === '' &&
    url.password === ''
  );
};

/** A webhook's URL (extensions §7): absolute `http(s)`, no credentials, at most 2048 bytes. */
export const WebhookUrlSchema = v.pipe(
  v.string(),
  v.check((text) => new TextEncoder().encode(text).length <= WEBHOOK_LIMITS.urlMaxBytes, URL_LENGTH_MESSAGE),
  v.check(isHttpUrl, URL_MESSAGE),
  v.metadata({ format: 'uri' }),
);

/** Create Webhook body, as parsed and as documented. */
export const CreateWebhookBodySchema = v.looseObject({
  url: WebhookUrlSchema,
  events: v.optional(
    v.pipe(
      v.array(v.pipe(v.string(), v.check(isEventFilter, EVENTS_MESSAGE)), 'Input should be a valid list'),
      v.maxLength(20, 'List should have at most 20 items after validation'),
    ),
    [],
  ),
  project_id: v.optional(v.nullable(UuidSchema), null),
});

export interface CreateWebhookInput {
  readonly url: string;
  /** Without repeats; empty: every event. */
  readonly events: readonly string[];
  readonly projectId: string | null;
}

/** Create Webhook body: every problem is 422 at its field. */
export function parseCreateWebhookBody(body: unknown): CreateWebhookInput {
  if (!isJsonObject(body)) throw new InvalidInputError([issueAt(['body'], 'objectType')]);
  if (!('url' in body)) throw new InvalidInputError([issueAt(['body', 'url'], 'missing')]);
  const result = v.safeParse(CreateWebhookBodySchema, body, { abortPipeEarly: true });
  if (!result.success) throw new InvalidInputError(toValidationIssues(result.issues, ['body']));
  const { url, events, project_id } = result.output;
  return { url, events: [...new Set(events)], projectId: project_id };
}
