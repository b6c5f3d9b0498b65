import { useEffect } from 'preact/hooks';
import { isStatus, sdk } from './api';

/**
 * Rendered HTML (the server's sanitised fragment, extensions §11) put into the page, with the images of
 * the project's attachments loaded. The fragment's `<img src="/api/projects/{id}/attachments/{path}">`
 * needs the key, which the browser does not send with an image; so each is read by an authenticated
 * `fetch` and shown through a `blob:` object URL (the console's CSP allows `img-src blob:`), revoked
 * when the view changes. Bounded: only the images of the HTML shown, at most `MAX_IMAGES` of them, each
 * at most `MAX_IMAGE_BYTES`, `MAX_TOTAL_BYTES` in all, `PARALLEL` reads at a time.
 */

export const MAX_IMAGES = 100;
export const MAX_IMAGE_BYTES = 10 * 1024 * 1024;
export const MAX_TOTAL_BYTES = 64 * 1024 * 1024;
const PARALLEL = 4;

/** Top-level blocks inserted at once; the rest follow in batches, one per task. */
const FIRST_BLOCKS = 200;
const BATCH_BLOCKS = 1000;

/** The attribute an attachment image's URL waits in until its bytes are read (its `src` is removed). */
export const PENDING = 'data-attachment-src';

/** The path prefix of the project's attachment reads, as the renderer writes them. */
export const attachmentsPrefix = (projectId: string) => `/api/projects/${projectId}/attachments/`;

/**
 * An attachment image's URL as the renderer writes it (its path one segment), for an `<img>` of the
 * console's own held back as the renderer's are (`PENDING`), and read through the SDK by `imageBlob`.
 */
export const attachmentSrc = (projectId: string, path: string) =>
  `${attachmentsPrefix(projectId)}${encodeURIComponent(path)}`;

/**
 * The attachment images of a parsed (inert) fragment: their `src` moved aside so the browser never
 * asks for them without the key (a 401 for each, and a broken image).
 */
function holdAttachmentImages(root: DocumentFragment, projectId: string): HTMLImageElement[] {
  const prefix = attachmentsPrefix(projectId);
  const images: HTMLImageElement[] = [];
  for (const img of root.querySelectorAll('img')) {
    const src = img.getAttribute('src') ?? '';
    if (!src.startsWith(prefix)) continue;
    img.setAttribute(PENDING, src);
    img.removeAttribute('src');
    images.push(img);
  }
  return images;
}

