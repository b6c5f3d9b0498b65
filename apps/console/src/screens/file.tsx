import type { MdStoreFile, Outline } from '@mdstore/client';
import { useEffect, useRef, useState } from 'preact/hooks';
import { can, fileObject, type Me, sdk, unless } from '../api';
import { ScrollPre } from '../diff';
import { frontMatterLength } from '../frontmatter';
import { useLiveVersion } from '../live';
import { useShownHtml } from '../rendered';
import { decodePart, folderOf, href } from '../route';
import { useLoad } from '../use-load';
import { loadFrontMatter, SourceText, YamlLines } from '../yaml-view';
import { EditPanel } from './edit';
import { FileActions } from './file-actions';
import { HistoryPanel } from './history';
import { ShareFile } from './shares';

export interface Loaded {
  /** The raw text: loaded only when there is no rendered HTML to show (the editor loads its own). */
  readonly text: string | null;
  readonly etag: string;
  readonly html: string | null;
  readonly file: MdStoreFile | null;
  readonly outline: Heading[];
}

/** A heading of the outline, as the details show it. */
type Heading = Pick<Outline['headings'][number], 'level' | 'text'>;

/**
 * The rendered HTML from `?format=html` (extensions §11) and its ETag (the file's), or null when there
 * is none to show: `.mdx` (shown as source), a server without the renderer, or a file past its bound.
 */
async function renderedHtml(projectId: string, filename: string, signal: AbortSignal) {
  if (/\.mdx$/i.test(filename)) return null;
  const rendered = await unless(
    sdk().files.download(projectId, filename, { format: 'html', headers: { Accept: 'text/html' }, signal }),
    null,
    400,
    404,
    406,
    413,
    415,
    422,
  );
  if (rendered === null) return null;
  if (!(rendered.headers.get('content-type') ?? '').startsWith('text/html')) {
    await rendered.cancel();
    return null;
  }
  return { html: await rendered.text(), etag: rendered.etag ?? '' };
}

/** The raw text and the ETag it was read with: what the editor starts from and saves against. */
export async function loadText(projectId: string, filename: string, signal?: AbortSignal) {
  const raw = await sdk().files.download(projectId, filename, signal ? { signal } : {});
  return { text: await raw.text(), etag: raw.etag ?? '' };
}

const TAGS = /<[^>]*>/g;
const ENTITIES: Record<string, string> = {
  '&amp;': '&',
  '&lt;': '<',
  '&gt;': '>',
  '&quot;': '"',
  '&#39;': "'",
};

