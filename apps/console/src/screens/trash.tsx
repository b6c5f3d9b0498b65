import type { TrashItem } from '@mdstore/client';
import { useState } from 'preact/hooks';
import { can, errorText, formatBytes, type Me, sdk } from '../api';
import { useLiveVersion } from '../live';
import { go, href } from '../route';
import { useLoad } from '../use-load';

/** The project's trash: restore (write keys) and purge. */
export function TrashScreen({ me, projectId }: { me: Me; projectId: string }) {
  const live = useLiveVersion(projectId);
  const { data, error, reload } = useLoad(
    (signal) => sdk().trash.list(projectId, { limit: 100, signal }),
    [projectId, live],
  );
  const [status, setStatus] = useState('');
  const act = async (item: TrashItem, purge: boolean) => {
    try {
      if (purge) {
        await sdk().trash.delete(projectId, item.trash_id);
        setStatus(`${item.filename} purged.`);
        reload();
      } else {
        const restored = await sdk().trash.restore(projectId, item.trash_id);
        // A file opens; an attachment (extensions §12, no screen of its own) is back at its path.
        if ('filename' in restored) go(href.file(projectId, restored.filename));
        else {
          setStatus(`${item.filename} restored.`);
          reload();
        }
      }
    } catch (caught) {
      setStatus(errorText(caught));
    }
  };
  return (
    <section aria-labelledby="trash-title">
      <h1 id="trash-title">Trash</h1>
      {error && <p role="alert">{error}</p>}
      {data && data.total_count === 0 && (
        <p>
          The trash is empty. Deleted files are kept here when the project's trash retention is above 0 days.
        </p>
      )}
      <table class="list">
        <thead>
          <tr>
            <th scope="col">File</th>
            <th scope="col">Size</th>
            <th scope="col">Deleted</th>
            <th scope="col">Expires</th>
            {can(me, 'write') && <th scope="col">Actions</th>}
          </tr>
        </thead>
        <tbody>
          {data?.trash.map((item) => (
            <tr key={item.trash_id}>
              <td>{item.filename}</td>
              <td>{formatBytes(item.size_bytes)}</td>
              <td>{new Date(item.deleted_date).toLocaleString()}</td>
              <td>{new Date(item.expires_date).toLocaleString()}</td>
              {can(me, 'write') && (
                <td>
                  <button type="button" onClick={() => act(item, false)}>
                    Restore {item.filename}
                  </button>{' '}
                  <button type="button" class="danger" onClick={() => act(item, true)}>
                    Purge {item.filename}
                  </button>
                </td>
              )}
            </tr>
          ))}
        </tbody>
      </table>
      <p role="status">{status}</p>
    </section>
  );
}
