import { useEffect, useRef, useState } from 'preact/hooks';
import { errorText, fileObject, isStatus, sdk, unless } from '../api';
import { DiffView, ScrollPre } from '../diff';
import type { Editor } from '../editor';
import { ImageCache, useShownHtml } from '../rendered';
import { go, href } from '../route';
import { type Loaded, loadText } from './file';

interface Conflict {
  /** The current text, shown when there is no diff to show. */
  readonly theirs: string;
  /** The other change, as the server's diff from the revision this edit started from; null if gone. */
  readonly diff: string | null;
}

/** A free name beside `filename` for "Save as copy": `name (copy).md`, then `name (copy 2).md`, … */
export const copyName = (filename: string, n: number) =>
  filename.replace(/(\.mdx?)$/i, n === 1 ? ' (copy)$1' : ` (copy ${n})$1`);

/**
 * The editor (a CodeMirror `textbox` holding the file's text) and "Save", with `If-Match` on the ETag the
 * text was loaded with. On `412` the conflict view: the other change as a diff, "Reload" (take theirs)
 * or "Save as copy" (keep mine under a new name). Never a silent overwrite.
 */
export function EditPanel(props: {
  projectId: string;
  filename: string;
  loaded: Loaded;
  onDone: () => void;
}) {
  const { projectId, filename, loaded, onDone } = props;
  const host = useRef<HTMLDivElement>(null);
  const editor = useRef<Editor | null>(null);
  const [ready, setReady] = useState(false);
  const [status, setStatus] = useState('');
  const [conflict, setConflict] = useState<Conflict | null>(null);
  const [busy, setBusy] = useState(false);
  /** The text the edit started from and its ETag, which the save sends as If-Match. */
  const base = useRef<{ text: string; etag: string } | null>(null);
  /** Bumped on every change of the text: the preview renders the text after a pause. */
  const [changes, setChanges] = useState(0);
  const [showPreview, setShowPreview] = useState(false);
  useEffect(() => {
    let made: Editor | undefined;
    let gone = false;
    const start =
      loaded.text !== null
        ? Promise.resolve({ text: loaded.text, etag: loaded.etag })
        : loadText(projectId, filename);
    void Promise.all([import('../editor'), start]).then(([{ createEditor }, from]) => {
      if (gone || !host.current) return;
      base.current = from;
      made = createEditor(host.current, from.text, `Content of ${filename}`, () => setChanges((n) => n + 1));
      editor.current = made;
      setReady(true);
      made.focus();
    });
    return () => {
      gone = true;
      made?.destroy();
    };
  }, []);

  const save = async () => {
    if (!editor.current || !base.current) return;
    setBusy(true);
    setStatus('Saving…');
    try {
      const saved = await unless(
        sdk().files.updateContent(projectId, filename, editor.current.text(), { ifMatch: base.current.etag }),
        null,
        412,
      );
      if (saved === null) {
        setStatus('Someone else changed this file since you opened it.');
        setConflict(await describeConflict(projectId, filename, loaded));
        return;
      }
      setStatus('Saved.');
      onDone();
    } catch (caught) {
      setStatus(`Not saved: ${errorText(caught)}`);
    } finally {
      setBusy(false);
    }
  };

  const saveAsCopy = async () => {
    if (!editor.current) return;
    setBusy(true);
    try {
      for (let n = 1; n < 100; n++) {
        const name = copyName(filename, n);
        try {
          await sdk().files.upload(projectId, name, editor.current.text());
          go(href.file(projectId, name));
          return;
        } catch (caught) {
          if (!isStatus(caught, 409)) throw caught;
        }
      }
    } catch (caught) {
      setStatus(`Not saved: ${errorText(caught)}`);
    } finally {
      setBusy(false);
    }
  };

  return (
    <section aria-label="Editor" class="editor">
      <div class={`edit-split ${showPreview ? 'showing-preview' : ''}`}>
        <div class="edit-pane">
          <div ref={host} class="cm-host" />
          {!ready && <p>Loading the editor…</p>}
          <div class="toolbar">
            {!conflict && (
              <button type="button" onClick={save} disabled={!ready || busy}>
                Save
              </button>
            )}
            <button type="button" onClick={onDone} disabled={busy}>
              {conflict ? 'Reload' : 'Cancel'}
            </button>
            {conflict && (
              <button type="button" onClick={saveAsCopy} disabled={busy}>
                Save as copy
              </button>
            )}
            <button
              type="button"
              class="preview-toggle"
              aria-pressed={showPreview}
              onClick={() => setShowPreview((shown) => !shown)}
            >
              {showPreview ? 'Show editor' : 'Show preview'}
            </button>
          </div>
        </div>
        <LivePreview
          projectId={projectId}
          filename={filename}
          text={() => editor.current?.text() ?? null}
          changes={changes}
          ready={ready}
          initial={loaded.html}
        />
      </div>
      <p role="status">{status}</p>
      {conflict && (
        <section class="conflict" aria-labelledby="conflict-title">
          <h2 id="conflict-title">Conflict: the other change</h2>
          <p>
            Your text was not saved. Reload to take the current version (your edit is dropped), or save yours
            as a copy.
          </p>
          {conflict.diff !== null ? (
            <DiffView text={conflict.diff} label="The other change" />
          ) : (
            <ScrollPre label="The current version" class="source">
              {conflict.theirs}
            </ScrollPre>
          )}
        </section>
      )}
    </section>
  );
}

