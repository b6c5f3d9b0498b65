import { isStatus, sdk } from './api';
import { frontMatterLength, frontMatterLines } from './frontmatter';

/** The lines of a front matter block, its keys, values, comments and markers in `yaml-*` spans. */
export function YamlLines({ block }: { block: string }) {
  const lines = frontMatterLines(block);
  return (
    <>
      {lines.map(({ text, tokens }, i) => {
        const parts: preact.ComponentChildren[] = [];
        let at = 0;
        for (const token of tokens) {
          if (token.from > at) parts.push(text.slice(at, token.from));
          parts.push(
            <span key={token.from} class={`yaml-${token.part}`}>
              {text.slice(token.from, token.to)}
            </span>,
          );
          at = token.to;
        }
        if (at < text.length) parts.push(text.slice(at));
        return (
          <span key={i}>
            {parts}
            {i < lines.length - 1 ? '\n' : ''}
          </span>
        );
      })}
    </>
  );
}

/** A Markdown source as text, its leading front matter coloured as YAML (not as Markdown). */
export function SourceText({ text }: { text: string }) {
  const end = frontMatterLength(text);
  if (end === 0) return <>{text}</>;
  return (
    <>
      <span class="front-matter">
        <YamlLines block={text.slice(0, end)} />
      </span>
      {text.slice(end)}
    </>
  );
}

/** Lines read to find a file's front matter when only its render is loaded (a block longer is not shown). */
export const FRONT_MATTER_LINES = 200;

/** The front matter block of a stored file, from its first lines (`?lines=`), or null when it has none. */
export async function loadFrontMatter(
  projectId: string,
  filename: string,
  signal: AbortSignal,
): Promise<string | null> {
  let head: string;
  try {
    const part = await sdk().files.download(projectId, filename, {
      lines: `1-${FRONT_MATTER_LINES}`,
      signal,
    });
    head = await part.text();
  } catch (caught) {
    if (isStatus(caught, 404, 409, 413, 416, 422)) return null;
    throw caught;
  }
  const end = frontMatterLength(head);
  return end === 0 ? null : head.slice(0, end);
}