/** The project and path of an attachment read as the renderer writes it (`attachmentsPrefix`). */
export function attachmentOf(src: string): { projectId: string; path: string } | null {
  const match = /^\/api\/projects\/([^/?#]+)\/attachments\/([^/?#]+)$/.exec(src);
  if (!match) return null;
  try {
    return { projectId: decodeURIComponent(match[1]!), path: decodeURIComponent(match[2]!) };
  } catch {
    return null;
  }
}

/** Reads one image with the key; null when refused, not an image, or past the bounds. */
async function imageBlob(src: string, signal: AbortSignal, budget: { left: number }): Promise<Blob | null> {
  const attachment = attachmentOf(src);
  if (attachment === null) return null;
  let response: Response;
  try {
    response = await sdk().attachments.read(attachment.projectId, attachment.path, { signal });
  } catch (caught) {
    if (isStatus(caught, 403, 404, 416)) return null;
    throw caught;
  }
  const header = response.headers.get('content-length');
  const declared = header === null ? 0 : Number(header);
  const type = response.headers.get('content-type') ?? '';
  const fits = (size: number) => size <= MAX_IMAGE_BYTES && size <= budget.left;
  if (!response.ok || !type.startsWith('image/') || !fits(declared)) {
    await response.body?.cancel();
    return null;
  }
  const blob = await response.blob();
  // Without a declared length, judged once read.
  if (!fits(blob.size)) return null;
  budget.left -= blob.size;
  return blob;
}

/**
 * Object URLs kept from one render to the next of the same view (the live preview renders the text
 * again at every pause: its images are read once), at most `MAX_IMAGES` of them and `MAX_TOTAL_BYTES`
 * in all. Its owner revokes them (`clear`) when the view goes.
 */
export class ImageCache {
  private readonly urls = new Map<string, string>();
  private bytes = 0;

  get(src: string): string | undefined {
    return this.urls.get(src);
  }

  /** Keeps `url` for `src` if it fits; false when it does not (the caller revokes it itself). */
  keep(src: string, url: string, size: number): boolean {
    if (this.urls.size >= MAX_IMAGES || this.bytes + size > MAX_TOTAL_BYTES) return false;
    this.urls.set(src, url);
    this.bytes += size;
    return true;
  }

  clear(): void {
    for (const url of this.urls.values()) URL.revokeObjectURL(url);
    this.urls.clear();
    this.bytes = 0;
  }
}

/**
 * Loads `images` through object URLs; returns the cleanup that stops the reads and revokes the URLs
 * (but those `cache` keeps). Those past `MAX_IMAGES` or the byte bounds keep their alt text.
 */
export function loadAttachmentImages(images: readonly HTMLImageElement[], cache?: ImageCache): () => void {
  const controller = new AbortController();
  const urls: string[] = [];
  const queue = images.slice(0, MAX_IMAGES);
  const budget = { left: MAX_TOTAL_BYTES };
  const worker = async () => {
    for (let img = queue.shift(); img !== undefined; img = queue.shift()) {
      const src = img.getAttribute(PENDING);
      if (src === null) continue;
      const kept = cache?.get(src);
      if (kept !== undefined) {
        img.src = kept;
        continue;
      }
      const blob = await imageBlob(src, controller.signal, budget).catch(() => null);
      if (controller.signal.aborted) return;
      if (blob === null) continue;
      const url = URL.createObjectURL(blob);
      if (!cache?.keep(src, url, blob.size)) urls.push(url);
      img.src = url;
    }
  };
  for (let i = 0; i < PARALLEL; i++) void worker();
  return () => {
    controller.abort();
    for (const url of urls.splice(0)) URL.revokeObjectURL(url);
  };
}

/**
 * Puts the HTML into `element`: parsed inert in a template, its attachment images held back and then
 * loaded with the key, the first blocks at once and the others in later tasks (a 1 MiB file never holds
 * the page in one long layout). The page's CSP runs no script whatever the HTML holds. Returns the
 * cleanup: pending batches cancelled, image reads stopped, object URLs revoked.
 */
export function showHtml(
  element: HTMLElement,
  html: string,
  projectId: string,
  done: () => void = () => {},
  cache?: ImageCache,
): () => void {
  const template = document.createElement('template');
  template.innerHTML = html;
  const images = holdAttachmentImages(template.content, projectId);
  const nodes = [...template.content.childNodes];
  element.replaceChildren(...nodes.slice(0, FIRST_BLOCKS));
  let at = FIRST_BLOCKS;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const more = () => {
    element.append(...nodes.slice(at, at + BATCH_BLOCKS));
    at += BATCH_BLOCKS;
    if (at < nodes.length) timer = setTimeout(more, 0);
    else done();
  };
  if (at < nodes.length) timer = setTimeout(more, 0);
  else done();
  const stopImages = loadAttachmentImages(images, cache);
  return () => {
    clearTimeout(timer);
    stopImages();
  };
}

/** `showHtml` in a component: shown when `html` changes, cleaned up before the next or on unmount. */
export function useShownHtml(
  ref: { current: HTMLElement | null },
  html: string | null,
  projectId: string,
  done?: () => void,
  cache?: ImageCache,
): void {
  useEffect(() => {
    if (!ref.current || html === null) return undefined;
    return showHtml(ref.current, html, projectId, done, cache);
  }, [html, projectId]);
}
