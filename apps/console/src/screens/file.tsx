import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, type FileObject, fileObject, type Me, request, seg } from '../api';
import { ScrollPre } from '../diff';
import { useLiveVersion } from '../live';
import { folderOf, go, href } from '../route';
import { useLoad } from '../use-load';
import { EditPanel } from './edit';
import { FileActions } from './file-actions';
import { HistoryPanel } from './history';

export interface Loaded {
  readonly text: string;
  readonly etag: string;
  readonly html: string | null;
  readonly file: FileObject | null;
  readonly outline: { level: number; text: string }[];
}

export const filePath = (projectId: string, filename: string) =>
  `/api/projects/${projectId}/files/${seg(filename)}`;

/** The rendered HTML from `?format=html` (extensions §11), or null when the server has no renderer. */
async function renderedHtml(
  projectId: string,
  filename: string,
  signal: AbortSignal,
): Promise<string | null> {
  if (/\.mdx$/i.test(filename)) return null; // `.mdx` is shown as source.
  const response = await request(`${filePath(projectId, filename)}?format=html`, {
    headers: { Accept: 'text/html' },
    allow: [400, 404, 406, 415, 422],
    signal,
  });
  if (!response.ok || !(response.headers.get('content-type') ?? '').startsWith('text/html')) return null;
  return response.text();
}

export async function loadFile(projectId: string, filename: string, signal: AbortSignal): Promise<Loaded> {
  const raw = await request(filePath(projectId, filename), { signal });
  const text = await raw.text();
  const [html, file, outline] = await Promise.all([
    renderedHtml(projectId, filename, signal),
    fileObject(projectId, filename),
    request(`${filePath(projectId, filename)}/outline`, { signal, allow: [404, 413, 422] })
      .then((r) =>
        r.ok ? (r.json() as Promise<{ headings: { level: number; text: string }[] }>) : { headings: [] },
      )
      .then((o) => o.headings),
  ]);
  return { text, etag: raw.headers.get('etag') ?? '', html, file, outline };
}

/** `main` for one file: its rendered view, details, editor, history and actions. */
export function FileScreen(props: { me: Me; projectId: string; filename: string; anchor: string | null }) {
  const { me, projectId, filename, anchor } = props;
  const [editing, setEditing] = useState(false);
  const [tab, setTab] = useState<'view' | 'history'>('view');
  const live = useLiveVersion(projectId, filename);
  const [changedElsewhere, setChangedElsewhere] = useState(false);
  const editingRef = useRef(editing);
  editingRef.current = editing;
  const { data, error, loading, reload } = useLoad(
    (signal) => loadFile(projectId, filename, signal),
    [projectId, filename],
  );
  // A change that may concern this file: its ETag (a HEAD, no body) says whether it did. While the editor
  // is open the text stays as it was loaded (the save's If-Match is its ETag) and a notice says so.
  useEffect(() => {
    if (live === 0 || !data) return;
    void request(filePath(projectId, filename), { method: 'HEAD', allow: [404] }).then((response) => {
      if (response.headers.get('etag') === data.etag) return;
      if (editingRef.current) setChangedElsewhere(true);
      else reload();
    });
  }, [live]);
  if (error && !data) {
    return (
      <section>
        <h1>{filename}</h1>
        <p role="alert">{error}</p>
        <a href={href.folder(projectId, folderOf(filename))}>Back to the folder</a>
      </section>
    );
  }
  if (!data) return <p class="loading">Loading…</p>;
  return (
    <article aria-labelledby="file-title" class="file">
      <header class="file-head">
        <h1 id="file-title" class="filename">
          {filename}
        </h1>
        <p class="muted">
          revision {data.file?.revision ?? '?'} · {data.text.length.toLocaleString()} characters
        </p>
        <div class="toolbar">
          {me.role !== 'read' && !editing && (
            <button type="button" onClick={() => setEditing(true)} disabled={loading}>
              Edit
            </button>
          )}
          <button type="button" aria-pressed={tab === 'view'} onClick={() => setTab('view')}>
            View
          </button>
          <button type="button" aria-pressed={tab === 'history'} onClick={() => setTab('history')}>
            History
          </button>
        </div>
      </header>
      {changedElsewhere && editing && (
        <p role="status" class="notice">
          This file was changed elsewhere; saving will show the conflict.
        </p>
      )}
      {editing ? (
        <EditPanel
          projectId={projectId}
          filename={filename}
          loaded={data}
          onDone={() => {
            setEditing(false);
            setChangedElsewhere(false);
            reload();
          }}
        />
      ) : tab === 'history' ? (
        <HistoryPanel
          me={me}
          projectId={projectId}
          filename={filename}
          etag={data.etag}
          onRestored={reload}
        />
      ) : (
        <FileView projectId={projectId} filename={filename} loaded={data} anchor={anchor} />
      )}
      {me.role !== 'read' && !editing && (
        <FileActions me={me} projectId={projectId} filename={filename} etag={data.etag} />
      )}
    </article>
  );
}

