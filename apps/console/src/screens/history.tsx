import type { Revision } from '@mdstore/client';
import { useState } from 'preact/hooks';
import { can, errorText, formatBytes, isStatus, type Me, sdk } from '../api';
import { DiffView } from '../diff';
import { useLoad } from '../use-load';

/**
 * Who wrote a revision, as the console can say it: "you" for the signed-in key, else the key's id
 * (shortened: a key that is not admin cannot look up other keys' names), or "unknown".
 */
export const authorOf = (me: Pick<Me, 'id'>, keyId: string | null | undefined): string =>
  keyId === null || keyId === undefined ? 'unknown' : keyId === me.id ? 'you' : `key ${keyId.slice(0, 8)}`;

/** What a revision's change is, with a changeset's message when it has one. */
export const changeOf = (revision: Pick<Revision, 'change' | 'message'>): string =>
  revision.message ? `${revision.change} (${revision.message})` : revision.change;

/** A file's revisions, the diff between any two, and restore (extensions §5). */
export function HistoryPanel(props: {
  me: Me;
  projectId: string;
  filename: string;
  etag: string;
  onRestored: () => void;
}) {
  const { me, projectId, filename, etag, onRestored } = props;
  const { data, error } = useLoad(
    (signal) =>
      sdk()
        .history.listRevisions(projectId, filename, { limit: 100, signal })
        .then((a) => a.revisions),
    [projectId, filename, etag],
  );
  const [from, setFrom] = useState<number | null>(null);
  const [to, setTo] = useState<number | null>(null);
  const [diff, setDiff] = useState<string | null>(null);
  const [status, setStatus] = useState('');
  const revisions = data ?? [];
  const newest = revisions[0]?.revision;
  const oldest = revisions[1]?.revision ?? newest;
  const chosenFrom = from ?? oldest;
  const chosenTo = to ?? newest;

  const showDiff = async () => {
    if (chosenFrom === undefined || chosenTo === undefined) return;
    try {
      setDiff(await sdk().history.diff(projectId, filename, chosenFrom, { to: chosenTo }));
      setStatus('');
    } catch (caught) {
      if (!isStatus(caught, 404, 413)) throw caught;
      setDiff(null);
      setStatus(`No diff: ${caught.status === 413 ? 'too large' : 'revision not found'}`);
    }
  };
  const restore = async (revision: number) => {
    try {
      await sdk().history.restore(projectId, filename, revision, { ifMatch: etag });
      setStatus(`Revision ${revision} restored.`);
      onRestored();
    } catch (caught) {
      setStatus(`Not restored: ${errorText(caught)}`);
    }
  };
  const select = (label: string, value: number | undefined, set: (n: number) => void) => (
    <label>
      {label}
      <select value={value} onChange={(e) => set(Number((e.currentTarget as HTMLSelectElement).value))}>
        {revisions.map((r) => (
          <option key={r.revision} value={r.revision}>
            {r.revision}
          </option>
        ))}
      </select>
    </label>
  );
  return (
    <section aria-labelledby="history-title" class="history">
      <h2 id="history-title">History</h2>
      {error && <p role="alert">{error}</p>}
      <table class="list">
        <thead>
          <tr>
            <th scope="col">Revision</th>
            <th scope="col">Change</th>
            <th scope="col">By</th>
            <th scope="col">Size</th>
            <th scope="col">Date</th>
            {can(me, 'write') && <th scope="col">Action</th>}
          </tr>
        </thead>
        <tbody>
          {revisions.map((r) => (
            <tr key={r.revision}>
              <td>{r.revision}</td>
              <td>{changeOf(r)}</td>
              <td title={r.key_id ?? undefined}>{authorOf(me, r.key_id)}</td>
              <td>{formatBytes(r.size_bytes)}</td>
              <td>{new Date(r.created_date).toLocaleString()}</td>
              {can(me, 'write') && (
                <td>
                  {r.revision !== newest && (
                    <button type="button" onClick={() => restore(r.revision)}>
                      Restore revision {r.revision}
                    </button>
                  )}
                </td>
              )}
            </tr>
          ))}
        </tbody>
      </table>
      {revisions.length > 1 && (
        <div class="inline">
          {select('From revision', chosenFrom, setFrom)}
          {select('To revision', chosenTo, setTo)}
          <button type="button" onClick={showDiff}>
            Show diff
          </button>
        </div>
      )}
      <p role="status">{status}</p>
      {diff !== null && <DiffView text={diff} label={`Changes from revision ${chosenFrom} to ${chosenTo}`} />}
    </section>
  );
}
