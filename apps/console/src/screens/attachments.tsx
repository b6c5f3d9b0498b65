import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, can, formatBytes, getJson, type Me, request, seg } from '../api';
import { useLiveVersion } from '../live';
import { Pager } from '../pager';
import { attachmentsPrefix, loadAttachmentImages, PENDING } from '../rendered';
import { href } from '../route';
import { useLoad } from '../use-load';

/** Attachments per page of the panel (the API's cursors walk the rest). */
export const ATTACHMENTS_PAGE = 50;

export interface Attachment {
  path: string;
  project_id: string;
  size_bytes: number;
  content_type: string;
  etag: string;
  updated_date: string;
}

interface AttachmentPage {
  attachments: Attachment[];
  folders?: string[];
  next_cursor: string | null;
}

const attachmentUrl = (projectId: string, path: string) => `${attachmentsPrefix(projectId)}${seg(path)}`;

function loadAttachments(projectId: string, dir: string, cursor: string | null, signal: AbortSignal) {
  const query = new URLSearchParams({ limit: String(ATTACHMENTS_PAGE), delimiter: '/' });
  if (dir !== '') query.set('prefix', dir);
  if (cursor) query.set('cursor', cursor);
  return getJson<AttachmentPage>(`/api/projects/${projectId}/attachments?${query}`, { signal });
}

/**
 * Writes one attachment: its raw bytes with the file's type (`PUT`, extensions §12). The server's
 * message is the answer's when it refuses (413 too large, 415 bytes not of the type, 409 a `.md` name).
 */
export async function putAttachment(projectId: string, path: string, file: File): Promise<void> {
  await request(attachmentUrl(projectId, path), {
    method: 'PUT',
    headers: { 'Content-Type': file.type || 'application/octet-stream' },
    body: file,
  });
}

/** Saves an attachment read with the key under its name (a link could not carry the key). */
async function download(projectId: string, path: string): Promise<void> {
  const blob = await (await request(attachmentUrl(projectId, path))).blob();
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = path.slice(path.lastIndexOf('/') + 1);
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

const errorOf = (caught: unknown) => (caught instanceof ApiError ? caught.detail : String(caught));

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
        failed.push(`${file.name}: ${errorOf(caught)}`);
      }
    }
    const done = files.length - failed.length;
    setStatus(`Uploaded ${done} attachment(s).${failed.length ? ` Refused: ${failed.join('; ')}` : ''}`);
    setTick((t) => t + 1);
  };
  const remove = async (path: string) => {
    try {
      await request(attachmentUrl(projectId, path), { method: 'DELETE' });
      setStatus(`Deleted ${path}.`);
      setTick((t) => t + 1);
    } catch (caught) {
      setStatus(`Not deleted: ${errorOf(caught)}`);
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
      {image && <img alt={name} {...{ [PENDING]: attachmentUrl(projectId, item.path) }} />}
      <span>
        {name}{' '}
        <span class="muted">
          ({item.content_type}, {formatBytes(item.size_bytes)})
        </span>
      </span>
      <button
        type="button"
        onClick={() => void download(projectId, item.path).catch((caught) => setProblem(errorOf(caught)))}
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