/** How long the text must rest before the preview renders it. */
export const PREVIEW_DEBOUNCE_MS = 300;

/**
 * The editor's text rendered by the server (`POST …/render`, the renderer of `?format=html`) after each
 * pause of `PREVIEW_DEBOUNCE_MS`; a render still under way when the text changes again is cancelled.
 * Until the first change it shows the file's render as loaded.
 */
function LivePreview(props: {
  projectId: string;
  filename: string;
  text: () => string | null;
  changes: number;
  ready: boolean;
  initial: string | null;
}) {
  const { projectId, filename, text, changes, ready, initial } = props;
  const container = useRef<HTMLDivElement>(null);
  const [html, setHtml] = useState<string | null>(initial);
  const [problem, setProblem] = useState<string | null>(null);
  useEffect(() => {
    if (!ready || (changes === 0 && initial !== null)) return undefined;
    const controller = new AbortController();
    const timer = setTimeout(() => {
      const content = text();
      if (content === null) return;
      void sdk()
        .files.render(projectId, content, { filename, signal: controller.signal })
        .then((rendered) => {
          setHtml(rendered);
          setProblem(null);
        })
        .catch((caught: unknown) => {
          if (!controller.signal.aborted) setProblem(errorText(caught));
        });
    }, PREVIEW_DEBOUNCE_MS);
    return () => {
      clearTimeout(timer);
      controller.abort();
    };
  }, [changes, ready]);
  // The images of the text are read once for all its renders, and revoked when the editor closes.
  const [cache] = useState(() => new ImageCache());
  useEffect(() => () => cache.clear(), []);
  useShownHtml(container, html, projectId, undefined, cache);
  // Links in the preview do not leave the editor (its text is not saved yet).
  useEffect(() => {
    const element = container.current;
    const stay = (event: MouseEvent) => {
      if ((event.target as Element).closest('a')) event.preventDefault();
    };
    element?.addEventListener('click', stay);
    return () => element?.removeEventListener('click', stay);
  }, []);
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must take keyboard focus.
    <section aria-label="Preview" class="preview" tabIndex={0}>
      {problem && <p role="status">Preview not updated: {problem}</p>}
      <div ref={container} class="rendered" />
    </section>
  );
}

/** The other change: the server's diff from the revision the edit started from to the current one. */
async function describeConflict(projectId: string, filename: string, mine: Loaded): Promise<Conflict> {
  const [theirs, current] = await Promise.all([
    loadText(projectId, filename),
    fileObject(projectId, filename),
  ]);
  const from = mine.file?.revision;
  const to = current?.revision;
  if (from === undefined || to === undefined) return { theirs: theirs.text, diff: null };
  const diff = await unless(sdk().history.diff(projectId, filename, from, { to }), null, 404, 413, 422);
  return { theirs: theirs.text, diff };
}
