import { useEffect, useState } from 'preact/hooks';

/**
 * Where the console is, kept in the URL's fragment so that `/` is the only page the server serves:
 * `#/p/{project}` (a folder with `?dir=`), `#/p/{project}/f/{filename}`, `#/p/{project}/search`,
 * `#/p/{project}/trash`, `#/p/{project}/settings`, `#/p/{project}/shares`, `#/p/{project}/drafts`,
 * `#/p/{project}/drafts/{draft}`, `#/keys`, `#/webhooks`. Never the key.
 */
export interface Route {
  readonly projectId: string | null;
  readonly view:
    | 'projects'
    | 'folder'
    | 'file'
    | 'search'
    | 'trash'
    | 'settings'
    | 'shares'
    | 'drafts'
    | 'draft'
    | 'keys'
    | 'webhooks';
  readonly filename: string | null;
  readonly dir: string;
  readonly query: string;
  /** How the search screen searches (`?mode=`, extensions §15): words (the default), meaning, or both. */
  readonly mode: SearchMode;
  /** The draft of the `draft` view. */
  readonly draftId: string | null;
  /** A heading of the open file to scroll to (`#/p/{project}/f/{filename}#{anchor}`). */
  readonly anchor: string | null;
}

export const SEARCH_MODES = ['text', 'semantic', 'hybrid'] as const;
export type SearchMode = (typeof SEARCH_MODES)[number];

const searchModeOf = (value: string | null): SearchMode =>
  SEARCH_MODES.find((mode) => mode === value) ?? 'text';

/**
 * A percent-encoded part of a route, decoded; null when it is not valid percent-encoded UTF-8 (a link
 * to `#/p/%E0%A4%A`): `decodeURIComponent` throws "URI malformed" there, and a throw while the route is
 * read would leave the page blank, on every reload too.
 */
export function decodePart(text: string): string | null {
  try {
    return decodeURIComponent(text);
  } catch {
    return null;
  }
}

/**
 * The route of a fragment. Whatever it holds, it is a route: a project id that does not decode opens
 * the projects, a filename that does not decode the project's folder, an anchor that does not decode
 * nothing to scroll to.
 */
export function parseRoute(hash: string): Route {
  const fragment = hash.replace(/^#/, '');
  const anchorAt = fragment.indexOf('#');
  const anchor = anchorAt < 0 ? null : decodePart(fragment.slice(anchorAt + 1));
  const [path = '', search = ''] = (anchorAt < 0 ? fragment : fragment.slice(0, anchorAt)).split('?', 2);
  const params = new URLSearchParams(search);
  const parts = path.split('/').filter((p) => p !== '');
  const base = {
    projectId: null,
    filename: null,
    dir: params.get('dir') ?? '',
    query: params.get('q') ?? '',
    mode: searchModeOf(params.get('mode')),
    draftId: null,
    anchor,
  };
  if (parts[0] === 'keys') return { ...base, view: 'keys' };
  if (parts[0] === 'webhooks') return { ...base, view: 'webhooks' };
  const projectId = parts[0] === 'p' && parts[1] !== undefined ? decodePart(parts[1]) : null;
  if (projectId === null) return { ...base, view: 'projects' };
  if (parts[2] === 'f' && parts[3] !== undefined) {
    // Each segment percent-encoded, `/` kept (as the server's renderer writes links); `%2F` also reads.
    const segments = parts.slice(3).map(decodePart);
    if (segments.includes(null)) return { ...base, projectId, view: 'folder' };
    const filename = segments.join('/');
    return { ...base, projectId, view: 'file', filename, dir: params.get('dir') ?? folderOf(filename) };
  }
  const view = parts[2];
  if (view === 'drafts') {
    const draftId = parts[3] === undefined ? null : decodePart(parts[3]);
    return draftId === null
      ? { ...base, projectId, view: 'drafts' }
      : { ...base, projectId, view: 'draft', draftId };
  }
  if (view === 'search' || view === 'trash' || view === 'settings' || view === 'shares') {
    return { ...base, projectId, view };
  }
  return { ...base, projectId, view: 'folder' };
}

export const folderOf = (filename: string) => filename.slice(0, filename.lastIndexOf('/') + 1);

export const href = {
  projects: () => '#/',
  folder: (projectId: string, dir = '') => `#/p/${projectId}${dir ? `?dir=${encodeURIComponent(dir)}` : ''}`,
  /** The same route as the server's `consoleFileHref` (core `markdown/hrefs.ts`) writes in rendered links. */
  file: (projectId: string, filename: string) =>
    `#/p/${projectId}/f/${filename.split('/').map(encodeURIComponent).join('/')}`,
  search: (projectId: string, query = '', mode: SearchMode = 'text') => {
    const params = [
      ...(query ? [`q=${encodeURIComponent(query)}`] : []),
      ...(mode !== 'text' ? [`mode=${mode}`] : []),
    ];
    return `#/p/${projectId}/search${params.length > 0 ? `?${params.join('&')}` : ''}`;
  },
  drafts: (projectId: string) => `#/p/${projectId}/drafts`,
  draft: (projectId: string, draftId: string) => `#/p/${projectId}/drafts/${encodeURIComponent(draftId)}`,
  trash: (projectId: string) => `#/p/${projectId}/trash`,
  settings: (projectId: string) => `#/p/${projectId}/settings`,
  shares: (projectId: string) => `#/p/${projectId}/shares`,
  keys: () => '#/keys',
  webhooks: () => '#/webhooks',
};

export const go = (target: string) => {
  window.location.hash = target;
};

export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(window.location.hash));
  useEffect(() => {
    const update = () => setRoute(parseRoute(window.location.hash));
    window.addEventListener('hashchange', update);
    return () => window.removeEventListener('hashchange', update);
  }, []);
  return route;
}
