import type { Attachment } from '@mdstore/client';
import { useEffect, useRef, useState } from 'preact/hooks';
import { can, errorText, formatBytes, type Me, sdk } from '../api';
import { useLiveVersion } from '../live';
import { Pager } from '../pager';
import { attachmentSrc, loadAttachmentImages, PENDING } from '../rendered';
import { href } from '../route';
import { useLoad } from '../use-load';

/** Attachments per page of the panel (the API's cursors walk the rest). */
export const ATTACHMENTS_PAGE = 50;

function loadAttachments(projectId: string, dir: string, cursor: string | null, signal: AbortSignal) {
  return sdk().attachments.list(projectId, {
    limit: ATTACHMENTS_PAGE,
    delimiter: '/',
    ...(dir !== '' && { prefix: dir }),
    cursor,
    signal,
  });
}

/**
 * Writes one attachment: its raw bytes with the file's type (`PUT`, extensions §12). The server's
 * message is the answer's when it refuses (413 too large, 415 bytes not of the type, 409 a `.md` name).
 */
export async function putAttachment(projectId: string, path: string, file: File): Promise<void> {
  await sdk().attachments.write(projectId, path, file, file.type || 'application/octet-stream');
}

/** Saves an attachment read with the key under its name (a link could not carry the key). */
async function download(projectId: string, path: string): Promise<void> {
  const blob = await (await sdk().attachments.read(projectId, path)).blob();
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = path.slice(path.lastIndexOf('/') + 1);
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/**
 * The project's attachments in the folder shown (`dir`), a page at a time: images previewed inline
 * (read with the key, shown through object URLs revoked when the page changes), others downloaded on
 * demand. A write key uploads (drop onto the panel, or pick files) and deletes.
 */
export function AttachmentsPanel({ me, projectId, dir }: { me: Me; projectId: string; dir: string }) {
  const [cursors, setCursors] = useState<(string | null)[]>([null]);
  const cursor = cursors[cursors.length - 1] ?? null;
  const key = `${projectId}|${dir}`;
  const [pagedKey, setPagedKey] = useState(key);
  if (pagedKey !== key) {
    setPagedKey(key);
    setCursors([null]);
  }
  const live = useLiveVersion(projectId);
  const [tick, setTick] = useState(0);
  const { data, error } = useLoad(
    (signal) => loadAttachments(projectId, dir, cursor, signal),
    [key, cursor, live, tick],
  );
  const list = useRef<HTMLUListElement>(null);
  useEffect(() => {
    if (!list.current) return undefined;
    return loadAttachmentImages([...list.current.querySelectorAll<HTMLImageElement>('img')]);
  }, [data]);
  const [status, setStatus] = useState('');
  const [over, setOver] = useState(false);
  const writer = can(me, 'write');

  const upload = async (files: File[]) => {
    const failed: string[] = [];
    for (const file of files) {
      setStatus(`Uploading ${file.name}…`);
      try {
        await putAttachment(projectId, dir + file.name, file);
      } catch (caught) {
        failed.push(`${file.name}: ${errorText(caught)}`);
      }
    }
    const done = files.length - failed.length;
    setStatus(`Uploaded ${done} attachment(s).${failed.length ? ` Refused: ${failed.join('; ')}` : ''}`);
    setTick((t) => t + 1);
  };
  const remove = async (path: string) => {
    try {
      await sdk().attachments.delete(projectId, path);
      setStatus(`Deleted ${path}.`);
      setTick((t) => t + 1);
    } catch (caught) {
      setStatus(`Not deleted: ${errorText(caught)}`);
    }
  };
  const dropHandlers = writer
    ? {
        onDragOver: (e: DragEvent) => {
          e.preventDefault();
          setOver(true);
        },
        onDragLeave: () => setOver(false),
        onDrop: (e: DragEvent) => {
          e.preventDefault();
          setOver(false);
          if (e.dataTransfer) void upload([...e.dataTransfer.files]);
        },
      }
    : {};
  return (
    <section
      aria-labelledby="attachments-title"
      class={`attachments ${writer ? 'drop-target' : ''} ${over ? 'over' : ''}`}
      {...dropHandlers}
    >
      <h2 id="attachments-title">Attachments</h2>
      {writer && (
        <>
          <p>Drop images, PDFs or other files here{dir ? ` (into ${dir})` : ''}, or pick them:</p>
          <label>
            Choose attachments to upload
            <input
              type="file"
              multiple
              onChange={(e) => {
                const input = e.currentTarget as HTMLInputElement;
                void upload([...(input.files ?? [])]).then(() => {
                  input.value = '';
                });
              }}
            />
          </label>
        </>
      )}
      <p role="status">{status}</p>
      {error && <p role="alert">{error}</p>}
      <ul class="entries" ref={list} aria-label="Attachments in this folder">
        {data?.folders?.map((folder) => (
          <li key={folder} class="folder">
            <a href={href.folder(projectId, folder)}>{folder.slice(dir.length)}</a>
          </li>
        ))}
        {data?.attachments.map((item) => (
          <AttachmentItem
            key={item.path}
            projectId={projectId}
            item={item}
            name={item.path.slice(dir.length)}
            onDelete={writer ? () => remove(item.path) : null}
          />
        ))}
      </ul>
      {data && data.attachments.length === 0 && !data.folders?.length && <p class="muted">None</p>}
      <Pager cursors={cursors} next={data?.next_cursor} setCursors={setCursors} />
    </section>
  );
}

function AttachmentItem(props: {
  projectId: string;
  item: Attachment;
  name: string;
  onDelete: (() => void) | null;
}) {
  const { projectId, item, name, onDelete } = props;
  const [confirming, setConfirming] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const image = item.content_type.startsWith('image/');
  return (
    <li>
      {image && <img alt={name} {...{ [PENDING]: attachmentSrc(projectId, item.path) }} />}
      <span>
        {name}{' '}
        <span class="muted">
          ({item.content_type}, {formatBytes(item.size_bytes)})
        </span>
      </span>
      <button
        type="button"
        onClick={() => void download(projectId, item.path).catch((caught) => setProblem(errorText(caught)))}
      >
        Download {name}
      </button>
      {onDelete &&
        (confirming ? (
          <>
            <button type="button" class="danger" onClick={onDelete}>
              Confirm delete {name}
            </button>
            <button type="button" onClick={() => setConfirming(false)}>
              Keep it
            </button>
          </>
        ) : (
          <button type="button" onClick={() => setConfirming(true)}>
            Delete {name}
          </button>
        ))}
      {problem && <span role="alert">{problem}</span>}
    </li>
  );
}
