import type { components, Draft, DraftDiff, DraftPublished, MergeConflict } from '@mdstore/client';
import { useState } from 'preact/hooks';
import { can, errorText, isStatus, type Me, sdk } from '../api';
import { DiffView, ScrollPre } from '../diff';
import { useLiveVersion } from '../live';
import { Pager } from '../pager';
import { href } from '../route';
import { useLoad } from '../use-load';

/** Drafts (extensions §13): the project's list, and one draft as a review. */

type DraftSummary = components['schemas']['DraftSummary'];
type DraftReview = Draft['reviews'][number];
type DraftFileDiff = DraftDiff['files'][number];
export type DraftState = DraftSummary['state'];
export type ConflictHunk = MergeConflict['hunks'][number];

/** Drafts per page of the list (the server's default; at most 100). */
export const DRAFTS_PAGE_SIZE = 20;

const STATE_LABELS: Readonly<Record<DraftState, string>> = {
  open: 'Open',
  published: 'Published',
  closed: 'Closed',
};

const VERDICT_LABELS: Readonly<Record<DraftReview['verdict'], string>> = {
  approve: 'Approved',
  request_changes: 'Changes requested',
};

/**
 * What the key may do to a draft, as the server decides (§13): reviewing and publishing need `write`;
 * closing needs `write`, or a `propose` key that wrote the draft. Nothing once it is no longer open.
 */
export function draftActions(me: Me, draft: Pick<DraftSummary, 'state' | 'author_key_id'>) {
  const open = draft.state === 'open';
  const writer = can(me, 'write');
  const author = me.id !== null && me.id === draft.author_key_id && can(me, 'propose');
  return { review: open && writer, publish: open && writer, close: open && (writer || author) };
}

/** A key as the review screen names it: "you" for the signed-in key, else its id. */
const keyName = (me: Me, keyId: string | null) =>
  keyId === null ? 'an unknown key' : keyId === me.id ? `you (${me.name ?? keyId})` : `key ${keyId}`;

