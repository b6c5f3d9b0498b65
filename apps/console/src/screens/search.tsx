import type { components } from '@mdstore/client';
import { useState } from 'preact/hooks';
import { sdk, unless } from '../api';
import { go, href, type SearchMode } from '../route';
import { useLoad } from '../use-load';

export type Snippet = components['schemas']['SearchSnippet'];

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

/**
 * Whether the server has embeddings on, from `GET …/search/status` (`enabled`, extensions §15): the
 * search screen offers the search by meaning only then. A server without the route (404) has none.
 */
async function embeddingsOn(projectId: string, signal: AbortSignal): Promise<boolean> {
  const status = await unless(sdk().searching.status(projectId, { signal }), null, 404);
  return status?.enabled === true;
}

const MODE_LABELS: Readonly<Record<SearchMode, string>> = {
  text: 'Words',
  semantic: 'Meaning',
  hybrid: 'Words and meaning',
};

/** Search in the project, results with highlighted snippets; by meaning too when the server can. */
export function SearchScreen(props: { projectId: string; query: string; mode: SearchMode }) {
  const { projectId, query } = props;
  const [text, setText] = useState(query);
  const [mode, setMode] = useState<SearchMode>(props.mode);
  const { data: semantic } = useLoad((signal) => embeddingsOn(projectId, signal), [projectId]);
  const { data, error } = useLoad(
    (signal) =>
      query === ''
        ? Promise.resolve(null)
        : sdk().search(
            projectId,
            { query, limit: 50, ...(props.mode !== 'text' && { mode: props.mode }) },
            { signal },
          ),
    [projectId, query, props.mode],
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
          go(href.search(projectId, text.trim(), mode));
        }}
      >
        <label for="search-query">Search words</label>
        <input
          id="search-query"
          type="search"
          value={text}
          onInput={(e) => setText((e.currentTarget as HTMLInputElement).value)}
        />
        {semantic && (
          <fieldset class="modes">
            <legend>Search by</legend>
            {(Object.keys(MODE_LABELS) as SearchMode[]).map((value) => (
              <label key={value}>
                <input
                  type="radio"
                  name="mode"
                  value={value}
                  checked={mode === value}
                  onChange={() => {
                    setMode(value);
                    if (text.trim() !== '') go(href.search(projectId, text.trim(), value));
                  }}
                />
                {MODE_LABELS[value]}
              </label>
            ))}
          </fieldset>
        )}
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
                {result.heading && <p class="chunk-heading">Section: {result.heading}</p>}
                {result.snippet && <p class="snippet chunk">{result.snippet}</p>}
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