/** Resolves a relative link of a rendered file to another file of the project, or null. */
export function linkedFile(fromFilename: string, target: string): string | null {
  if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('#') || target.startsWith('//')) return null;
  const path = decodeURIComponent(target.split('#', 1)[0]!.split('?', 1)[0]!);
  if (!/\.mdx?$/i.test(path)) return null;
  const parts = (path.startsWith('/') ? path.slice(1) : folderOf(fromFilename) + path).split('/');
  const out: string[] = [];
  for (const part of parts) {
    if (part === '..') out.pop();
    else if (part !== '.' && part !== '') out.push(part);
  }
  return out.join('/');
}

function FileView(props: { projectId: string; filename: string; loaded: Loaded; anchor: string | null }) {
  const { projectId, filename, loaded, anchor } = props;
  const container = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (anchor) document.getElementById(anchor)?.scrollIntoView();
  }, [anchor, loaded]);
  useEffect(() => {
    const element = container.current;
    if (!element) return;
    const follow = (event: MouseEvent) => {
      const anchor = (event.target as Element).closest('a');
      const target = anchor?.getAttribute('href');
      if (!target) return;
      const other = linkedFile(filename, target);
      if (other !== null) {
        event.preventDefault();
        go(href.file(projectId, other));
      } else if (target.startsWith('#') && !target.startsWith('#/')) {
        event.preventDefault();
        document.getElementById(decodeURIComponent(target.slice(1)))?.scrollIntoView();
      }
    };
    element.addEventListener('click', follow);
    return () => element.removeEventListener('click', follow);
  }, [projectId, filename]);
  return (
    <div class="file-body">
      {loaded.html !== null ? (
        // The server's renderer sanitises this HTML (extensions §11); the page's CSP runs no script anyway.
        <div ref={container} class="rendered" dangerouslySetInnerHTML={{ __html: loaded.html }} />
      ) : (
        <ScrollPre label="File source" class="source">
          {loaded.text}
        </ScrollPre>
      )}
      <aside aria-label="File details" class="details">
        {loaded.outline.length > 0 && (
          <section>
            <h2>Outline</h2>
            <ul class="outline">
              {loaded.outline.map((heading, i) => (
                <li key={i} style={{ paddingLeft: `${(heading.level - 1) * 0.75}em` }}>
                  {heading.text}
                </li>
              ))}
            </ul>
          </section>
        )}
        <section>
          <h2>Metadata</h2>
          <pre>{JSON.stringify(loaded.file?.metadata ?? null, null, 2)}</pre>
        </section>
        <section>
          <h2>Front matter</h2>
          <pre>{JSON.stringify(loaded.file?.frontmatter ?? null, null, 2)}</pre>
        </section>
        {loaded.file && (
          <p class="muted">
            Updated {new Date(loaded.file.updated_date).toLocaleString()} · ETag {loaded.etag}
          </p>
        )}
      </aside>
    </div>
  );
}

export const errorText = (caught: unknown) => (caught instanceof ApiError ? caught.detail : String(caught));