/** The outline of rendered HTML: its headings, read from the HTML already here (no second request). */
export function headingsOf(html: string): Heading[] {
  const headings: Heading[] = [];
  for (const match of html.matchAll(/<h([1-6])\b[^>]*>([\s\S]*?)<\/h\1>/g)) {
    const text = match[2]!.replace(TAGS, '').replace(/&(amp|lt|gt|quot|#39);/g, (e) => ENTITIES[e] ?? e);
    headings.push({ level: Number(match[1]), text: text.trim() });
  }
  return headings;
}

async function outlineOf(projectId: string, filename: string, signal: AbortSignal): Promise<Heading[]> {
  const outline = await unless(sdk().files.outline(projectId, filename, { signal }), null, 404, 413, 422);
  return outline?.headings ?? [];
}

/**
 * What the file view shows, in parallel: the rendered HTML (its outline read from it) and the File
 * object (metadata, front matter, revision); the raw text and the outline endpoint only without HTML.
 */
export async function loadFile(projectId: string, filename: string, signal: AbortSignal): Promise<Loaded> {
  const [rendered, file] = await Promise.all([
    renderedHtml(projectId, filename, signal),
    fileObject(projectId, filename),
  ]);
  if (rendered !== null) {
    return { text: null, etag: rendered.etag, html: rendered.html, file, outline: headingsOf(rendered.html) };
  }
  const [raw, outline] = await Promise.all([
    loadText(projectId, filename, signal),
    outlineOf(projectId, filename, signal),
  ]);
  return { text: raw.text, etag: raw.etag, html: null, file, outline };
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
    void unless(sdk().files.head(projectId, filename), null, 404).then((head) => {
      if ((head?.etag ?? null) === data.etag) return;
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
          revision {data.file?.revision ?? '?'} · {(data.file?.size_bytes ?? 0).toLocaleString()} bytes
        </p>
        <div class="toolbar">
          {can(me, 'write') && !editing && (
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
      {can(me, 'write') && !editing && (
        <FileActions me={me} projectId={projectId} filename={filename} etag={data.etag} />
      )}
      {can(me, 'admin') && !editing && <ShareFile projectId={projectId} filename={filename} />}
    </article>
  );
}

function FileView(props: { projectId: string; filename: string; loaded: Loaded; anchor: string | null }) {
  const { projectId, filename, loaded, anchor } = props;
  const container = useRef<HTMLDivElement>(null);
  const [inserted, setInserted] = useState(false);
  useShownHtml(container, loaded.html, projectId, () => setInserted(true));
  useEffect(() => {
    if (anchor && inserted) document.getElementById(anchor)?.scrollIntoView();
  }, [anchor, inserted]);
  useEffect(() => {
    const element = container.current;
    if (!element) return;
    const follow = (event: MouseEvent) => {
      const anchor = (event.target as Element).closest('a');
      const target = anchor?.getAttribute('href');
      if (!target) return;
      // Links to files of the project are already the console's routes (`#/p/…/f/…`): the server's
      // renderer resolved them by the link index's rule (issue 35: one resolver), and the hash router
      // follows them. Only a heading anchor needs a hand.
      if (target.startsWith('#') && !target.startsWith('#/')) {
        event.preventDefault();
        const id = decodePart(target.slice(1));
        if (id !== null) document.getElementById(id)?.scrollIntoView();
      }
    };
    element.addEventListener('click', follow);
    return () => element.removeEventListener('click', follow);
  }, [projectId, filename]);
  return (
    <div class="file-body">
      {loaded.html !== null ? (
        // The server's renderer sanitises this HTML (extensions §11); the page's CSP runs no script anyway.
        <div ref={container} class="rendered" />
      ) : (
        <ScrollPre label="File source" class="source">
          <SourceText text={loaded.text ?? ''} />
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
          <pre>{shownJson(loaded.file?.metadata)}</pre>
        </section>
        <FrontMatterPanel projectId={projectId} filename={filename} loaded={loaded} />
        <LinksPanel projectId={projectId} filename={filename} etag={loaded.etag} />
        {loaded.file && (
          <p class="muted">
            Updated {new Date(loaded.file.updated_date).toLocaleString()} · ETag {loaded.etag}
          </p>
        )}
      </aside>
    </div>
  );
}

/**
 * The file's front matter as it is written, coloured as YAML: from the text when it is loaded, else from
 * the file's first lines (only when the file has front matter); the parsed JSON when the block is not
 * found there (longer than those lines).
 */
function FrontMatterPanel(props: { projectId: string; filename: string; loaded: Loaded }) {
  const { projectId, filename, loaded } = props;
  const parsed = loaded.file?.frontmatter;
  const has = parsed !== null && parsed !== undefined && Object.keys(parsed).length > 0;
  const { data: block } = useLoad(
    async (signal) => {
      if (!has) return null;
      if (loaded.text !== null) {
        const end = frontMatterLength(loaded.text);
        return end === 0 ? null : loaded.text.slice(0, end);
      }
      return loadFrontMatter(projectId, filename, signal);
    },
    [projectId, filename, loaded.etag, has],
  );
  return (
    <section>
      <h2>Front matter</h2>
      {block ? (
        <ScrollPre label="Front matter (YAML)" class="front-matter">
          <YamlLines block={block} />
        </ScrollPre>
      ) : (
        <pre>{shownJson(parsed)}</pre>
      )}
    </section>
  );
}

/**
 * Metadata or front matter as the details show it: "None" when there is none (null, or an empty
 * object), else the JSON, indented.
 */
export const shownJson = (value: unknown): string =>
  value === null || value === undefined || (typeof value === 'object' && Object.keys(value).length === 0)
    ? 'None'
    : JSON.stringify(value, null, 2);

/**
 * The files linking here and the links of this file that lead nowhere (extensions §9), from one page of
 * `GET …/links` (at most 100 links; past them the panel says there are more).
 */
function LinksPanel(props: { projectId: string; filename: string; etag: string }) {
  const { projectId, filename, etag } = props;
  const { data } = useLoad(
    (signal) => sdk().links.ofFile(projectId, filename, { limit: 100, signal }),
    [projectId, filename, etag],
  );
  if (!data) return null;
  const sources = [...new Set(data.incoming.map((link) => link.source))];
  const broken = data.outgoing.filter((link) => !link.resolved);
  return (
    <>
      <section>
        <h2>Links here</h2>
        {sources.length === 0 ? (
          <p class="muted">None</p>
        ) : (
          <ul>
            {sources.map((source) => (
              <li key={source}>
                <a href={href.file(projectId, source)}>{source}</a>
              </li>
            ))}
          </ul>
        )}
      </section>
      <section>
        <h2>Broken links</h2>
        {broken.length === 0 ? (
          <p class="muted">None</p>
        ) : (
          <ul>
            {broken.map((link) => (
              <li key={`${link.line}:${link.raw}`}>
                line {link.line}: <code>{link.raw}</code>
              </li>
            ))}
          </ul>
        )}
      </section>
      {data.next_cursor && <p class="muted">More links than shown here.</p>}
    </>
  );
}
