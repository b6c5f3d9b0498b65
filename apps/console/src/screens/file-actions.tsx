import { useState } from 'preact/hooks';
import { errorText, type Me, sdk } from '../api';
import { folderOf, go, href } from '../route';

/**
 * Move (rename) and delete, for write keys. The server that serves the console always has move with
 * `rewrite_links` (extensions §9), so the choice is always offered (checked: links to the file keep
 * working) and always sent, with no probing of the OpenAPI document.
 */
export function FileActions({
  projectId,
  filename,
  etag,
}: {
  me: Me;
  projectId: string;
  filename: string;
  etag: string;
}) {
  const [confirming, setConfirming] = useState(false);
  const [status, setStatus] = useState('');
  const move = async (event: Event) => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const to = (form.elements.namedItem('to') as HTMLInputElement).value.trim();
    const rewrite = (form.elements.namedItem('rewrite') as HTMLInputElement).checked;
    try {
      const moved = await sdk().history.move(projectId, filename, to, {
        rewriteLinks: rewrite,
        ifMatch: etag,
      });
      go(href.file(projectId, moved.filename));
    } catch (caught) {
      setStatus(`Not moved: ${errorText(caught)}`);
    }
  };
  const remove = async () => {
    try {
      await sdk().files.delete(projectId, filename, { ifMatch: etag });
      go(href.folder(projectId, folderOf(filename)));
    } catch (caught) {
      setStatus(`Not deleted: ${errorText(caught)}`);
    }
  };
  return (
    <section aria-labelledby="actions-title" class="actions">
      <h2 id="actions-title">Move or delete</h2>
      <form class="inline" onSubmit={move}>
        <label for="move-to">New name</label>
        <input id="move-to" name="to" required defaultValue={filename} />
        <label>
          <input type="checkbox" name="rewrite" defaultChecked />
          Rewrite links to it
        </label>
        <button type="submit">Move</button>
      </form>
      {confirming ? (
        <div class="inline">
          <span>Delete {filename}?</span>
          <button type="button" class="danger" onClick={remove}>
            Confirm delete
          </button>
          <button type="button" onClick={() => setConfirming(false)}>
            Keep it
          </button>
        </div>
      ) : (
        <button type="button" onClick={() => setConfirming(true)}>
          Delete
        </button>
      )}
      <p role="status">{status}</p>
    </section>
  );
}
