import type { ProjectRestoreResult } from '@mdstore/client';
import { useState } from 'preact/hooks';
import { errorText, sdk } from '../api';

/** A `datetime-local` value (the browser's local time) as an ISO 8601 instant. */
const instantOf = (local: string) => new Date(local).toISOString();

const REASONS = {
  history_pruned: 'its history does not reach that far',
  name_taken: 'its name of then is held by a file left as it is',
} as const;

/**
 * The project as it was (admin keys): a time, a preview (the dry run: what would be created, changed and
 * deleted), then "Restore" applies exactly that time as one changeset.
 */
export function RestorePanel({ projectId }: { projectId: string }) {
  const [asOf, setAsOf] = useState('');
  const [preview, setPreview] = useState<ProjectRestoreResult | null>(null);
  const [status, setStatus] = useState('');
  const [busy, setBusy] = useState(false);
  const send = async (dryRun: boolean) => {
    setBusy(true);
    setStatus(dryRun ? 'Working out the preview…' : 'Restoring…');
    try {
      const answer = await sdk().projects.restore(projectId, dryRun ? instantOf(asOf) : preview!.as_of, {
        dryRun,
      });
      if (dryRun) {
        setPreview(answer);
        setStatus('');
      } else {
        setPreview(null);
        const { created, changed, deleted } = answer.counts;
        setStatus(
          answer.changeset_id === null
            ? 'Nothing to restore: the files are as they were.'
            : `Restored: ${created} created, ${changed} changed, ${deleted} deleted.`,
        );
      }
    } catch (caught) {
      setStatus(errorText(caught));
    } finally {
      setBusy(false);
    }
  };
  const changes = preview ? preview.counts.created + preview.counts.changed + preview.counts.deleted : 0;
  return (
    <section aria-labelledby="restore-title">
      <h2 id="restore-title">Restore the project as it was</h2>
      <form
        class="inline"
        onSubmit={(event) => {
          event.preventDefault();
          void send(true);
        }}
      >
        <label for="restore-as-of">As of</label>
        <input
          id="restore-as-of"
          type="datetime-local"
          step="1"
          required
          value={asOf}
          onInput={(event) => {
            setAsOf((event.currentTarget as HTMLInputElement).value);
            setPreview(null);
          }}
        />
        <button type="submit" disabled={busy}>
          Preview
        </button>
      </form>
      {preview && (
        <section aria-labelledby="restore-preview-title">
          <h3 id="restore-preview-title">Preview</h3>
          <p>
            As of {new Date(preview.as_of).toLocaleString()}: {preview.counts.created} to create,{' '}
            {preview.counts.changed} to change, {preview.counts.deleted} to delete, {preview.counts.unchanged}{' '}
            unchanged, {preview.counts.unrecoverable} left as they are.
            {preview.truncated && ' Only the first 1000 of each list are shown.'}
          </p>
          <ul>
            {preview.created.map((f) => (
              <li key={`c ${f.filename}`}>Create {f.filename} (from the trash)</li>
            ))}
            {preview.changed.map((f) => (
              <li key={`u ${f.filename}`}>
                {f.from ? `Rename ${f.from} back to ${f.filename}` : `Change ${f.filename}`}
                {f.content || f.metadata
                  ? ` (${[f.content && 'content', f.metadata && 'metadata'].filter(Boolean).join(' and ')} of revision ${f.revision})`
                  : ''}
              </li>
            ))}
            {preview.deleted.map((f) => (
              <li key={`d ${f.filename}`}>Delete {f.filename}</li>
            ))}
            {preview.unrecoverable.map((f) => (
              <li key={`x ${f.filename}`}>
                Leave {f.filename}: {REASONS[f.reason]}
              </li>
            ))}
          </ul>
          <button
            type="button"
            class="danger"
            disabled={busy || changes === 0}
            onClick={() => void send(false)}
          >
            Restore
          </button>
        </section>
      )}
      <p role="status">{status}</p>
    </section>
  );
}
