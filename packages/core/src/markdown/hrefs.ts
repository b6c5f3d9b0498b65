/**
 * Where a file opens: the console's route of a file (extensions §11), shared by the renderer (links
 * between files of a project) and the console itself. The filename keeps its `/`; each segment is
 * percent-encoded. A heading anchor, when there is one, follows after a second `#`.
 */
export function consoleFileHref(projectId: string, filename: string, anchor?: string | null): string {
  const href = `/#/p/${encodeURIComponent(projectId)}/f/${encodeFilename(filename)}`;
  return anchor ? `${href}#${encodeURIComponent(anchor)}` : href;
}

/** A filename as a URL path: each `/`-separated segment percent-encoded. */
export const encodeFilename = (filename: string): string =>
  filename.split('/').map(encodeURIComponent).join('/');
