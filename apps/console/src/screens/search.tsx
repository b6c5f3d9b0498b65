import { useState } from 'preact/hooks';
import { type FileObject, getJson } from '../api';
import { go, href } from '../route';
import { useLoad } from '../use-load';

export interface Snippet {
  text: string;
  highlights: [number, number][];
}

/**
 * A snippet cut into plain and highlighted parts. The offsets are code points (extensions §3), not
 * UTF-16 units: an emoji before a match counts once. Overlapping or out-of-order ranges are skipped.
 */
export function highlightParts(snippet: Snippet): { text: string; mark: boolean }[] {
  const points = [...snippet.text];
  const parts: { text: string; mark: boolean }[] = [];
  let at = 0;
  for (const [start, end] of snippet.highlights) {
    if (start < at || end <= start) continue;
    if (start > at) parts.push({ text: points.slice(at, start).join(''), mark: false });
    parts.push({ text: points.slice(start, end).join(''), mark: true });
    at = end;
  }
  if (at < points.length) parts.push({ text: points.slice(at).join(''), mark: false });
  return parts;
}

/** A snippet with its highlights as `<mark>`. */
export function Highlighted({ snippet }: { snippet: Snippet }) {
  return (
    <>
      {highlightParts(snippet).map((part, i) => (part.mark ? <mark key={i}>{part.text}</mark> : part.text))}
    </>
  );
}

/** Search in the project, results with highlighted snippets. */
export function SearchScreen({ projectId, query }: { projectId: string; query: string }) {
  const [text, setText] = useState(query);
  const { data, error } = useLoad(
    (signal) =>
      query === ''
        ? Promise.resolve(null)
        : getJson<{ results: { file: FileObject; snippets: Snippet[] }[]; total_count: number }>(
            `/api/projects/${projectId}/search`,
            { method: 'POST', json: { query, limit: 50 }, signal },
          ),
    [projectId, query],
  );
  return (
    <section aria-labelledby="search-title">
      <h1 id="search-title">Search</h1>
      {/* biome-ignore lint/a11y/useSemanticElements: the search element is too new for every reader. */}
      <form
        role="search"
        class="inline"
        onSubmit={(e) => {
          e.preventDefault();
          go(href.search(projectId, text.trim()));
        }}
      >
        <label for="search-query">Search words</label>
        <input
          id="search-query"
          type="search"
          value={text}
          onInput={(e) => setText((e.currentTarget as HTMLInputElement).value)}
        />
        <button type="submit">Search</button>
      </form>
      {error && <p role="alert">{error}</p>}
      {data && (
        <>
          <p role="status">{data.total_count} matching file(s)</p>
          <ol class="results">
            {data.results.map((result) => (
              <li key={result.file.filename}>
                <a href={href.file(projectId, result.file.filename)}>{result.file.filename}</a>
                {result.snippets.map((snippet, i) => (
                  <p key={i} class="snippet">
                    <Highlighted snippet={snippet} />
                  </p>
                ))}
              </li>
            ))}
          </ol>
        </>
      )}
    </section>
  );
}