/** The project's drafts, newest first, filtered by state and paged with the API's cursors. */
export function DraftsScreen({ me, projectId }: { me: Me; projectId: string }) {
  const [state, setState] = useState<DraftState | ''>('open');
  const [cursors, setCursors] = useState<(string | null)[]>([null]);
  const cursor = cursors[cursors.length - 1] ?? null;
  const live = useLiveVersion(projectId);
  const { data, error } = useLoad(
    (signal) =>
      sdk().drafts.list(
        projectId,
        {
          limit: DRAFTS_PAGE_SIZE,
          ...(state !== '' && { state }),
          ...(cursor && { cursor }),
        },
        { signal },
      ),
    [projectId, state, cursor, live],
  );
  const page = cursors.length;
  return (
    <section aria-labelledby="drafts-title">
      <h1 id="drafts-title">Drafts</h1>
      <p class="muted">
        Proposed changes to several files, kept apart until a write key publishes them.
        {!can(me, 'write') && ' Your key may read them; publishing needs a write key.'}
      </p>
      <div class="inline">
        <label for="draft-state">State</label>
        <select
          id="draft-state"
          value={state}
          onChange={(e) => {
            setState((e.currentTarget as HTMLSelectElement).value as DraftState | '');
            setCursors([null]);
          }}
        >
          <option value="open">Open</option>
          <option value="published">Published</option>
          <option value="closed">Closed</option>
          <option value="">Any state</option>
        </select>
      </div>
      {error && <p role="alert">{error}</p>}
      {data && data.drafts.length === 0 && page === 1 && (
        <p>No {state === '' ? '' : `${STATE_LABELS[state].toLowerCase()} `}drafts.</p>
      )}
      {data && data.drafts.length > 0 && (
        <table class="list">
          <thead>
            <tr>
              <th scope="col">Title</th>
              <th scope="col">State</th>
              <th scope="col">Author</th>
              <th scope="col">Updated</th>
            </tr>
          </thead>
          <tbody>
            {data.drafts.map((draft) => (
              <tr key={draft.id}>
                <td>
                  <a href={href.draft(projectId, draft.id)}>{draft.title}</a>
                </td>
                <td>{STATE_LABELS[draft.state]}</td>
                <td>{keyName(me, draft.author_key_id)}</td>
                <td>{new Date(draft.updated_date).toLocaleString()}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <p class="muted" aria-live="polite">
        {data ? `page ${page}` : 'Loading…'}
      </p>
      <Pager cursors={cursors} next={data?.next_cursor} setCursors={setCursors} />
    </section>
  );
}

/** One draft as a review: what it changes, its reviews, and (as the key may) review, close, publish. */
export function DraftScreen({ me, projectId, draftId }: { me: Me; projectId: string; draftId: string }) {
  const live = useLiveVersion(projectId);
  const {
    data: draft,
    error,
    reload,
  } = useLoad((signal) => sdk().drafts.get(projectId, draftId, { signal }), [projectId, draftId, live]);
  const [conflicts, setConflicts] = useState<readonly MergeConflict[] | null>(null);
  const [published, setPublished] = useState<DraftPublished | null>(null);
  const [status, setStatus] = useState('');
  const [busy, setBusy] = useState(false);
  const actions = draft ? draftActions(me, draft) : { review: false, publish: false, close: false };

  /** Runs one action; true when the server took it. */
  const act = async (what: string, run: () => Promise<void>): Promise<boolean> => {
    setBusy(true);
    setStatus(`${what}…`);
    try {
      await run();
      return true;
    } catch (caught) {
      setStatus(`${what} refused: ${errorText(caught)}`);
      return false;
    } finally {
      setBusy(false);
      reload();
    }
  };
  const review = (verdict: DraftReview['verdict'], comment: string) =>
    act(verdict === 'approve' ? 'Approve' : 'Request changes', async () => {
      await sdk().drafts.review(projectId, draftId, { verdict, comment });
      setStatus(verdict === 'approve' ? 'Approved.' : 'Changes requested.');
    });
  const close = () =>
    act('Close', async () => {
      await sdk().drafts.close(projectId, draftId);
      setStatus('Closed: nothing was published.');
    });
  const publish = () =>
    act('Publish', async () => {
      let done: DraftPublished;
      try {
        done = await sdk().drafts.publish(projectId, draftId);
      } catch (caught) {
        if (!isStatus(caught, 409)) throw caught;
        if (caught.conflicts) {
          setConflicts(caught.conflicts);
          setStatus('Not published: the draft conflicts with changes made since. Nothing changed.');
        } else {
          setStatus(`Publish refused: ${errorText(caught)}`);
        }
        return;
      }
      setConflicts(null);
      setPublished(done);
      setStatus('Published.');
    });

  return (
    <section aria-labelledby="draft-title">
      <p>
        <a href={href.drafts(projectId)}>All drafts</a>
      </p>
      <h1 id="draft-title">{draft ? `Draft: ${draft.title}` : 'Draft'}</h1>
      {error && <p role="alert">{error}</p>}
      {draft && (
        <>
          <dl class="counters">
            <dt>State</dt>
            <dd>{STATE_LABELS[draft.state]}</dd>
            <dt>Author</dt>
            <dd>{keyName(me, draft.author_key_id)}</dd>
            <dt>Opened</dt>
            <dd>{new Date(draft.created_date).toLocaleString()}</dd>
            <dt>Updated</dt>
            <dd>{new Date(draft.updated_date).toLocaleString()}</dd>
          </dl>
          {draft.description && <p class="description">{draft.description}</p>}
        </>
      )}
      {draft && (
        <DraftDiffs
          projectId={projectId}
          draftId={draftId}
          version={draft.updated_date}
          open={draft.state === 'open'}
        />
      )}
      {draft && <Reviews me={me} reviews={draft.reviews} />}
      {draft && (actions.review || actions.close || actions.publish) && (
        <DraftActions actions={actions} busy={busy} onReview={review} onClose={close} onPublish={publish} />
      )}
      <p role="status">{status}</p>
      {published && <PublishedReport projectId={projectId} published={published} />}
      {conflicts && <ConflictsReport conflicts={conflicts} />}
    </section>
  );
}

function DraftActions(props: {
  actions: ReturnType<typeof draftActions>;
  busy: boolean;
  onReview: (verdict: DraftReview['verdict'], comment: string) => Promise<boolean>;
  onClose: () => Promise<boolean>;
  onPublish: () => Promise<boolean>;
}) {
  const { actions, busy } = props;
  const [comment, setComment] = useState('');
  const [missing, setMissing] = useState(false);
  // The comment is kept when the server refuses the review.
  const send = (verdict: DraftReview['verdict']) =>
    void props.onReview(verdict, comment.trim()).then((taken) => taken && setComment(''));
  return (
    <section aria-labelledby="draft-actions-title" class="draft-actions">
      <h2 id="draft-actions-title">Review and publish</h2>
      {actions.review && (
        <div class="stack">
          <label for="review-comment">Review comment</label>
          <textarea
            id="review-comment"
            rows={3}
            value={comment}
            aria-describedby={missing ? 'review-comment-needed' : undefined}
            onInput={(e) => {
              setComment((e.currentTarget as HTMLTextAreaElement).value);
              setMissing(false);
            }}
          />
          {missing && (
            <p id="review-comment-needed" role="alert">
              Say what to change in the comment.
            </p>
          )}
        </div>
      )}
      <div class="inline">
        {actions.review && (
          <>
            <button type="button" disabled={busy} onClick={() => send('approve')}>
              Approve
            </button>
            <button
              type="button"
              disabled={busy}
              onClick={() => {
                if (comment.trim() === '') setMissing(true);
                else send('request_changes');
              }}
            >
              Request changes
            </button>
          </>
        )}
        {actions.publish && (
          <button type="button" disabled={busy} onClick={() => void props.onPublish()}>
            Publish
          </button>
        )}
        {actions.close && (
          <button type="button" class="danger" disabled={busy} onClick={() => void props.onClose()}>
            Close draft
          </button>
        )}
      </div>
    </section>
  );
}

function Reviews({ me, reviews }: { me: Me; reviews: DraftReview[] }) {
  return (
    <section aria-labelledby="reviews-title">
      <h2 id="reviews-title">Reviews</h2>
      {reviews.length === 0 ? (
        <p>No review yet.</p>
      ) : (
        <ul class="reviews">
          {reviews.map((r) => (
            <li key={r.id} class={`review ${r.verdict}`}>
              <strong>{VERDICT_LABELS[r.verdict]}</strong> by {keyName(me, r.key_id)},{' '}
              {new Date(r.created_date).toLocaleString()}
              {r.comment && <p class="comment">{r.comment}</p>}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

const opText = (file: DraftFileDiff) =>
  file.op === 'move'
    ? `moved to ${file.to}`
    : file.op === 'delete'
      ? 'deleted'
      : file.op === 'put'
        ? 'written'
        : 'edited';

/**
 * The draft's files with their diffs from their bases, a page at a time ("More files"). A file changed
 * since its base is marked stale while the draft is open (once published, its own publish changed it).
 */
function DraftDiffs(props: { projectId: string; draftId: string; version: string; open: boolean }) {
  const { projectId, draftId, version, open } = props;
  const [pages, setPages] = useState(1);
  const { data, error } = useLoad(
    async (signal) => {
      const files: DraftFileDiff[] = [];
      let cursor: string | null = null;
      for (let page = 0; page < pages; page++) {
        const answer: DraftDiff = await sdk().drafts.diff(projectId, draftId, cursor ? { cursor } : {}, {
          signal,
        });
        files.push(...answer.files);
        cursor = answer.next_cursor;
        if (cursor === null) break;
      }
      return { files, more: cursor !== null };
    },
    [projectId, draftId, version, pages],
  );
  return (
    <section aria-labelledby="changes-title">
      <h2 id="changes-title">Changes</h2>
      {error && <p role="alert">{error}</p>}
      {data?.files.length === 0 && <p>The draft changes no file yet.</p>}
      {data?.files.map((file) => {
        const stale = open && file.stale;
        return (
          <article key={file.filename} class="draft-file">
            <h3>
              {file.filename} <span class="muted">({opText(file)})</span>
              {stale && <span class="badge stale">stale</span>}
            </h3>
            {stale && (
              <p class="notice">
                Stale: {file.filename} changed since the draft was made; publishing merges both changes, or
                lists the conflicts.
              </p>
            )}
            {file.base_missing && (
              <p class="muted">Its base revision is no longer kept: the diff is from an empty text.</p>
            )}
            {file.diff_too_large || file.diff === null ? (
              <p class="muted">The diff is too large to show.</p>
            ) : (
              <DiffView text={file.diff} label={`Changes to ${file.filename}`} />
            )}
          </article>
        );
      })}
      {data?.more && (
        <button type="button" onClick={() => setPages(pages + 1)}>
          More files
        </button>
      )}
    </section>
  );
}

/** Where a conflict is: a line of the base, or (line 0) a metadata key. */
export const hunkPlace = (hunk: ConflictHunk) =>
  hunk.line === 0 ? 'Metadata' : `Line ${hunk.line} of the base`;

/** The three texts of a conflict, in the order shown. */
const SIDES = [
  ['base', 'Base'],
  ['current', 'Current'],
  ['draft', 'Draft'],
] as const;

function ConflictsReport({ conflicts }: { conflicts: readonly MergeConflict[] }) {
  return (
    <section aria-labelledby="conflicts-title" class="conflicts">
      <h2 id="conflicts-title">Conflicts</h2>
      <p>
        These changes overlap changes made to the files since the draft was made. Nothing was published:
        change the files or the draft, then publish again.
      </p>
      {conflicts.map((conflict) => (
        <article key={conflict.filename} aria-label={`Conflicts in ${conflict.filename}`}>
          <h3>{conflict.filename}</h3>
          {conflict.hunks.map((hunk, i) => {
            const where = `${conflict.filename}, ${hunkPlace(hunk).toLowerCase()}`;
            return (
              <div key={i} class="hunk">
                <h4>{hunkPlace(hunk)}</h4>
                <div class="sides">
                  {SIDES.map(([side, label]) => (
                    <div key={side} class={`side ${side}`}>
                      <p class="side-label">{label}</p>
                      <ScrollPre label={`${label}: ${where}`} class="side-text">
                        {hunk[side] === '' ? '(nothing)' : hunk[side]}
                      </ScrollPre>
                    </div>
                  ))}
                </div>
              </div>
            );
          })}
        </article>
      ))}
    </section>
  );
}

function PublishedReport({ projectId, published }: { projectId: string; published: DraftPublished }) {
  const merged = new Set(published.merged);
  return (
    <section aria-labelledby="published-title">
      <h2 id="published-title">Published</h2>
      <p>
        Changeset {published.changeset_id}: {published.files.length} file(s) changed
        {published.merged.length > 0 && `, ${published.merged.length} merged with changes made since`}.
      </p>
      <ul>
        {published.files.map((file) =>
          'deleted' in file ? (
            <li key={file.filename}>{file.filename} (deleted)</li>
          ) : (
            <li key={file.filename}>
              <a href={href.file(projectId, file.filename)}>{file.filename}</a> (revision {file.revision}
              {merged.has(file.filename) && ', merged'})
            </li>
          ),
        )}
      </ul>
    </section>
  );
}
