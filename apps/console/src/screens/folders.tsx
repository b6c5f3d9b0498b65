import type { MdStoreFile, SearchFilter } from '@mdstore/client';
import { useState } from 'preact/hooks';
import { type Me, sdk } from '../api';
import { useLiveVersion } from '../live';
import { Pager } from '../pager';
import { href, type Route } from '../route';
import { useLoad } from '../use-load';

/** Entries per page: a 10 000-file folder is walked a page at a time with the API's cursors. */
export const PAGE_SIZE = 100;

type Sort = 'filename' | 'updated_date' | 'size_bytes' | 'created_date';

interface Page {
  readonly folders: string[];
  readonly files: MdStoreFile[];
  readonly total: number;
  readonly next: string | null;
}

async function loadPage(
  projectId: string,
  dir: string,
  sort: Sort,
  order: 'asc' | 'desc',
  filter: string,
  cursor: string | null,
  signal: AbortSignal,
): Promise<Page> {
  if (filter !== '') {
    const conditions: SearchFilter[] = [{ field: 'filename', op: 'contains', value: filter }];
    if (dir !== '') conditions.push({ field: 'filename', op: 'prefix', value: dir });
    const answer = await sdk().search(
      projectId,
      { filter: { and: conditions }, sort, order, limit: PAGE_SIZE, ...(cursor && { cursor }) },
      { signal },
    );
    return {
      folders: [],
      files: answer.results.map((r) => r.file),
      total: answer.total_count,
      next: answer.next_cursor,
    };
  }
  const answer = await sdk().files.list(projectId, {
    limit: PAGE_SIZE,
    sort,
    order,
    ...(dir !== '' && { prefix: dir }),
    // Folders fold only in name order (extensions §3); other orders list the folder's whole subtree.
    ...(sort === 'filename' && { delimiter: '/' as const }),
    cursor,
    signal,
  });
  return {
    folders: answer.folders ?? [],
    files: answer.files,
    total: answer.total_count,
    next: answer.next_cursor ?? null,
  };
}

const lastSegment = (name: string) =>
  name.replace(/\/$/, '').slice(name.replace(/\/$/, '').lastIndexOf('/') + 1);

/** A project's folders and files, as the second `navigation` landmark: paged, sorted, filtered by name. */
export function FolderNav({ projectId, route }: { projectId: string; route: Route; me: Me }) {
  const dir = route.dir;
  const [sort, setSort] = useState<Sort>('filename');
  const [order, setOrder] = useState<'asc' | 'desc'>('asc');
  const [filter, setFilter] = useState('');
  /** The cursors of the pages before this one, and this page's. */
  const [cursors, setCursors] = useState<(string | null)[]>([null]);
  const cursor = cursors[cursors.length - 1] ?? null;
  const live = useLiveVersion(projectId);
  const key = `${projectId}|${dir}|${sort}|${order}|${filter}`;
  const [pagedKey, setPagedKey] = useState(key);
  if (pagedKey !== key) {
    setPagedKey(key);
    setCursors([null]);
  }
  const { data, error } = useLoad(
    (signal) => loadPage(projectId, dir, sort, order, filter, cursor, signal),
    [key, cursor, live],
  );
  const crumbs = dir.split('/').filter((s) => s !== '');
  const page = cursors.length;
  return (
    <nav aria-label="Folders" class="folders-nav">
      <h2>Files</h2>
      <ol class="crumbs" aria-label="Folder path">
        <li>
          <a href={href.folder(projectId)}>All files</a>
        </li>
        {crumbs.map((crumb, i) => (
          <li key={crumb}>
            <a href={href.folder(projectId, `${crumbs.slice(0, i + 1).join('/')}/`)}>{crumb}</a>
          </li>
        ))}
      </ol>
      <div class="list-controls">
        <label>
          Filter by name
          <input
            type="search"
            value={filter}
            onInput={(e) => setFilter((e.currentTarget as HTMLInputElement).value)}
          />
        </label>
        <label>
          Sort by
          <select
            value={sort}
            onChange={(e) => setSort((e.currentTarget as HTMLSelectElement).value as Sort)}
          >
            <option value="filename">Name</option>
            <option value="updated_date">Updated</option>
            <option value="created_date">Created</option>
            <option value="size_bytes">Size</option>
          </select>
        </label>
        <label>
          Order
          <select
            value={order}
            onChange={(e) => setOrder((e.currentTarget as HTMLSelectElement).value as 'asc' | 'desc')}
          >
            <option value="asc">Ascending</option>
            <option value="desc">Descending</option>
          </select>
        </label>
      </div>
      {error && <p role="alert">{error}</p>}
      <ul class="entries">
        {data?.folders.map((folder) => (
          <li key={folder} class="folder">
            <a href={href.folder(projectId, folder)} aria-label={`Folder ${lastSegment(folder)}`}>
              {lastSegment(folder)}/
            </a>
          </li>
        ))}
        {data?.files.map((file) => (
          <li key={file.filename} class="file">
            <a
              href={href.file(projectId, file.filename)}
              aria-current={file.filename === route.filename ? 'page' : undefined}
            >
              {file.filename.slice(dir.length)}
            </a>
          </li>
        ))}
      </ul>
      <p class="muted" aria-live="polite">
        {data ? `${data.total} entries · page ${page}` : 'Loading…'}
      </p>
      <Pager cursors={cursors} next={data?.next} setCursors={setCursors} />
    </nav>
  );
}
